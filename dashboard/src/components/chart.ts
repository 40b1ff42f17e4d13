// A chart.js canvas as an element. chart.js loads on first use (its own chunk, analytics page only).
// The canvas is an image with a text label; pages render the same numbers as a table beside it.

import type { Chart, ChartConfiguration } from 'chart.js';
import { html } from 'lit';
import { AppElement } from '../lib/element.ts';

let chartModule: Promise<typeof import('chart.js')> | null = null;

function loadChartJs() {
  chartModule ??= import('chart.js').then((m) => {
    m.Chart.register(
      m.LineController,
      m.BarController,
      m.CategoryScale,
      m.LinearScale,
      m.PointElement,
      m.LineElement,
      m.BarElement,
      m.Tooltip,
      m.Legend,
    );
    m.Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
    m.Chart.defaults.color = '#374151';
    return m;
  });
  return chartModule;
}

/** Colours with at least 3:1 contrast on white, in an order that stays distinguishable. */
export const SERIES_COLORS = ['#1d4ed8', '#b45309', '#047857', '#7c3aed', '#be123c', '#0e7490'] as const;

export class SqChart extends AppElement {
  static override properties = { config: { attribute: false }, label: {} };
  declare config: ChartConfiguration | null;
  declare label: string;
  private chart: Chart | null = null;

  constructor() {
    super();
    this.config = null;
    this.label = '';
  }

  protected override async updated(changed: Map<string, unknown>): Promise<void> {
    if (!changed.has('config') || !this.config) return;
    const { Chart } = await loadChartJs();
    const canvas = this.querySelector('canvas');
    if (!canvas || !this.isConnected) return;
    this.chart?.destroy();
    this.chart = new Chart(canvas, {
      ...this.config,
      options: { responsive: true, maintainAspectRatio: false, animation: false, ...this.config.options },
    });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.chart?.destroy();
    this.chart = null;
  }

  protected override render() {
    return html`<div class="chart-box"><canvas role="img" aria-label=${this.label}></canvas></div>`;
  }
}
customElements.define('sq-chart', SqChart);

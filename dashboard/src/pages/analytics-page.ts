// Usage and analytics: per-endpoint usage, cost trends by day/week/month and popular materials as charts
// (each with its numbers as a table too), and CSV/JSON exports.

import type { ChartConfiguration } from 'chart.js';
import { html, nothing } from 'lit';
import { SERIES_COLORS } from '../components/chart.ts';
import { pageHeader } from '../components/page-header.ts';
import { emptyView, renderLoad } from '../components/states.ts';
import { widgetBudgetsView } from '../components/widget-budgets.ts';
import { api, call, withQuery } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { daysAgo, money, num, utcDay } from '../lib/format.ts';
import { Loader } from '../lib/loader.ts';
import type { CallerVia, CostTrends, Popular, Usage } from '../lib/types.ts';

type GroupBy = 'day' | 'week' | 'month';
const RANGES = [7, 30, 90, 365];

interface QuoteTotals {
  totals: { completed: number; failed: number; grams: number; success_rate: number | null };
  conversion: {
    quoted_uploads: number;
    ordered_uploads: number;
    carted_uploads: number;
    cart_lines: number;
    order_rate: number | null;
    cart_rate: number | null;
  };
  prices: { currency: string; quotes: number; total: number; average: number }[];
  orders: {
    currency: string;
    lines: number;
    in_cart_lines: number;
    not_in_cart_lines: number;
    total: number;
    in_cart: number;
    not_in_cart: number;
  }[];
  quote_requests: {
    requests: number;
    requested: number;
    priced: number;
    ordered: number;
    by_reason: { no_cart: number; not_priceable: number; merchant_rule: number };
  };
}

const rateOf = (r: number | null) => (r === null ? '' : ` (${num(r * 100, 1)} %)`);
const plural = (n: number, one: string, many: string) => `${num(n, 0)} ${n === 1 ? one : many}`;

/** Shoppers' models quoted → ordered → taken by a cart, each with its share of the models quoted. */
function conversionView(c: QuoteTotals['conversion']) {
  return html`<h3 class="small">Shoppers: quotes → orders → carts</h3>
    <p data-testid="analytics-conversion">${plural(c.quoted_uploads, 'model', 'models')} quoted in the widget
      → ${num(c.ordered_uploads, 0)} ordered${rateOf(c.order_rate)}
      → ${num(c.carted_uploads, 0)} taken by a cart${rateOf(c.cart_rate)}</p>
    <p class="muted small">A model counts once however many materials or qualities the shopper tried on it, as your
      allowance counts it. Ordered: added through the widget; taken by a cart: your shop page's cart took the line.</p>`;
}

/** The orders of the period per currency: lines and order value, those a cart took apart from those no cart took. */
function ordersView(orders: QuoteTotals['orders']) {
  if (!orders.length) return html`<p class="muted" data-testid="analytics-orders">No orders in this period.</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Orders and order value (scrolls sideways on small screens)"><table class="table table-compact" data-testid="analytics-orders">
    <caption>Orders and order value (the sum of the line totals)</caption>
    <thead><tr><th scope="col">Currency</th><th scope="col" class="num">Lines</th>
      <th scope="col" class="num">Order value</th><th scope="col" class="num">In a cart</th>
      <th scope="col" class="num">Not in a cart</th></tr></thead>
    <tbody>${orders.map(
      (
        o,
      ) => html`<tr data-currency=${o.currency}><th scope="row">${o.currency}</th><td class="num">${num(o.lines, 0)}</td>
        <td class="num">${money(o.total, o.currency)}</td>
        <td class="num" data-cell="in-cart">${money(o.in_cart, o.currency)} · ${plural(o.in_cart_lines, 'line', 'lines')}</td>
        <td class="num" data-cell="not-in-cart">${money(o.not_in_cart, o.currency)} · ${plural(o.not_in_cart_lines, 'line', 'lines')}</td></tr>`,
    )}</tbody>
  </table></div>
  <p class="muted small">Not in a cart: no cart on your shop page took the line; the widget asked the shopper for a quote request (Orders lists the lines and the requests).</p>`;
}

/** The quote requests of the period, apart from the orders: where they stand, and why shoppers sent them. */
function requestsView(r: QuoteTotals['quote_requests']) {
  if (!r.requests) return html`<p class="muted" data-testid="analytics-requests">No quote requests in this period.</p>`;
  const why = [
    [r.by_reason.no_cart, 'no cart took the line'],
    [r.by_reason.not_priceable, 'no automatic price'],
    [r.by_reason.merchant_rule, 'above your rule'],
  ] as const;
  return html`<h3 class="small">Quote requests</h3>
    <p data-testid="analytics-requests">${plural(r.requests, 'request', 'requests')}:
      <span data-cell="requested">${num(r.requested, 0)} waiting for your price</span> ·
      <span data-cell="priced">${num(r.priced, 0)} priced</span> ·
      <span data-cell="ordered">${num(r.ordered, 0)} ordered</span></p>
    <p class="muted small">Why: ${why
      .filter(([n]) => n > 0)
      .map(([n, words]) => `${words}, ${num(n, 0)}`)
      .join(
        '; ',
      )}. Price them under <a href="#/orders">Orders</a>; an ordered request's line is in the orders above.</p>`;
}

function trendChart(t: CostTrends): ChartConfiguration {
  const periods = [...new Set(t.series.map((p) => p.period))].sort();
  const currencies = [...new Set(t.series.map((p) => p.currency))];
  return {
    // A line through one or two points says little: bars until there is a trend to draw.
    type: periods.length < 3 ? 'bar' : 'line',
    data: {
      labels: periods,
      datasets: currencies.map((c, i) => ({
        label: `Quoted total (${c})`,
        data: periods.map((p) => t.series.find((s) => s.period === p && s.currency === c)?.total ?? 0),
        borderColor: SERIES_COLORS[i % SERIES_COLORS.length],
        backgroundColor: SERIES_COLORS[i % SERIES_COLORS.length],
        tension: 0.2,
      })),
    },
    options: { scales: { y: { beginAtZero: true } } },
  };
}

function barChart(
  labels: string[],
  label: string,
  data: number[],
  color: string = SERIES_COLORS[0],
): ChartConfiguration {
  return {
    type: 'bar',
    data: { labels, datasets: [{ label, data, backgroundColor: color }] },
    options: { scales: { y: { beginAtZero: true } } },
  };
}

/** Calls per day with the errors and cancelled requests among them, as three bar series. */
function usageChart(u: Usage): ChartConfiguration {
  type Day = Usage['daily'][number];
  const series = (label: string, pick: (d: Day) => number, color: string) => ({
    label,
    data: u.daily.map(pick),
    backgroundColor: color,
  });
  return {
    type: 'bar',
    data: {
      labels: u.daily.map((d) => d.date),
      datasets: [
        series('API calls', (d) => d.calls, SERIES_COLORS[0]),
        series('Errors', (d) => d.errors, SERIES_COLORS[4]),
        series('Cancelled', (d) => d.cancelled, SERIES_COLORS[1]),
      ],
    },
    options: { scales: { y: { beginAtZero: true } } },
  };
}

type CallerChoice = 'api' | 'dashboard' | 'all';
const CALLER_CHOICES: Record<CallerChoice, { label: string; noun: string; via: string | undefined }> = {
  api: { label: 'API calls (tokens and widget)', noun: 'API calls', via: 'token,widget' },
  dashboard: { label: 'This dashboard', noun: 'dashboard calls', via: 'session' },
  all: { label: 'All calls', noun: 'calls', via: undefined },
};
const CALLER_NAMES: Record<CallerVia, string> = { token: 'API tokens', widget: 'Widget', session: 'This dashboard' };

export class AnalyticsPage extends AppElement {
  static override properties = {
    days: { state: true },
    groupBy: { state: true },
    exportDataset: { state: true },
    callers: { state: true },
  };
  declare days: number;
  /** Whose calls the usage panel counts; API calls by default, so browsing this dashboard does not inflate them. */
  declare callers: CallerChoice;
  declare groupBy: GroupBy;
  declare exportDataset: 'quotes' | 'usage';
  private range = () => ({ from: daysAgo(this.days - 1), to: utcDay() });
  private usage = new Loader<Usage>(this, () =>
    call(api.GET('/v2/usage', { params: { query: { ...this.range(), via: CALLER_CHOICES[this.callers].via } } })),
  );
  private totals = new Loader<QuoteTotals>(this, () =>
    call(api.GET('/v2/analytics/quotes', { params: { query: this.range() } })),
  );
  private trends = new Loader<CostTrends>(this, () =>
    call(api.GET('/v2/analytics/cost-trends', { params: { query: { ...this.range(), group_by: this.groupBy } } })),
  );
  private popular = new Loader<Popular>(this, () =>
    call(api.GET('/v2/analytics/popular', { params: { query: this.range() } })),
  );

  constructor() {
    super();
    this.days = 30;
    this.groupBy = 'day';
    this.exportDataset = 'quotes';
    this.callers = 'api';
  }

  private setCallers(e: Event) {
    this.callers = (e.target as HTMLSelectElement).value as CallerChoice;
    void this.usage.reload();
  }

  private setDays(e: Event) {
    this.days = Number((e.target as HTMLSelectElement).value);
    for (const l of [this.usage, this.totals, this.trends, this.popular]) void l.reload();
  }

  private setGroup(g: GroupBy) {
    this.groupBy = g;
    void this.trends.reload();
  }

  protected override render() {
    return html`${pageHeader('Usage & analytics', 'What your API, widget and quotes did over a period (UTC days).')}
      <section class="panel toolbar" aria-label="Period and export">
        <div class="field field-inline"><label for="an-range">Period</label>
          <select id="an-range" @change=${this.setDays}>${RANGES.map((d) => html`<option value=${d} ?selected=${d === this.days}>Last ${d} days</option>`)}</select></div>
        ${this.exportLinks()}
      </section>
      ${renderLoad(
        this.totals.state,
        'quote totals',
        (t) => this.kpis(t),
        () => this.totals.reload(),
      )}
      <section class="panel" aria-labelledby="trend-h">
        <div class="panel-head"><h2 id="trend-h">Cost trends</h2>${this.groupSwitch()}</div>
        ${renderLoad(
          this.trends.state,
          'cost trends',
          (t) => this.trendView(t),
          () => this.trends.reload(),
        )}
      </section>
      <section class="panel" aria-labelledby="pop-h">
        <h2 id="pop-h">Popular materials</h2>
        ${renderLoad(
          this.popular.state,
          'popular materials',
          (p) => this.popularView(p),
          () => this.popular.reload(),
        )}
      </section>
      <section class="panel" aria-labelledby="usage-h">
        <div class="panel-head"><h2 id="usage-h">API usage per endpoint</h2>
          <div class="field field-inline"><label for="an-callers">Count</label>
            <select id="an-callers" @change=${this.setCallers}>${Object.entries(CALLER_CHOICES).map(
              ([value, c]) => html`<option value=${value} ?selected=${value === this.callers}>${c.label}</option>`,
            )}</select></div></div>
        ${renderLoad(
          this.usage.state,
          'usage',
          (u) => this.usageView(u),
          () => this.usage.reload(),
        )}
      </section>
      <section class="panel" aria-labelledby="budgets-h">
        <div class="panel-head"><h2 id="budgets-h">Widget budgets</h2><span class="muted small">now, whatever the period</span></div>
        <p class="muted">What each widget key's shoppers used of what you let them spend.</p>
        ${renderLoad(
          this.usage.state,
          'widget budgets',
          (u) => widgetBudgetsView(u.widget_budgets),
          () => this.usage.reload(),
        )}
      </section>`;
  }

  private exportLinks() {
    const link = (format: 'csv' | 'json') => withQuery('/v2/analytics/export', { format, dataset: this.exportDataset });
    return html`<div class="export" role="group" aria-labelledby="export-label">
      <span id="export-label" class="export-label">Export everything</span>
      <label class="visually-hidden" for="an-dataset">Dataset</label>
      <select id="an-dataset" @change=${(e: Event) => (this.exportDataset = (e.target as HTMLSelectElement).value as 'quotes' | 'usage')}>
        <option value="quotes">Quotes (one row per quote)</option><option value="usage">Usage (one row per day)</option>
      </select>
      <a class="btn" href=${link('csv')} download>Export CSV</a>
      <a class="btn" href=${link('json')} download>Export JSON</a>
    </div>`;
  }

  private groupSwitch() {
    return html`<fieldset class="segmented"><legend class="visually-hidden">Group cost trends by</legend>
      ${(['day', 'week', 'month'] as GroupBy[]).map(
        (
          g,
        ) => html`<input type="radio" id="gb-${g}" name="group_by" value=${g} .checked=${this.groupBy === g} @change=${() => this.setGroup(g)} />
          <label for="gb-${g}">${g === 'day' ? 'Day' : g === 'week' ? 'Week' : 'Month'}</label>`,
      )}</fieldset>`;
  }

  private kpis(t: QuoteTotals) {
    const kpi = (label: string, value: string) => html`<div class="stat"><dt>${label}</dt><dd>${value}</dd></div>`;
    return html`<section class="panel" aria-labelledby="kpi-h"><h2 id="kpi-h" class="visually-hidden">Totals</h2>
      <dl class="stat-row" data-testid="analytics-totals">
        ${kpi('Completed quotes', num(t.totals.completed, 0))}
        ${kpi('Failed quotes', num(t.totals.failed, 0))}
        ${kpi('Success rate', t.totals.success_rate === null ? '—' : `${num(t.totals.success_rate * 100, 1)} %`)}
        ${kpi('Filament quoted', `${num(t.totals.grams)} g`)}
        ${t.prices.map((p) => kpi(`Quoted (${p.currency})`, `${money(p.total, p.currency)} · avg ${money(p.average, p.currency)}`))}
      </dl>${conversionView(t.conversion)}${ordersView(t.orders)}${requestsView(t.quote_requests)}</section>`;
  }

  private trendView(t: CostTrends) {
    if (!t.series.length) return emptyView('No quotes in this period', 'Cost trends appear once quotes complete.');
    return html`<sq-chart .config=${trendChart(t)} label="Chart of the quoted total per ${t.group_by}; the numbers are in the table below."></sq-chart>
      <details><summary>Cost trends as a table</summary>
        <table class="table table-compact"><caption class="visually-hidden">Cost trends per ${t.group_by}</caption>
          <thead><tr><th scope="col">Period</th><th scope="col" class="num">Quotes</th><th scope="col" class="num">Total</th><th scope="col" class="num">Average</th><th scope="col" class="num">Min</th><th scope="col" class="num">Max</th><th scope="col" class="num">Filament</th></tr></thead>
          <tbody>${t.series.map((p) => html`<tr><th scope="row">${p.period}</th><td class="num">${p.quotes}</td><td class="num">${money(p.total, p.currency)}</td><td class="num">${money(p.average, p.currency)}</td><td class="num">${money(p.min, p.currency)}</td><td class="num">${money(p.max, p.currency)}</td><td class="num">${num(p.grams)} g</td></tr>`)}</tbody>
        </table></details>`;
  }

  private popularView(p: Popular) {
    if (!p.materials.length)
      return emptyView('No materials quoted yet', 'The most quoted materials appear here once quotes complete.');
    return html`<sq-chart .config=${barChart(
      p.materials.map((m) => m.material),
      'Quotes',
      p.materials.map((m) => m.quotes),
      SERIES_COLORS[1],
    )}
        label="Bar chart of quotes per material; the numbers are in the table below."></sq-chart>
      <table class="table table-compact" data-testid="popular-materials"><caption class="visually-hidden">Quotes per material</caption>
        <thead><tr><th scope="col">Material</th><th scope="col" class="num">Quotes</th><th scope="col" class="num">Filament</th></tr></thead>
        <tbody>${p.materials.map((m) => html`<tr><th scope="row">${m.material}</th><td class="num">${m.quotes}</td><td class="num">${num(m.grams)} g</td></tr>`)}</tbody>
      </table>
      ${
        p.colors.length
          ? html`<p class="muted small">Top colours: ${p.colors
              .slice(0, 5)
              .map((c) => `${c.material} ${c.color} (${c.quotes})`)
              .join(', ')}</p>`
          : nothing
      }`;
  }

  /** Calls per caller kind, always all three, so the dashboard's own calls are visible apart from the API's. */
  private callersView(u: Usage) {
    const counted = new Set(u.via);
    return html`<p class="muted small" data-testid="usage-callers">In this period:
      ${u.callers.map(
        (c, i) => html`${i ? ' · ' : ''}<span data-via=${c.via}>${CALLER_NAMES[c.via]}
        <strong>${num(c.calls, 0)}</strong>${counted.has(c.via) ? '' : ' (not counted below)'}</span>`,
      )}</p>`;
  }

  private usageView(u: Usage) {
    if (!u.endpoints.length) {
      return html`${this.callersView(u)}${emptyView(`No ${CALLER_CHOICES[this.callers].noun} in this period`, 'Calls made with your API tokens and the widget are counted here; pick "This dashboard" above for the calls this dashboard made.')}`;
    }
    const t = u.totals;
    const stat = (label: string, n: number, bad = false) =>
      html`<div class="stat ${bad ? 'stat-bad' : ''}"><dt>${label}</dt><dd>${num(n, 0)}</dd></div>`;
    return html`${this.callersView(u)}<dl class="stat-row" data-testid="usage-totals">
        ${stat('Calls', t.calls)} ${stat('Errors', t.errors, t.errors > 0)} ${stat('Cancelled', t.cancelled)}
        ${stat('Completed quotes', t.quotes)}
      </dl>
      <p class="muted small" id="cancelled-help">From ${u.from} to ${u.to}. <strong>Cancelled</strong>: requests the
        caller gave up before the answer, such as a quote the widget dropped because the shopper changed an option;
        they are not errors.</p>
      <sq-chart .config=${usageChart(u)}
        label="Bar chart of API calls, errors and cancelled requests per day; the numbers are in the table below."></sq-chart>
      ${this.dailyTable(u)}
      <div class="table-wrap" tabindex="0" role="region" aria-label="Calls per endpoint (scrolls sideways on small screens)"><table class="table table-compact" data-testid="endpoint-usage" aria-describedby="cancelled-help">
        <caption class="visually-hidden">Calls per endpoint</caption>
        <thead><tr><th scope="col">Endpoint</th><th scope="col" class="num">Calls</th><th scope="col" class="num">Errors</th>
          <th scope="col" class="num">Cancelled</th><th scope="col" class="num">Median</th><th scope="col" class="num">p95</th></tr></thead>
        <tbody>${u.endpoints.map(
          (e) => html`<tr><th scope="row"><code>${e.method} ${e.route}</code></th>
          <td class="num">${e.calls}</td><td class="num">${e.errors}</td><td class="num">${e.cancelled}</td>
          <td class="num">${num(e.median_ms, 0)} ms</td><td class="num">${num(e.p95_ms, 0)} ms</td></tr>`,
        )}</tbody>
      </table></div>`;
  }

  private dailyTable(u: Usage) {
    return html`<details><summary>API calls per day as a table</summary>
      <table class="table table-compact"><caption class="visually-hidden">API calls per day</caption>
        <thead><tr><th scope="col">Day</th><th scope="col" class="num">Calls</th><th scope="col" class="num">Errors</th>
          <th scope="col" class="num">Cancelled</th><th scope="col" class="num">Completed quotes</th></tr></thead>
        <tbody>${u.daily.map(
          (d) => html`<tr><th scope="row">${d.date}</th><td class="num">${d.calls}</td>
          <td class="num">${d.errors}</td><td class="num">${d.cancelled}</td><td class="num">${d.quotes}</td></tr>`,
        )}</tbody>
      </table></details>`;
  }
}
customElements.define('sq-analytics-page', AnalyticsPage);

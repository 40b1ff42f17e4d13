// The estimate of the choices a shopper has just made (docs/instant-price.md, "A changed choice answers at once"):
// the parse worker, which keeps the part's mesh, measures the estimator's features with the settings the widget
// configuration publishes for the chosen quality (the infill set to the one chosen), and the shop prices them
// (POST /v2/widget/estimate), in well under a second for a small part, long before its slice: first the coarse
// stage's figure (one pass over the triangles), then the fine stage's, which replaces it. Estimates are kept by
// the choices that change a slice or its price per piece (material, quality, infill) and the part's size, so that
// going back to a choice shows its estimate again without a request. One is asked at a time: a quick series of
// changes asks for the first and then the last. An estimate is never a price: it cannot be added to the cart.

import type { EstimateSettings } from '../../shared/estimate/index.ts';
import type { WidgetApi } from './api.ts';
import type { EstimateStage, StageFeatures } from './parse-protocol.ts';
import { quoteRequest } from './quote-flow.ts';
import type { Estimate, Selection, WidgetConfig } from './types.ts';

/** What an estimate is for: the part's size (its scale since it was read) and the choices that change the price. */
export const estimateKey = (sel: Pick<Selection, 'material' | 'quality' | 'infill'>, scale: number) =>
  `${scale}|${sel.material}|${sel.quality}|${sel.infill}`;

type Published = NonNullable<WidgetConfig['slice_settings']>;

/**
 * What the choices slice with, as the configuration publishes it for their quality, with their infill; null when it
 * publishes none (an older server, a quality that cannot be resolved): then only the quote's own estimate shows.
 */
export function settingsFor(config: WidgetConfig, sel: Pick<Selection, 'quality' | 'infill'>): EstimateSettings | null {
  const quality = config.qualities.find((q) => q.id === sel.quality);
  const published: Published | null | undefined =
    quality?.slice_settings ?? (sel.quality === config.default_quality ? config.slice_settings : null);
  if (!published) return null;
  const printer = { ...published.printer, fill_density: sel.infill };
  return { printer, material: published.material } as unknown as EstimateSettings;
}

export interface ChoiceEstimateHost {
  client(): WidgetApi | null;
  config(): WidgetConfig | null;
  /** The choices now selected, and the part's scale since it was read. */
  current(): { selection: Selection; scale: number } | null;
  /** The estimator's features of one stage of the part's mesh with these settings (the parse worker), or null. */
  measure<S extends EstimateStage>(stage: S, settings: EstimateSettings): Promise<StageFeatures[S] | null>;
  /** An estimate arrived for `key`: the part shows it if its choices are still those. */
  estimated(key: string, estimate: Estimate): void;
  /** The coarse stage of an estimate is over: shown, known already, or none could be made. */
  coarseSettled(): void;
}

export class ChoiceEstimates {
  /** The fine stage's estimates, and the quote's own: the best there is for their choices. */
  private readonly known = new Map<string, Estimate>();
  /** The coarse stage's: shown until the fine one is known. */
  private readonly rough = new Map<string, Estimate>();
  private running = false;
  private again = false;

  constructor(private readonly host: ChoiceEstimateHost) {}

  /** The best estimate known for these choices at this size, if any: the fine stage's, else the coarse stage's. */
  get(sel: Selection, scale: number): Estimate | null {
    const key = estimateKey(sel, scale);
    return this.known.get(key) ?? this.rough.get(key) ?? null;
  }

  /** Whether the estimate known for these choices is final (the fine stage's or the quote's), not the coarse one. */
  settled(sel: Selection, scale: number): boolean {
    return this.known.has(estimateKey(sel, scale));
  }

  /** Keeps an estimate made elsewhere (the quote's own) for these choices. */
  keep(sel: Selection, scale: number, estimate: Estimate): void {
    this.known.set(estimateKey(sel, scale), estimate);
  }

  /** A new file: nothing known is about it. */
  clear(): void {
    this.known.clear();
    this.rough.clear();
    this.again = false;
  }

  /** Estimates the choices now selected unless known; while one is asked, the latest choices wait their turn. */
  async request(signal: AbortSignal): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        await this.once(signal);
      } while (this.again && !signal.aborted);
    } finally {
      this.running = false;
    }
  }

  /** The choices now selected, coarse stage first, then fine; each shown as it is priced. */
  private async once(signal: AbortSignal): Promise<void> {
    try {
      await this.stages(signal);
    } finally {
      this.host.coarseSettled();
    }
  }

  private async stages(signal: AbortSignal): Promise<void> {
    const now = this.host.current();
    const config = this.host.config();
    if (!now || !config || signal.aborted) return;
    const key = estimateKey(now.selection, now.scale);
    const choices = quoteRequest(now.selection).choices;
    if (this.known.has(key)) return this.host.estimated(key, this.known.get(key)!);
    const settings = settingsFor(config, now.selection);
    if (!settings) return;
    if (this.rough.has(key)) this.host.estimated(key, this.rough.get(key)!);
    else {
      const coarse = await this.host.measure('coarse', settings);
      if (coarse) await this.ask(key, { coarse_features: coarse }, choices, signal);
    }
    this.host.coarseSettled();
    // Measuring the fine stage of choices no longer selected would hold the worker from the ones that are.
    if (signal.aborted || this.known.has(key) || !this.current(key)) return;
    const features = await this.host.measure('fine', settings);
    if (features) await this.ask(key, { features }, choices, signal);
  }

  private current(key: string): boolean {
    const now = this.host.current();
    return !!now && estimateKey(now.selection, now.scale) === key;
  }

  /** Prices one stage's features and shows the estimate; kept as final unless coarse. */
  private async ask(
    key: string,
    measured: Parameters<WidgetApi['estimate']>[0],
    choices: ReturnType<typeof quoteRequest>['choices'],
    signal: AbortSignal,
  ): Promise<void> {
    const client = this.host.client();
    if (!client || signal.aborted) return;
    try {
      const { estimate } = await client.estimate(measured, choices, signal);
      if (estimate.method === 'coarse') this.rough.set(key, estimate);
      else if (!this.known.has(key)) this.known.set(key, estimate);
      else return; // the quote's own estimate came meanwhile: it stays
      this.host.estimated(key, estimate);
    } catch {
      // No estimate of this stage (a rate limit, features the shop refuses): the next stage's, the quote's
      // estimate and its price follow.
    }
  }
}

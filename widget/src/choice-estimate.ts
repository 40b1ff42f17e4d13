// The estimate of the choices a shopper has just made (docs/instant-price.md, "A changed choice answers at once"):
// the parse worker, which keeps the part's mesh, measures the estimator's features with the settings the widget
// configuration publishes for the chosen quality (the infill set to the one chosen), and the shop prices them
// (POST /v2/widget/estimate), in well under a second for a small part, long before its slice. Estimates are kept by
// the choices that change a slice or its price per piece (material, quality, infill) and the part's size, so that
// going back to a choice shows its estimate again without a request. One is asked at a time: a quick series of
// changes asks for the first and then the last. An estimate is never a price: it cannot be added to the cart.
import type { WidgetApi } from './api.ts';
import { quoteRequest } from './quote-flow.ts';
import type { Estimate, Selection, WidgetConfig } from './types.ts';
import type { EstimateSettings, Features } from '../../shared/estimate/index.ts';

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
  /** The estimator's features of the part's mesh with these settings (the parse worker), or null. */
  measure(settings: EstimateSettings): Promise<Features | null>;
  /** An estimate arrived for `key`: the part shows it if its choices are still those. */
  estimated(key: string, estimate: Estimate): void;
}

export class ChoiceEstimates {
  private readonly known = new Map<string, Estimate>();
  private running = false;
  private again = false;

  constructor(private readonly host: ChoiceEstimateHost) {}

  /** The estimate known for these choices at this size, if any. */
  get(sel: Selection, scale: number): Estimate | null {
    return this.known.get(estimateKey(sel, scale)) ?? null;
  }

  /** Keeps an estimate made elsewhere (the quote's own) for these choices. */
  keep(sel: Selection, scale: number, estimate: Estimate): void {
    this.known.set(estimateKey(sel, scale), estimate);
  }

  /** A new file: nothing known is about it. */
  clear(): void {
    this.known.clear();
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

  private async once(signal: AbortSignal): Promise<void> {
    const now = this.host.current();
    const client = this.host.client();
    const config = this.host.config();
    if (!now || !client || !config || signal.aborted) return;
    const key = estimateKey(now.selection, now.scale);
    if (this.known.has(key)) return this.host.estimated(key, this.known.get(key)!);
    const settings = settingsFor(config, now.selection);
    const features = settings ? await this.host.measure(settings) : null;
    if (!features || signal.aborted) return;
    try {
      const { estimate } = await client.estimate(features, quoteRequest(now.selection).choices, signal);
      this.known.set(key, estimate);
      this.host.estimated(key, estimate);
    } catch {
      // No estimate of its own (a rate limit, features the shop refuses): the quote's estimate and price follow.
    }
  }
}

// After an import of print presets (docs/profiles.md, "Print presets as qualities"): what shoppers now choose
// between. The offer derived from the profiles offers the presets at once; an offer the merchant saved keeps its
// own qualities until they are put into it here (PUT /v2/offer), with the default printer's preset preselected.
import { html, nothing, type PropertyValues } from 'lit';
import { ApiError } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { loadOffer, type OfferInput, type OfferView, saveOffer } from '../lib/offer.ts';
import type { ProfileImportResult } from '../lib/types.ts';

type Quality = ProfileImportResult['qualities'][number];

/** The quality that slices with the import's first printer profile (the default, when imported as it). */
function preselected(result: ProfileImportResult): string {
  const printer = result.profiles.find((p) => p.kind === 'printer');
  return (result.qualities.find((q) => q.printer_profile === printer?.id) ?? result.qualities[0]!).id;
}

export class PresetQualities extends AppElement {
  static override properties = {
    imported: { attribute: false },
    offer: { state: true },
    message: { state: true },
    busy: { state: true },
  };
  declare imported: ProfileImportResult | null;
  declare offer: OfferView | null;
  declare message: string;
  declare busy: boolean;

  constructor() {
    super();
    this.imported = null;
    this.offer = null;
    this.message = '';
    this.busy = false;
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (!changed.has('imported')) return;
    this.offer = null;
    this.message = '';
    if (this.imported?.qualities.length) void this.load();
  }

  private async load() {
    try {
      this.offer = await loadOffer({ kind: 'account' });
    } catch (e) {
      this.message = e instanceof ApiError ? e.message : String(e);
    }
  }

  private async apply(result: ProfileImportResult, offer: OfferView) {
    this.busy = true;
    try {
      const { source: _source, ...saved } = offer;
      const body = { ...saved, qualities: result.qualities, default_quality: preselected(result) } as OfferInput;
      this.offer = await saveOffer({ kind: 'account' }, body);
      this.message = 'Your offer now offers these print presets.';
    } catch (e) {
      this.message = e instanceof ApiError ? e.message : String(e);
    } finally {
      this.busy = false;
    }
  }

  protected override render() {
    const result = this.imported;
    if (!result?.qualities.length || !this.offer) return this.message ? html`<p>${this.message}</p>` : nothing;
    const labels = (qualities: Quality[]) => qualities.map((q) => q.label).join(', ');
    const offered = this.offer.qualities.some((q) =>
      result.qualities.some((r) => r.printer_profile === q.printer_profile),
    );
    if (this.offer.source === 'default' || offered) {
      return html`<p data-testid="preset-qualities">Shoppers choose between ${labels(this.offer.qualities)}.
        ${this.message}</p>`;
    }
    return html`<div data-testid="preset-qualities">
      <p>Your saved offer keeps its own qualities (${labels(this.offer.qualities)}).</p>
      <button type="button" class="btn" ?disabled=${this.busy} @click=${() => this.apply(result, this.offer!)}>
        Offer these print presets instead: ${labels(result.qualities)}</button>
      ${this.message ? html`<p>${this.message}</p>` : nothing}
    </div>`;
  }
}
customElements.define('sq-preset-qualities', PresetQualities);

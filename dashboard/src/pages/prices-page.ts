// Prices (#/prices): what shoppers pay, in a merchant's words. Each material shoppers can choose with its price
// per kg, the shop-wide money fields, and what a sample part costs as you type; saved to the profiles quotes take
// them from, with the profiles API.
import { html } from 'lit';
import { pageHeader } from '../components/page-header.ts';
import { emptyView, renderLoad } from '../components/states.ts';
import { AppElement } from '../lib/element.ts';
import { Loader } from '../lib/loader.ts';
import { loadOffer, offeredMaterials } from '../lib/offer.ts';
import { type PriceData, shopCurrency } from '../lib/price-sheet.ts';
import { listProfiles } from '../lib/profiles.ts';
import '../components/price-sheet.ts';

async function loadPrices(): Promise<PriceData> {
  const [materials, printers, globals, offer, offered] = await Promise.all([
    listProfiles('material'),
    listProfiles('printer'),
    listProfiles('global'),
    loadOffer({ kind: 'account' }),
    offeredMaterials(),
  ]);
  // In the account offer's order (as the widget lists them), then what only widget keys' own offers add.
  const first = offer.materials.map((m) => m.material);
  const rest = offered.filter((m) => !first.some((f) => f.toLowerCase() === m.toLowerCase()));
  return {
    currency: shopCurrency(globals),
    materials,
    printers,
    globals,
    offered: [...first, ...rest],
    offerMinimum: offer.source === 'account' ? offer.minimum_price : null,
    derivedOffer: offer.source === 'default',
  };
}

export class PricesPage extends AppElement {
  static override properties = { notice: { state: true } };
  declare notice: string;
  private data = new Loader<PriceData>(this, loadPrices);

  constructor() {
    super();
    this.notice = '';
  }

  private saved = async (e: CustomEvent<string>) => {
    await this.data.reload();
    this.notice = e.detail;
  };

  protected override render() {
    const lead = (d: PriceData | undefined) =>
      html`What shoppers pay: your price per kilogram of each material, your machine time and fees, and the least a
        part sells for. Amounts are in ${d?.currency ?? 'your shop currency'}, your shop currency (set in your
        <a href="#/profiles/global">global settings profile</a>).`;
    return html`${pageHeader('Prices', lead(this.data.data))}
      <div role="status">${this.notice ? html`<p class="alert alert-info" data-testid="prices-notice">${this.notice}</p>` : ''}</div>
      ${renderLoad(
        this.data.state,
        'your prices',
        (d) => this.body(d),
        () => this.data.reload(),
      )}`;
  }

  private body(d: PriceData) {
    if (!d.offered.length)
      return emptyView(
        'No material to price yet',
        'Shoppers choose from the materials of your offer: add a material profile, then offer it.',
        html`<a class="btn" href="#/offer">Open the offer</a>`,
      );
    return html`<sq-price-sheet .data=${d} @sq-prices-saved=${this.saved}
      @input=${() => (this.notice = '')}></sq-price-sheet>`;
  }
}
customElements.define('sq-prices-page', PricesPage);

// The Prices page's shop-wide money: machine time, electricity, the handling fee, the minimum price per part and
// tax, each with what it means and where it is kept; the minimum says when the offer's own one is what shoppers pay.
import { html, nothing, type TemplateResult } from 'lit';
import { DEFAULT_MINIMUM_PRICE } from '../../../shared/offer.ts';
import { duration, money, num } from '../lib/format.ts';
import { type PriceData, SHOP_FIELDS, type ShopFieldName } from '../lib/price-sheet.ts';
import { printerBaseline } from '../lib/profiles.ts';
import { SAMPLE_PART } from '../lib/sample-part.ts';
import { examplePlaceholder, type PriceView } from './price-materials.ts';

export const shopInputId = (name: ShopFieldName) => `pr-${name.replaceAll('_', '-')}`;

function unit(name: ShopFieldName, cur: string): string {
  if (name === 'hourly_cost') return `${cur}/h`;
  if (name === 'energy_cost_per_kwh') return `${cur}/kWh`;
  return name === 'tax_rate' ? '%' : cur;
}

/** The hourly costs of the account's printer profiles, when they differ: saving sets the one typed on all. */
function printerRates(d: PriceData): TemplateResult | typeof nothing {
  const mine = d.printers.filter((p) => p.scope === 'account');
  if (!mine.length)
    return html` Kept in a new printer profile of yours, “My printer”, made your default; nothing else in it changes.`;
  const rates = mine.map((p) => {
    const others = d.printers.map((x) => (x.scope === 'account' ? { ...x, is_default: x === p } : x));
    return Number(printerBaseline(others, d.globals).hourly_cost);
  });
  const low = Math.min(...rates);
  const high = Math.max(...rates);
  const all = mine.length === 1 ? 'your printer profile' : `each of your ${mine.length} printer profiles`;
  if (low === high) return html` Kept in ${all}.`;
  return html` <strong>Your printer profiles differ: ${money(low, d.currency)} to ${money(high, d.currency)} an hour.</strong>
    Saving a change sets it on ${all}.`;
}

function hint(v: PriceView, name: ShopFieldName): TemplateResult {
  const d = v.data;
  const typed = Number(v.form.shop.minimum_price);
  switch (name) {
    case 'hourly_cost':
      return html`What an hour of printing costs you: the printer's wear and upkeep, your time. The sample prints
        in ${duration(SAMPLE_PART.printTimeS)} with the shipped settings.${printerRates(d)}`;
    case 'energy_cost_per_kwh':
      return html`Your printer draws ${num(Number(printerBaseline(d.printers, d.globals).power_watts), 0)} W while it
        prints (its printer profile says so).`;
    case 'fixed_fee':
      return html`Added to every part, however small: starting the job, taking it off the plate, packing.`;
    case 'minimum_price':
      if (d.offerMinimum !== null)
        return html`API quotes sell for at least this, before tax. <strong>Shoppers in your widget pay at least
          ${money(d.offerMinimum, d.currency)}</strong>: your offer's own minimum, changed on the
          <a href="#/offer">Offer</a> page.`;
      return html`No part sells for less, before tax; a cheaper one is raised to it.${
        d.derivedOffer && typed === 0
          ? html` With 0, your widget still asks at least ${money(DEFAULT_MINIMUM_PRICE, d.currency)} until you save an offer.`
          : nothing
      }`;
    default:
      return html`Added on top of every price; 0: none.`;
  }
}

export function shopFields(v: PriceView): TemplateResult {
  return html`<div class="field-grid price-shop">
    ${SHOP_FIELDS.map((f) => {
      const id = shopInputId(f.name);
      const error = v.problem(f.name);
      const describedBy = error ? `${id}-hint ${id}-error` : `${id}-hint`;
      return html`<div class="field ${error ? 'field-invalid' : ''}">
        <label for=${id}>${f.label} <span class="unit">(${unit(f.name, v.data.currency)})</span></label>
        <input id=${id} type="text" inputmode="decimal" autocomplete="off" .value=${v.form.shop[f.name]}
          placeholder=${examplePlaceholder(v, f.name)}
          aria-invalid=${error ? 'true' : 'false'} aria-describedby=${describedBy}
          @input=${(e: Event) => v.setShop(f.name, (e.target as HTMLInputElement).value)} />
        <p class="hint" id="${id}-hint">${hint(v, f.name)}</p>
        ${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : nothing}
      </div>`;
    })}
  </div>`;
}

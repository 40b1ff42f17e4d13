// The Prices page's materials: a row per material shoppers can choose, with its price per kg as typed and what
// one sample part in it costs a shopper, recomputed on every keystroke with the one price formula.
import { html, nothing, type TemplateResult } from 'lit';
import type { PriceBreakdown } from '../../../shared/pricing.ts';
import { money } from '../lib/format.ts';
import {
  formIssues,
  materialPrice,
  type PriceData,
  type PriceForm,
  priceKey,
  SHIPPED_CURRENCY,
} from '../lib/price-sheet.ts';
import { SAMPLE_PART } from '../lib/sample-part.ts';
import { badge } from './page-header.ts';

/** What the rows read and how they change the form. */
export interface PriceView {
  data: PriceData;
  form: PriceForm;
  /** The form as loaded: what "changed" is measured against. */
  initial: PriceForm;
  /** The shipped example amount a field must be typed anew instead of (a shop not pricing in USD). */
  example(key: string): number | undefined;
  /** The problem of a field, as a sentence naming it, if one is to be shown. */
  problem(key: string): string | undefined;
  setPrice(material: string, text: string): void;
  setShop(field: string, text: string): void;
  sample(material: string): PriceBreakdown | null;
}

/** The element id of a material's price field (names may hold any character). */
export const priceInputId = (d: PriceData, material: string) => `pr-price-${d.offered.indexOf(material)}`;

export function materialRows(v: PriceView): TemplateResult {
  return html`<ul class="price-rows" aria-describedby="pr-sample-hint">
    ${v.data.offered.map((m) => materialRow(v, m))}
  </ul>`;
}

function status(v: PriceView, m: string) {
  if ((v.form.prices[m] ?? '').trim() !== (v.initial.prices[m] ?? '').trim())
    return badge('Changed, not saved', 'warn');
  return materialPrice(v.data, m).ownPrice ? badge('Your price', 'ok') : badge('Shipped example price', 'neutral');
}

/** "Shipped example: 25 USD", where the field starts empty to be typed in the shop's own currency. */
export function examplePlaceholder(v: PriceView, key: string): string | typeof nothing {
  const amount = v.example(key);
  return amount === undefined ? nothing : `Shipped example: ${amount} ${SHIPPED_CURRENCY}`;
}

function materialRow(v: PriceView, m: string): TemplateResult {
  const id = priceInputId(v.data, m);
  const error = v.problem(priceKey(m));
  const unit = `(${v.data.currency})`;
  return html`<li class="price-row" data-material=${m}>
    <div class="price-name"><strong>${m}</strong> ${status(v, m)}</div>
    <div class="field ${error ? 'field-invalid' : ''}">
      <label for=${id}><span class="visually-hidden">${m}: </span>Price per kg <span class="unit">${unit}</span></label>
      <input id=${id} type="text" inputmode="decimal" autocomplete="off" .value=${v.form.prices[m] ?? ''}
        placeholder=${examplePlaceholder(v, priceKey(m))}
        aria-invalid=${error ? 'true' : 'false'} aria-describedby=${error ? `${id}-error` : nothing}
        @input=${(e: Event) => v.setPrice(m, (e.target as HTMLInputElement).value)} />
      ${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : nothing}
    </div>
    ${sampleCell(v, m)}
  </li>`;
}

function sampleCell(v: PriceView, m: string): TemplateResult {
  const price = v.sample(m);
  const cur = v.data.currency;
  const body = price
    ? html`<strong class="price-total">${money(price.total, cur)}</strong>
        <span class="small muted">${partsText(price, cur)}</span>`
    : html`<span class="muted">${samplePending(v, m)}</span>`;
  return html`<div class="price-sample" data-testid="sample-price">
    <span class="small muted">One ${SAMPLE_PART.name}<span class="visually-hidden"> in ${m}</span></span> ${body}
  </div>`;
}

/** Why there is no sample price yet: this row's price, or a field every part pays, is missing or wrong. */
function samplePending(v: PriceView, m: string): string {
  const price = (v.form.prices[m] ?? '').trim();
  const ok = price !== '' && !formIssues(v.data, v.form).has(priceKey(m));
  return ok ? 'Complete the fields under “Every part” to see it.' : 'Type a valid price to see it.';
}

/** "Material $0.10 · machine time $0.44 · electricity $0.01 · raised to your minimum (+$0.45)" */
function partsText(p: PriceBreakdown, cur: string): string {
  const parts = [`material ${money(p.material, cur)}`, `machine time ${money(p.machine, cur)}`];
  if (p.energy) parts.push(`electricity ${money(p.energy, cur)}`);
  if (p.fixed_fee) parts.push(`handling ${money(p.fixed_fee, cur)}`);
  if (p.minimum_price_adjustment)
    parts.push(`raised to your minimum price per part (+${money(p.minimum_price_adjustment, cur)})`);
  if (p.tax) parts.push(`tax ${money(p.tax, cur)}`);
  const text = parts.join(' · ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// What shoppers know from instant-quote sites, drawn from the offer: a material's description, a colour's swatch,
// the delivery options with the date the part ships, the quantity price breaks, and every material priced side by
// side (exact where a slice exists, "≈" otherwise; picking a row selects the material).
import { html, nothing, type TemplateResult } from 'lit';
import { ref } from 'lit/directives/ref.js';
import { breakPrices } from '../../shared/line-price.ts';
import { currencyDigits } from '../../shared/money.ts';
import { deliveryDate } from '../../shared/offer-terms.ts';
import { money, percent } from './format.ts';
import { minimumUnitPrice, type PricedQuote, swatchOf } from './selection.ts';
import type { WidgetState } from './state.ts';
import type { MaterialPrices, Selection, WidgetConfig } from './types.ts';

type Fmt = (v: number) => string;

/** Today in the shopper's own calendar: a delivery date is the day they will see on theirs. */
function today(now = new Date()) {
  return { year: now.getFullYear(), month: now.getMonth() + 1, day: now.getDate() };
}

/** "Tue 1 Dec": the date a lead time ships by, business days (Monday to Friday) from today. */
export function shipsBy(businessDays: number, locale?: string, now = new Date()): string {
  const date = new Date(`${deliveryDate(today(now), businessDays)}T12:00:00`);
  return date.toLocaleDateString(locale, { weekday: 'short', day: 'numeric', month: 'short' });
}

export function materialDescription(config: WidgetConfig, sel: Selection, id: string): TemplateResult | typeof nothing {
  const text = config.materials.find((m) => m.name === sel.material)?.description;
  return text ? html`<p class="hint material-description" id=${id} part="material-description">${text}</p>` : nothing;
}

/** The chosen colour as a dot beside its select: the merchant's swatch, else the colour's own name. */
export function swatch(config: WidgetConfig, sel: Selection): TemplateResult | typeof nothing {
  const color = swatchOf(config, sel);
  if (!color || !CSS.supports('color', color)) return nothing;
  // The colour is set through the CSSOM once the element exists: a shop's Content Security Policy may refuse style
  // attributes (style-src without 'unsafe-inline'), and styleMap writes one on its first render.
  const paint = (el: Element | undefined) => {
    if (el instanceof HTMLElement) el.style.background = color;
  };
  return html`<span class="swatch" part="swatch" aria-hidden="true" ${ref(paint)}></span>`;
}

/** The delivery choice with what each option costs and when it ships; nothing when the offer has none. */
export function renderLeadTimes(
  s: Pick<WidgetState, 'locale' | 'quote' | 'currencyDisplay'>,
  config: WidgetConfig,
  sel: Selection,
  onChange: (e: Event) => void,
  id: string,
): TemplateResult | typeof nothing {
  if (!config.lead_times.length) return nothing;
  const chosen = config.lead_times.find((o) => o.id === sel.lead_time) ?? config.lead_times[0]!;
  const fmt: Fmt = (v) => money(v, config.currency, s.locale, s.currencyDisplay);
  const extra = (o: (typeof config.lead_times)[number]) =>
    [
      o.surcharge_percent ? `+${percent(o.surcharge_percent, s.locale)}` : '',
      o.surcharge_amount ? `+${fmt(o.surcharge_amount)}` : '',
    ]
      .filter(Boolean)
      .join(' ');
  const label = (o: (typeof config.lead_times)[number]) =>
    `${o.label} · ${o.business_days} business ${o.business_days === 1 ? 'day' : 'days'}${extra(o) ? ` · ${extra(o)}` : ''}`;
  return html`
    <div class="field wide" part="field">
      <label for=${id} part="label">Delivery</label>
      <select id=${id} part="select lead-time-select" aria-describedby=${`${id}-date`} @change=${onChange}>
        ${config.lead_times.map((o) => html`<option value=${o.id} ?selected=${o.id === chosen.id}>${label(o)}</option>`)}
      </select>
      <p class="hint" id=${`${id}-date`} part="ships-by">Ships by ${shipsBy(chosen.business_days, s.locale)}</p>
    </div>
  `;
}

/**
 * "10+: $2.38 each · 50+: $2.19 each": what a piece costs at each break (shared/line-price.ts), never below the
 * minimum price per part: a break the minimum stops says so, one that cannot lower the price is not listed.
 */
export function renderBreaks(q: PricedQuote, config: WidgetConfig, fmt: Fmt) {
  const rows = breakPrices(q.total_price, config.quantity_breaks, minimumUnitPrice(q), currencyDigits(q.currency));
  if (!rows.length) return nothing;
  const words = rows.map(
    (b) => `${b.min_quantity}+: ${fmt(b.each)} each${b.at_minimum ? ' (minimum price per part)' : ''}`,
  );
  return html`<div class="hint breaks" part="quantity-breaks">${words.join(' · ')}</div>`;
}

export interface CompareHandlers {
  compare(): void;
  select(field: keyof Selection, value: string): void;
}

/**
 * The side-by-side list of every material, behind a disclosure button; each row picks its material. For a row of the
 * multi-part list, `row` makes its ids unique and its button name the part for screen readers.
 */
export function renderComparison(
  s: Pick<WidgetState, 'locale' | 'currencyDisplay' | 'selection' | 'file'> & {
    comparing: boolean;
    prices: MaterialPrices | null;
  },
  h: CompareHandlers,
  row?: { idPrefix: string; name: string },
): TemplateResult | typeof nothing {
  if (!s.file || !s.selection) return nothing;
  const list = s.comparing ? s.prices : null;
  const id = row ? `${row.idPrefix}-material-prices` : 'material-prices';
  return html`
    <div class="compare" part="compare">
      <button type="button" part="button compare-button" aria-expanded=${s.comparing ? 'true' : 'false'}
        aria-controls=${id} @click=${h.compare}>
        ${s.comparing ? 'Hide material prices' : 'Compare all materials'}${row ? html`<span class="visually-hidden"> for ${row.name}</span>` : nothing}
      </button>
      ${
        s.comparing
          ? html`<ul id=${id} class="material-prices" part="material-prices" aria-busy=${list ? 'false' : 'true'}>
              ${
                !list
                  ? html`<li class="hint">Pricing every material…</li>`
                  : list.prices.length
                    ? list.prices.map((row) => priceRow(row, list.currency, s, h))
                    : html`<li class="hint">The materials cannot be compared right now.</li>`
              }
            </ul>`
          : nothing
      }
    </div>
  `;
}

function priceRow(
  row: MaterialPrices['prices'][number],
  currency: string | null,
  s: Pick<WidgetState, 'locale' | 'currencyDisplay' | 'selection'>,
  h: CompareHandlers,
): TemplateResult {
  const chosen = s.selection?.material === row.material;
  const price =
    row.total_price === null || !currency
      ? 'price on request'
      : `${row.basis === 'estimate' ? '≈ ' : ''}${money(row.total_price, currency, s.locale, s.currencyDisplay)} each`;
  const estimate = row.basis === 'estimate' ? html`<span class="visually-hidden"> (estimate)</span>` : nothing;
  return html`<li>
    <button type="button" part="material-price" aria-pressed=${chosen ? 'true' : 'false'}
      data-basis=${row.basis ?? 'none'} @click=${() => h.select('material', row.material)}>
      <span class="material-name">${row.material}</span>
      <span class="material-amount">${price}${estimate}</span>
      ${row.description ? html`<span class="hint">${row.description}</span>` : nothing}
    </button>
  </li>`;
}

// Templates of the element, as pure functions of its state. Every control has a visible label,
// the price sits in a polite live region, errors in an alert with a retry when one can help.

import { html, nothing, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import type { SlicerLimit } from './errors.ts';
import { renderPlacementNote, renderScaleControl } from './fit-scale.ts';
import { dimensions, duration, grams, money, percent } from './format.ts';
import { renderKeep } from './kept-link.ts';
import type { KeptHandlers } from './kept-types.ts';
import { materialDescription, renderBreaks, renderComparison, renderLeadTimes, swatch } from './offer-view.ts';
import { OVER_LIMIT_MARK, overLimitNow } from './over-limit.ts';
import { type RequestHandlers, type RequestReason, type RequestState, renderRequest } from './quote-request.ts';
import { lineTotal, minimumUnitPrice, type PricedQuote, quoteLine } from './selection.ts';
import { shopperMessage } from './shopper-messages.ts';
import type { WidgetState } from './state.ts';
import { timeLeftParts } from './time-left.ts';
import type { JobStep, MaterialPrices, Pricing, Selection, WidgetConfig } from './types.ts';
import { renderUnitOffer, renderUnitPending, unitQuestion } from './unit-offer.ts';

export interface Handlers {
  choose(): void;
  fileChosen(e: Event): void;
  select(field: keyof Selection, value: string): void;
  addToCart(): void;
  rescale(): void;
  keepUnit(): void;
  retry(): void;
  viewKey(e: KeyboardEvent): void;
  zoom(factor: number): void;
  resetView(): void;
  /** Scale a part too big for the printer (fit-scale.ts); absent: no scale control. */
  scaleTo?(percent: number): void;
  /** Save, share and download the quote (kept-quote.ts); absent: quotes cannot be kept here. */
  kept?: KeptHandlers;
  /** Opens or closes the side-by-side list of every material's price. */
  compare?(): void;
  /** "Request a quote" (quote-request.ts); absent: not offered (a preview). */
  request?: RequestHandlers;
}

/** Why the part needs a request, and how far its form got. */
export interface RequestView {
  reason: RequestReason;
  state: RequestState;
}

/** The single part's view also shows the side-by-side material prices (offer-view.ts). */
export type SingleState = WidgetState & {
  comparing: boolean;
  prices: MaterialPrices | null;
  request?: RequestView | null;
};

const ACCEPT = '.stl,.3mf,.obj,model/stl,model/3mf,model/obj';

export function renderWidget(s: SingleState, canvas: HTMLCanvasElement | null, h: Handlers): TemplateResult {
  return html`
    <div class="root ${s.dragging ? 'dragging' : ''}" part="container">
      <div class="stage">
        ${s.model ? renderPreview(s, canvas, h) : renderDropzone(s, h)}
        <input id="file" type="file" accept=${ACCEPT} hidden @change=${h.fileChosen} />
        <!-- Save or share sits under the part, not between the quantity and Add to cart (one Tab apart). -->
        ${h.kept && keepable(s) ? renderKeep(s.keep ?? null, s.quote!.quote_id, s.selection!.quantity, h.kept) : nothing}
      </div>
      <div class="panel">
        ${renderFileStatus(s)}
        ${renderOffer(s, h)}
        ${s.config && s.selection ? renderOptions(s.config, s.selection, s.quantityError, h.select, undefined, s) : renderConfigStatus(s)}
        ${s.config?.lead_time && s.selection ? renderLeadTime(s.config.lead_time) : nothing}
        ${s.config && s.quote && priceShown(s) ? renderBreaks(s.quote, s.config, (v) => money(v, s.quote!.currency, s.locale, s.currencyDisplay)) : nothing}
        ${s.config && s.quote && h.compare ? renderComparison(s, { compare: h.compare, select: h.select }) : nothing}
        ${renderFacts(s)}
        ${s.quote && s.quoting === null ? renderPlacementNote(s.quote.placement, s.quote.warnings) : nothing}
        ${renderError(s, h)}
        ${renderRequestBlock(s, h)}
        ${h.scaleTo ? renderScaleControl(s.error, s.model, s.config?.build_volume, s.rescaling, h.scaleTo) : nothing}
      </div>
      <div class="buy-bar" part="buy-bar">
        ${renderPrice(s)}
        ${renderCart(s, h)}
      </div>
    </div>
  `;
}

/**
 * Whether a part's quote may be saved or shared: priced, nothing re-pricing it, and its size settled (a link orders
 * the part, so a size in doubt would sell at the wrong price through it).
 */
export function keepable(s: Pick<WidgetState, 'quote' | 'quoting' | 'selection' | 'file' | 'unitKept'>): boolean {
  return !!s.quote && s.quoting === null && !!s.selection && !unitQuestion(s.file, s.unitKept);
}

function renderDropzone(s: WidgetState, h: Handlers): TemplateResult {
  const limit = s.config ? `, up to ${Math.floor(s.config.max_upload_bytes / 1048576)} MB` : '';
  return html`
    <div class="dropzone" part="dropzone">
      <p>Drop your 3D model here</p>
      <button type="button" class="primary" part="button choose-button" @click=${h.choose} aria-disabled=${s.parsing ? 'true' : 'false'}>
        ${s.parsing ? 'Reading the model…' : 'Choose a file'}
      </button>
      <p class="hint">STL, 3MF or OBJ${limit}</p>
    </div>
  `;
}

function renderPreview(s: WidgetState, canvas: HTMLCanvasElement | null, h: Handlers): TemplateResult {
  const m = s.model!;
  const volume = s.config?.build_volume;
  return html`
    <div class="viewport" part="preview" @keydown=${h.viewKey}>
      ${s.previewUnavailable ? html`<p class="hint no-preview">3D preview is not available in this browser.</p>` : canvas}
      ${
        canvas && !s.previewUnavailable
          ? html`<div class="view-tools" part="view-tools">
            <button type="button" part="button view-button" aria-label="Zoom in" @click=${() => h.zoom(1.25)}>+</button>
            <button type="button" part="button view-button" aria-label="Zoom out" @click=${() => h.zoom(0.8)}>−</button>
            <button type="button" part="button view-button" aria-label="Reset view" @click=${h.resetView}>⟲</button>
          </div>`
          : nothing
      }
      <span class="badge ${m.fits ? '' : 'misfit'}" part="dimensions">
        ${m.fits ? dimensions(m.size, s.locale) : `Does not fit: ${dimensions(m.size, s.locale)}`}
      </span>
    </div>
    <div class="file-line">
      <span class="file-name" part="file-name">${m.name}</span>
      <button type="button" part="button choose-button" @click=${h.choose}>Choose another file</button>
    </div>
    ${!m.fits && volume ? html`<p class="hint">The printer's build volume is ${dimensions([volume.x, volume.y, volume.z], s.locale)}.</p>` : nothing}
  `;
}

export function renderFileStatus(s: Pick<WidgetState, 'parsing' | 'uploadProgress'>): TemplateResult | typeof nothing {
  if (s.parsing) return progressBar('Reading the model…', undefined);
  // Once the bytes are sent the server still parses and measures the file: no percentage to show then.
  if (s.uploadProgress !== null && s.uploadProgress >= 1) return progressBar('Checking the model…', undefined);
  if (s.uploadProgress !== null)
    return progressBar(`Uploading… ${Math.round(s.uploadProgress * 100)} %`, s.uploadProgress);
  return nothing;
}

function renderOffer(s: WidgetState, h: Handlers): TemplateResult | typeof nothing {
  const offer = unitQuestion(s.file, s.unitKept);
  return offer ? renderUnitOffer(offer, s.rescaling, h.rescale, h.keepUnit) : nothing;
}

export function renderConfigStatus(s: Pick<WidgetState, 'error'>): TemplateResult | typeof nothing {
  return s.error?.stage === 'config' ? nothing : html`<p class="hint">Loading the shop's options…</p>`;
}

/**
 * The options form. For a row of the multi-part list, `row` makes its ids unique (`p7-material`) and
 * its labels name the part ("Material for part 2: bracket.stl"); visibly they still read "Material".
 */
export function renderOptions(
  config: WidgetConfig,
  sel: Selection,
  quantityError: string | null,
  select: Handlers['select'],
  row?: { idPrefix: string; name: string },
  shown: Pick<WidgetState, 'locale' | 'quote' | 'currencyDisplay' | 'overLimit' | 'file'> = {
    locale: undefined,
    quote: null,
    currencyDisplay: 'symbol',
    overLimit: null,
    file: null,
  },
): TemplateResult {
  const over = overLimitNow({ ...shown, selection: sel });
  const colors = config.materials.find((m) => m.name === sel.material)?.colors ?? [];
  const onChange = (field: keyof Selection) => (e: Event) => select(field, (e.target as HTMLInputElement).value);
  const { min, max } = config.quantity;
  const id = (name: string) => (row ? `${row.idPrefix}-${name}` : name);
  const label = (text: string) => (row ? html`${text}<span class="visually-hidden"> for ${row.name}</span>` : text);
  return html`
    <fieldset class="options" part="options">
      <legend class="visually-hidden">Print options${row ? ` for ${row.name}` : ''}</legend>
      ${selectField(
        id('material'),
        label('Material'),
        sel.material,
        config.materials.map((m) => [m.name, m.name]),
        onChange('material'),
      )}
      ${materialDescription(config, sel, id('material-description'))}
      ${
        colors.length
          ? selectField(
              id('color'),
              html`${swatch(config, sel)}${label('Colour')}`,
              sel.color,
              colors.map((c) => [c, c]),
              onChange('color'),
            )
          : nothing
      }
      ${selectField(
        id('quality'),
        label('Quality'),
        sel.quality,
        config.qualities.map((q) => [q.id, over.includes(q.id) ? `${q.label}${OVER_LIMIT_MARK}` : q.label]),
        onChange('quality'),
        'wide',
      )}
      ${selectField(
        id('infill'),
        label('Infill'),
        String(sel.infill),
        config.infill_options.map((v) => [String(v), percent(v)]),
        onChange('infill'),
      )}
      <div class="field" part="field">
        <label for=${id('quantity')} part="label">${label('Quantity')}</label>
        <input id=${id('quantity')} type="number" min=${min} max=${max} step="1" inputmode="numeric"
          aria-invalid=${quantityError ? 'true' : 'false'} aria-describedby=${id('quantity-help')}
          .value=${String(sel.quantity)} @input=${onChange('quantity')} @change=${onChange('quantity')} part="input" />
        <div id=${id('quantity-help')} aria-live="polite">
          ${
            quantityError
              ? html`<p class="field-error" part="field-error">${quantityError}</p>`
              : html`<p class="hint">${min === max ? `${min} per order` : `${min} to ${max}`}</p>`
          }
        </div>
      </div>
      ${renderLeadTimes(shown, config, sel, onChange('lead_time'), id('lead-time'))}
    </fieldset>
  `;
}

export function renderLeadTime(leadTime: string): TemplateResult {
  return html`<p class="hint lead-time" part="lead-time">${leadTime}</p>`;
}

function selectField(
  id: string,
  label: string | TemplateResult,
  value: string,
  options: [string, string][],
  onChange: (e: Event) => void,
  width = '',
): TemplateResult {
  return html`
    <div class="field ${width}" part="field">
      <label for=${id} part="label">${label}</label>
      <select id=${id} part="select" @change=${onChange}>
        ${options.map(([v, text]) => html`<option value=${v} ?selected=${v === value}>${text}</option>`)}
      </select>
    </div>
  `;
}

/** An estimate's range is shown only while it helps a shopper choose: at most ±15 % around the estimate. */
export const MAX_SHOWN_RANGE = 0.15;

/** The range's half-width over the estimate (0.2: ±20 %); Infinity when there is nothing to compare with. */
export const rangeHalfWidth = (total: number, [lo, hi]: readonly number[]) =>
  total > 0 && lo !== undefined && hi !== undefined ? (hi - lo) / 2 / total : Number.POSITIVE_INFINITY;

/**
 * Whether the exact price is shown as the price of the choices now selected: nothing re-prices the part, or what
 * does leaves that price as it is (`holding`: only the colour changed). While another choice is priced, the last
 * price is not shown, dimmed, as if it were still current: the choice's estimate takes its place.
 */
export const priceShown = (s: Pick<WidgetState, 'quote' | 'quoting' | 'holding'>) =>
  !!s.quote && (s.quoting === null || s.holding);

/**
 * While the slice runs, its instant estimate: "≈ $2.10 each, estimate $1.95–$2.25 · exact price in ~4 s", the range
 * left out when it is wider than ±15 % (it would tell the shopper nothing). Marked as an estimate in words and in
 * the markup (data-estimate); Add to cart waits for the exact price. The time left only counts down, and says why
 * when it went up (time-left.ts).
 */
export function renderEstimate(p: Pricing, s: Pick<WidgetState, 'locale' | 'currencyDisplay'>): TemplateResult {
  const e = p.estimate!;
  const fmt = (v: number) => money(v, e.currency, s.locale, s.currencyDisplay);
  const when = timeLeftParts(p.timeLeft ?? null, p.now ?? Date.now());
  const [lo = e.total_price, hi = e.total_price] = e.price_range;
  return html`<div class="estimate" part="estimate" data-estimate>
    <div class="amount approx" part="estimate-amount"><span aria-hidden="true">≈ </span><span class="visually-hidden">About </span>${fmt(e.total_price)} each</div>
    <div class="each" part="estimate-range">
      ${rangeHalfWidth(e.total_price, [lo, hi]) <= MAX_SHOWN_RANGE ? `Estimate ${fmt(lo)}–${fmt(hi)}` : 'Estimate'} · <span class="when-lead">${when.lead}</span>${when.figure}${when.why ? ` — ${when.why}` : ''}
    </div>
  </div>`;
}

/** What a shopper reads of each step of a price: plain words, never the slicer's own stages. */
const STEP_WORDS: Record<JobStep, string> = {
  queued: 'Waiting for the slicer…',
  preparing: 'Preparing your part…',
  slicing: 'Slicing your part…',
  pricing: 'Pricing…',
};

/** The progress bar's words while a price is being calculated: the step it is at, once the server has said. */
export const pricingLabel = (p: Pricing | null, base: string) => (p?.step ? STEP_WORDS[p.step] : base);

function renderPrice(s: WidgetState): TemplateResult {
  const q = s.quote;
  const qty = s.selection?.quantity ?? 1;
  const busy = s.quoting !== null;
  const invalid = s.quantityError !== null;
  const fmt = (v: number) => money(v, q!.currency, s.locale, s.currencyDisplay);
  // tabindex -1: focus lands here when the control that had it goes away (see SliceQuote.update).
  return html`
    <div class="price" part="price" role="status" aria-live="polite" aria-busy=${busy ? 'true' : 'false'} tabindex="-1">
      ${
        busy && s.pricing?.estimate
          ? renderEstimate(s.pricing, s)
          : q && priceShown(s)
            ? html`
            ${invalid ? nothing : html`<div class="amount" part="amount">${fmt(lineTotal(q, qty, s.config))}</div>`}
            <div class="each" part="unit-price">${invalid ? `${fmt(q.total_price)} each` : unitWords(q, qty, s.config, fmt)}</div>`
            : busy
              ? nothing
              : html`<span class="hint">${s.model ? '' : 'Your price appears here.'}</span>`
      }
      ${busy ? progressBar(pricingLabel(s.pricing, 'Calculating your price…'), s.quoting! > 0 ? s.quoting! / 100 : undefined) : nothing}
    </div>
  `;
}

/**
 * What the amount is made of: "$2.50 each · 2 pieces", or, where a minimum raised it, the minimum by name:
 * "minimum order $5.00 · $2.50 each × 1", "$1.00 each (minimum price per part) · 1 piece"; a quantity break and a
 * lead-time surcharge by name: "$2.50 each · 12 pieces · 5 % off for 10+ · Express +$8.20", a break the minimum
 * price per part stopped as such: "… · 5 % off for 10+, down to the minimum price per part".
 */
export function unitWords(
  q: PricedQuote,
  quantity: number,
  config: Pick<WidgetConfig, 'minimum_line_price' | 'quantity_breaks'> | null,
  fmt: (v: number) => string,
): string {
  const minimum = minimumUnitPrice(q);
  const partMinimum = minimum !== null && q.total_price <= minimum ? ' (minimum price per part)' : '';
  const each = `${fmt(q.total_price)} each${partMinimum}`;
  const line = quoteLine(q, quantity, config);
  if (line.minimum_line_adjustment > 0)
    return `minimum order ${fmt(config!.minimum_line_price!)} · ${each} × ${quantity}`;
  const words = [`${each} · ${quantity} ${quantity === 1 ? 'piece' : 'pieces'}`];
  if (line.quantity_discount > 0) {
    const stopped = line.discount_at_minimum ? ', down to the minimum price per part' : '';
    words.push(`${line.discount_percent} % off for ${line.break_from}+${stopped}`);
  }
  if (line.lead_time_surcharge > 0) words.push(`${q.choices?.lead_time?.label} +${fmt(line.lead_time_surcharge)}`);
  return words.join(' · ');
}

function renderFacts(s: WidgetState): TemplateResult | typeof nothing {
  // While an estimate shows, its figures hold the place the exact ones take: the price below does not move.
  const estimate = s.quoting !== null ? s.pricing?.estimate : null;
  const q = estimate ?? (priceShown(s) ? s.quote : null);
  if (!q) return nothing;
  const about = estimate ? '≈ ' : '';
  return html`
    <dl class="facts" part="facts">
      <div><dt>Print time</dt><dd>${about}${duration(q.estimated_time_seconds)}</dd></div>
      <div><dt>Weight</dt><dd>${about}${grams(q.filament_weight, s.locale)}</dd></div>
    </dl>
  `;
}

export function progressBar(label: string, value: number | undefined): TemplateResult {
  return html`
    <div class="progress" part="progress">
      <span>${label}</span>
      <progress max="1" value=${ifDefined(value)} aria-label=${label}></progress>
    </div>
  `;
}

export function renderError(
  s: Pick<WidgetState, 'error'>,
  h: Pick<Handlers, 'retry'> & Partial<Pick<Handlers, 'select'>>,
  /** Which part the error is about, for screen readers ("Try again for part 2: bracket.stl"). */
  about?: string,
): TemplateResult | typeof nothing {
  const e = s.error;
  if (!e) return nothing;
  if (e.slicerLimit) return renderSlicerLimit(e.code, e.slicerLimit, h.select, about);
  return html`
    <div class="error" part="error" role="alert" data-code=${e.code}>
      <p>${e.shopper ?? shopperMessage(e.code, e.retryable)}</p>
      ${e.retryable ? html`<button type="button" part="button retry-button" @click=${h.retry}>Try again${about ? html`<span class="visually-hidden"> for ${about}</span>` : nothing}</button>` : nothing}
    </div>
  `;
}

/**
 * A choice over the shop's slicer limit, in words that do not blame the model: the quality chosen is named, and
 * the finest quality within the limit is one click away (when the view can change the choice).
 */
function renderSlicerLimit(
  code: string,
  limit: SlicerLimit,
  select?: Handlers['select'],
  about?: string,
): TemplateResult {
  const instead = select ? limit.instead : null;
  const over = limit.over?.label;
  return html`
    <div class="error" part="error" role="alert" data-code=${code}>
      <p>
        ${over ?? 'These choices'} ${over ? 'needs' : 'need'} more slicing time than this shop prices online.
        ${instead ? `${instead.label} is within it.` : 'Choose a coarser quality, or ask the shop for a quote.'}
      </p>
      ${instead ? html`<button type="button" part="button instead-button" @click=${() => select!('quality', instead.quality)}>Price it with ${instead.label}${about ? html`<span class="visually-hidden"> for ${about}</span>` : nothing}</button>` : nothing}
    </div>
  `;
}

/** The request's form in the panel (never in the phone's sticky bar): open, sent, or its button under an error. */
function renderRequestBlock(s: SingleState, h: Handlers): TemplateResult | typeof nothing {
  const r = s.request;
  if (!r || !h.request) return nothing;
  const shown = r.state.open || r.state.sent !== null || r.reason === 'not_priceable';
  return shown
    ? html`<div class="rfq-block" part="request">${renderRequest(r.reason, r.state, h.request)}</div>`
    : nothing;
}

function renderCart(s: SingleState, h: Handlers): TemplateResult {
  const r = h.request ? s.request : null;
  // Above the shop's rule the part is not sold at once: Request a quote takes Add to cart's place.
  if (r?.reason === 'merchant_rule') {
    return r.state.open || r.state.sent !== null
      ? html`<p class="hint add-note" part="request-note">The shop prices this part itself: your request is above.</p>`
      : renderRequest(r.reason, r.state, h.request!);
  }
  if (r?.reason === 'no_cart' && r.state.sent === null)
    return html`<p class="added reserved" part="added reserved" role="status">No cart took your part yet: request a quote above, and the shop will send you a link to order it.</p>`;
  const sizeInDoubt = unitQuestion(s.file, s.unitKept) !== null;
  const blocked = s.quote === null || s.file === null || s.quantityError !== null || sizeInDoubt;
  // Busy for a moment (adding, re-pricing): aria-disabled, not disabled, so a keyboard user's focus stays on the button.
  const busy = s.adding || s.quoting !== null;
  return html`
    <button type="button" class="primary add" part="button add-button" ?disabled=${blocked}
      aria-disabled=${busy && !blocked ? 'true' : 'false'} @click=${h.addToCart}>
      ${s.adding ? 'Adding…' : 'Add to cart'}
    </button>
    ${sizeInDoubt ? renderUnitPending() : nothing}
    ${
      s.added && s.reserved
        ? html`<p class="added reserved" part="added reserved" role="status">Your part is reserved — the shop will contact you.</p>`
        : s.added
          ? html`<p class="added" part="added" role="status">Added ${s.added.quantity} × ${s.model?.name ?? 'model'} to your cart.</p>`
          : nothing
    }
  `;
}

// Templates of <slice-quote multiple>: a drop zone for many files, one row per part (thumbnail, size,
// unit offer, options, status, price, the scale control of a part too big, Compare all materials, Save or share,
// Request a quote where it cannot be priced automatically, Try again and Remove) and one "Add all to cart". A row
// is made of the single-part templates (view.ts, fit-scale.ts, offer-view.ts, kept-link.ts, quote-request.ts);
// only the list around them is new.
import { html, nothing, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { sumAmounts } from '../../shared/line-price.ts';
import { currencyDigits } from '../../shared/pricing.ts';
import { type NamedRow, renderAddAllBlockers, renderRefusal } from './add-all-note.ts';
import { renderScaleControl } from './fit-scale.ts';
import { dimensions, duration, grams, money } from './format.ts';
import { renderKeep } from './kept-link.ts';
import { renderComparison } from './offer-view.ts';
import type { PartFlow } from './part-flow.ts';
import { type PartStatus, partStatus } from './part-status.ts';
import {
  aboveRule,
  type RequestHandlers,
  type RequestReason,
  type RequestState,
  renderRequest,
} from './quote-request.ts';
import type { ShopState, StageError } from './state.ts';
import type { Quote, Selection } from './types.ts';
import { renderUnitOffer, renderUnitPending, unitQuestion } from './unit-offer.ts';
import {
  keepable,
  priceShown,
  pricingLabel,
  progressBar,
  renderConfigStatus,
  renderError,
  renderEstimate,
  renderFileStatus,
  renderLeadTime,
  renderOptions,
  unitWords,
} from './view.ts';

export interface PartsHandlers {
  choose(): void;
  filesChosen(e: Event): void;
  select(part: PartFlow, field: keyof Selection, value: string): void;
  rescale(part: PartFlow): void;
  keepUnit(part: PartFlow): void;
  /** Scale a part too big for the printer to `percent` of its size (fit-scale.ts). */
  scaleTo(part: PartFlow, percent: number): void;
  /** Opens or closes the part's side-by-side material prices. */
  compare(part: PartFlow): void;
  /** Save or share the part's quote (kept-link.ts). */
  keep(part: PartFlow): void;
  copyLink(part: PartFlow): void;
  downloadPdf(part: PartFlow, token: string): void;
  retry(part: PartFlow): void;
  remove(part: PartFlow): void;
  addAll(): void;
  /** Try again after the cart call failed as a whole. */
  retryCart(): void;
  retryConfig(): void;
  /** Request a quote of a row that cannot be priced automatically (quote-request.ts); null: none to offer. */
  request(part: PartFlow): { reason: RequestReason; state: RequestState; handlers: RequestHandlers } | null;
  /** Request a quote of the lines "Add all to cart" recorded when no cart took them (no-cart-request.ts). */
  linesRequest(): { state: RequestState; handlers: RequestHandlers; count: number } | null;
}

/** What the list knows besides its rows. */
export interface PartsState {
  /** "Add all to cart" is running. */
  adding: boolean;
  /** How many lines the last "Add all to cart" added; null once anything changed. */
  added: number | null;
  /** The server recorded them but no cart on the page took them: the shop will contact the shopper. */
  reserved: boolean;
  /** Names of the files refused by the last drop: over the limit of parts. */
  refused: string[];
  /** Why the last "Add all to cart" failed when no single line was refused (network, busy server). */
  cartError: StageError | null;
  /** The last "Add all to cart" added nothing: the cart refused the line of this row (which shows why). */
  lineRefused: number | null;
}

const ACCEPT = '.stl,.3mf,.obj,model/stl,model/3mf,model/obj';

const STATUS_TEXT: Record<PartStatus, string> = {
  queued: 'Waiting',
  reading: 'Reading',
  uploading: 'Uploading',
  checking: 'Checking',
  pricing: 'Pricing',
  'confirm-size': 'Size to confirm',
  priced: 'Priced',
  failed: 'Failed',
};

type Shop = ShopState & { configError: StageError | null };

export function renderParts(
  s: Shop,
  parts: PartFlow[],
  m: PartsState,
  maxParts: number,
  thumbnails: ReadonlyMap<number, string>,
  h: PartsHandlers,
): TemplateResult {
  return html`
    <div class="root multi" part="container">
      ${renderDrop(s, parts.length, maxParts, h)}
      ${
        m.refused.length
          ? html`<p class="error" part="limit" role="alert">
            You can quote up to ${maxParts} parts at once, so ${m.refused.length === 1 ? 'this file was' : 'these files were'}
            not added: ${m.refused.join(', ')}. Remove a part to make room.
          </p>`
          : nothing
      }
      ${s.config ? nothing : renderConfigStatus({ error: s.configError })}
      ${renderError({ error: s.configError }, { retry: h.retryConfig })}
      ${
        parts.length
          ? html`<ol class="parts" part="parts" aria-label="Your parts">
            ${repeat(
              parts,
              (p) => p.id,
              (p, i) => renderRow(s, p, i, thumbnails.get(p.id), h),
            )}
          </ol>`
          : nothing
      }
      ${s.config?.lead_time && parts.length ? renderLeadTime(s.config.lead_time) : nothing}
      ${renderAddAllBlockers(named(s, parts), m.lineRefused, m.adding)}
      ${renderLinesRequest(h)}
      <div class="buy-bar" part="buy-bar">
        ${renderSummary(s, parts)}
        ${renderAddAll(s, parts, m, h)}
      </div>
    </div>
  `;
}

function renderDrop(s: Shop, count: number, maxParts: number, h: PartsHandlers): TemplateResult {
  const limit = s.config ? `, up to ${Math.floor(s.config.max_upload_bytes / 1048576)} MB each` : '';
  return html`
    <div class="dropzone compact" part="dropzone">
      <p>${count ? 'Drop more models here' : 'Drop your 3D models here'}</p>
      <button type="button" class="primary" part="button choose-button" @click=${h.choose}>
        ${count ? 'Add more files' : 'Choose files'}
      </button>
      <p class="hint">STL, 3MF or OBJ${limit}; up to ${maxParts} parts (${count} added)</p>
      <input id="file" type="file" accept=${ACCEPT} multiple hidden @change=${h.filesChosen} />
    </div>
  `;
}

const fileNameOf = (part: PartFlow) => part.state.model?.name ?? part.sourceFile?.name ?? 'model';

/** The names the notes about "Add all to cart" give the rows ("part 2 (lid.stl)"), and which the shop prices itself. */
const named = (s: Shop, parts: PartFlow[]): NamedRow[] =>
  parts.map((part, i) => ({ part, name: `part ${i + 1} (${fileNameOf(part)})`, byShop: byShop(s, part) }));

/** A priced row above the merchant's `request_quote_above`: Request a quote in its row, never added with the others. */
const byShop = (s: Shop, part: PartFlow) => aboveRule({ ...part.state, config: s.config });

function renderRow(
  s: Shop,
  part: PartFlow,
  index: number,
  thumbnail: string | undefined,
  h: PartsHandlers,
): TemplateResult {
  const p = part.state;
  const status = partStatus(p);
  const fileName = fileNameOf(part);
  const name = `part ${index + 1}: ${fileName}`;
  const row = { idPrefix: `p${part.id}`, name };
  const offer = unitQuestion(p.file, p.unitKept);
  const select = (f: keyof Selection, v: string) => h.select(part, f, v);
  return html`
    <li class="part" id="part-${part.id}" part="row" data-status=${status} aria-label=${`Part ${index + 1}: ${fileName}`}>
      <div class="thumb" part="thumbnail">
        ${thumbnail ? html`<img src=${thumbnail} alt="" width="64" height="64" />` : html`<span aria-hidden="true">3D</span>`}
      </div>
      <div class="part-head">
        <span class="file-name" part="file-name">${index + 1}. ${fileName}</span>
        <span class="part-facts">
          ${p.model ? html`<span part="dimensions" class=${p.model.fits ? '' : 'misfit-text'}>${dimensions(p.model.size, s.locale)}</span>` : nothing}
          <span class="status status-${status}" part="row-status">${STATUS_TEXT[status]}</span>
        </span>
      </div>
      <button type="button" class="remove" part="button remove-button" @click=${() => h.remove(part)}>
        Remove<span class="visually-hidden"> ${name}</span>
      </button>
      <div class="part-body">
        ${renderFileStatus(p)}
        ${
          offer
            ? renderUnitOffer(
                offer,
                p.rescaling,
                () => h.rescale(part),
                () => h.keepUnit(part),
                name,
              )
            : nothing
        }
        ${
          s.config && p.selection && p.model?.fits
            ? renderOptions(s.config, p.selection, p.quantityError, select, row, { ...s, ...p })
            : nothing
        }
        ${renderError(p, { retry: () => h.retry(part), select }, name)}
        ${renderScaleControl(p.error, p.model, s.config?.build_volume, p.rescaling, (pc) => h.scaleTo(part, pc), row)}
        ${renderRowPrice(s, part)}
        ${p.quoting !== null ? progressBar(pricingLabel(p.pricing, 'Calculating the price…'), p.quoting > 0 ? p.quoting / 100 : undefined) : nothing}
        ${renderRowRequest(part, row, h)}
        ${renderRowMore(s, part, row, h)}
      </div>
    </li>
  `;
}

/**
 * While a new price is calculated its estimate shows, marked; the last price only while it holds for the new choice
 * (only the colour changed), never dimmed as if it were still current.
 */
function renderRowPrice(s: Shop, part: PartFlow): TemplateResult | typeof nothing {
  const p = part.state;
  if (p.error) return nothing;
  if (p.quoting !== null && p.pricing?.estimate)
    return html`<div class="part-price" part="row-price">${renderEstimate(p.pricing, s)}</div>`;
  if (!p.quote || !priceShown(p)) return nothing;
  const total = part.lineTotal();
  const fmt = (v: number) => money(v, p.quote!.currency, s.locale, s.currencyDisplay);
  return html`<div class="part-price" part="row-price">
      ${total !== null ? html`<strong>${fmt(total)}</strong>` : nothing}
      <span class="each">${total !== null ? unitWords(p.quote, p.selection!.quantity, s.config, fmt) : `${fmt(p.quote.total_price)} each`}</span>
      ${renderRowFacts(p.quote, s)}
      ${
        // Recorded, but no cart on the page took it: never "In your cart" (the note under the list says what next).
        p.added && !p.reserved ? html`<span class="added" part="row-added">In your cart</span>` : nothing
      }
    </div>
    ${part.unitPending && p.quoting === null ? renderUnitPending('this part') : nothing}`;
}

/** A row that cannot be priced automatically: Request a quote, as a single part has it, under its error. */
function renderRowRequest(
  part: PartFlow,
  row: { idPrefix: string; name: string },
  h: PartsHandlers,
): TemplateResult | typeof nothing {
  const r = h.request(part);
  return r
    ? html`<div class="rfq-block" part="request">${renderRequest(r.reason, r.state, r.handlers, row)}</div>`
    : nothing;
}

/**
 * The parts "Add all to cart" recorded when no cart on the page took them: one form for them all, above the bar
 * (in the phone's sticky bar it would take the screen), a request for each part once sent.
 */
function renderLinesRequest(h: PartsHandlers): TemplateResult | typeof nothing {
  const r = h.linesRequest();
  if (!r) return nothing;
  const name = r.count === 1 ? 'your part' : `your ${r.count} parts`;
  return html`<div class="rfq-block" part="request lines-request">${renderRequest('no_cart', r.state, r.handlers, {
    idPrefix: 'all',
    name,
    parts: r.count,
  })}</div>`;
}

/** A priced row's "Compare all materials" and "Save or share this quote", as a single part has them. */
function renderRowMore(
  s: Shop,
  part: PartFlow,
  row: { idPrefix: string; name: string },
  h: PartsHandlers,
): TemplateResult | typeof nothing {
  const p = part.state;
  if (!s.config || !p.quote || p.error) return nothing;
  const { comparison, keeper } = part;
  const compare = { compare: () => h.compare(part), select: (f: keyof Selection, v: string) => h.select(part, f, v) };
  const keep = {
    keep: () => h.keep(part),
    copyLink: () => h.copyLink(part),
    downloadPdf: (token: string) => h.downloadPdf(part, token),
  };
  return html`<div class="part-more">
    ${renderComparison({ ...s, ...p, comparing: comparison.open, prices: comparison.prices }, compare, row)}
    ${keepable(p) ? renderKeep(keeper.state, p.quote.quote_id, p.selection!.quantity, keep, row) : nothing}
  </div>`;
}

/** A priced row's print time, weight and lead time, as the single part shows them. */
function renderRowFacts(q: Quote, s: Shop): TemplateResult {
  return html`<span class="part-facts" part="row-facts">
    <span>Print time ${duration(q.estimated_time_seconds)}</span>
    <span>Weight ${grams(q.filament_weight, s.locale)}</span>
    ${s.config?.lead_time ? html`<span part="row-lead-time">${s.config.lead_time}</span>` : nothing}
  </span>`;
}

/** The total and the count by status, in one polite live region: what changed is announced once. */
function renderSummary(s: Shop, parts: PartFlow[]): TemplateResult {
  const counts = new Map<PartStatus, number>();
  for (const p of parts) counts.set(partStatus(p.state), (counts.get(partStatus(p.state)) ?? 0) + 1);
  // A price at a size in doubt is not counted: it is not a price to sell until the shopper answered. Nor one the
  // shop prices itself (its rule): Add all to cart leaves it to its request.
  const byRule = parts.filter((p) => partStatus(p.state) === 'priced' && byShop(s, p)).length;
  const priced = parts.filter((p) => partStatus(p.state) === 'priced' && p.lineTotal() !== null && !byShop(s, p));
  const failed = counts.get('failed') ?? 0;
  const toConfirm = counts.get('confirm-size') ?? 0;
  const working = parts.length - (counts.get('priced') ?? 0) - failed - toConfirm;
  const currency = priced[0]?.state.quote?.currency;
  const total = currency
    ? sumAmounts(
        priced.map((p) => p.lineTotal()!),
        currencyDigits(currency),
      )
    : null;
  const words = [
    `${priced.length} of ${parts.length} ${parts.length === 1 ? 'part' : 'parts'} priced`,
    working ? `${working} in progress` : '',
    toConfirm ? `${toConfirm} ${toConfirm === 1 ? 'size' : 'sizes'} to confirm` : '',
    byRule ? `${byRule} for the shop to price` : '',
    failed ? `${failed} could not be priced` : '',
  ].filter(Boolean);
  return html`
    <div class="price" part="price summary" role="status" aria-live="polite" aria-busy=${working ? 'true' : 'false'} tabindex="-1">
      ${
        parts.length
          ? html`
            ${total !== null && currency ? html`<div class="amount" part="amount">${money(total, currency, s.locale, s.currencyDisplay)}</div>` : nothing}
            <div class="each" part="summary-text">${words.join(' · ')}</div>`
          : html`<span class="hint">Your parts and their prices appear here.</span>`
      }
    </div>
  `;
}

function renderAddAll(s: Shop, parts: PartFlow[], m: PartsState, h: PartsHandlers): TemplateResult {
  const statuses = parts.map((p) => partStatus(p.state));
  const invalid = parts.some((p) => p.state.quantityError);
  // A row that failed is not added: its size question holds nothing back.
  const sizeInDoubt = parts.some((p) => p.unitPending && !p.state.error);
  // Not disabled while adding: focus would leave the button the shopper just pressed.
  const blocked =
    !parts.some((p) => p.state.quote && p.state.file && !p.state.error && !byShop(s, p)) || invalid || sizeInDoubt;
  // Busy for a moment (parts still being priced, adding): aria-disabled, so keyboard focus stays on the button.
  const busy = m.adding || statuses.some((st) => st !== 'priced' && st !== 'failed');
  return html`
    <button type="button" class="primary add" part="button add-button add-all-button" ?disabled=${blocked}
      aria-disabled=${busy && !blocked ? 'true' : 'false'} aria-describedby="add-all-note add-all-blockers"
      @click=${h.addAll}>
      ${m.adding ? 'Adding…' : 'Add all to cart'}
    </button>
    ${renderRefusal(named(s, parts), m.lineRefused)}
    ${renderError({ error: m.cartError }, { retry: h.retryCart })}
    ${
      m.added && m.reserved && h.linesRequest()?.state.sent === null
        ? html`<p class="added reserved" part="added reserved" role="status">No cart took your ${m.added === 1 ? 'part' : 'parts'} yet: request a quote above, and the shop will send you a link to order ${m.added === 1 ? 'it' : 'them'}.</p>`
        : m.added && m.reserved
          ? html`<p class="added reserved" part="added reserved" role="status">Your ${m.added === 1 ? 'part is' : 'parts are'} reserved — the shop will contact you.</p>`
          : m.added
            ? html`<p class="added" part="added" role="status">Added ${m.added} ${m.added === 1 ? 'part' : 'parts'} to your cart.</p>`
            : nothing
    }
  `;
}

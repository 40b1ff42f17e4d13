// Quotes shoppers can keep (docs/widget.md): once a part is priced, "Save or share this quote" asks the server for
// a signed, expiring link at the quantity chosen, shown as the shop page's own address with `sq-quote=<token>`
// (kept-link.ts). Opening that address (or a `quote-link` attribute) shows the kept quote: the part's picture, its
// choices, quantity, delivery option and line total, until when the price holds, the PDF, and Add to cart, which
// orders it through the shop's cart like any part (kept-order.ts). An expired, altered or foreign link says so in
// plain words; an expired price cannot be ordered, and the shopper prices the part again.
import { html, nothing, type TemplateResult } from 'lit';
import type { CurrencyDisplay } from './format.ts';
import { duration, grams, money, percent } from './format.ts';
import { renderKeptOrder } from './kept-order.ts';
import type { KeptHandlers, KeptOrder, KeptView } from './kept-types.ts';
import { type RequestHandlers, type RequestState, renderRequest } from './quote-request.ts';
import { atMinimumPrice } from './selection.ts';
import { shopperMessage } from './shopper-messages.ts';
import type { KeptQuote } from './types.ts';

/** The query parameter of the shop page that carries a kept quote's link. */
export const LINK_PARAM = 'sq-quote';

interface Writing {
  locale: string | undefined;
  currencyDisplay: CurrencyDisplay;
}

/** The kept link the page was opened with: the element's `quote-link`, else `sq-quote` in the page's address. */
export function linkFromPage(attribute: string | null, href: string): string | null {
  if (attribute?.trim()) return attribute.trim();
  try {
    return new URL(href).searchParams.get(LINK_PARAM)?.trim() || null;
  } catch {
    return null;
  }
}

/** The shop page's address with the link in it: where the shopper comes back to. */
export function shareUrl(token: string, href: string): string {
  const url = new URL(href);
  url.searchParams.set(LINK_PARAM, token);
  url.hash = '';
  return url.toString();
}

/** What a shopper reads when a link cannot be opened. */
export function keptFailure(code: string, message: string): string {
  if (code === 'quote_link_expired') return `${message.replace(/:.*$/, '')}. Upload your part again for today's price.`;
  if (code === 'quote_link_invalid') return shopperMessage(code, false);
  if (code === 'not_found' || code === 'quote_not_found')
    return 'This quote is not available in this shop: it may have been removed, or the link belongs to another shop.';
  if (code === 'network_error') return 'Could not reach the quoting service to open this quote. Please try again.';
  return 'This saved quote could not be opened. Please try again, or upload your part.';
}

export const day = (iso: string, locale?: string) =>
  new Date(iso).toLocaleDateString(locale, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });

const pieces = (n: number) => `${n} ${n === 1 ? 'piece' : 'pieces'}`;

/**
 * What the line total is made of, in the words the widget uses for a part priced on the page: "$2.35 each · 3
 * pieces · 10 % off · Express +$1.41", "$1.00 each (minimum price per part) · 3 pieces".
 */
export function keptLineWords(kept: KeptQuote, fmt: (v: number) => string): string {
  const l = kept.line;
  const minimum = atMinimumPrice(kept.quote.price_breakdown) ? ' (minimum price per part)' : '';
  const words = [`${fmt(l.unit_price)} each${minimum}`, pieces(l.quantity)];
  if (l.quantity_discount > 0) words.push(`${l.discount_percent} % off`);
  if (l.lead_time_surcharge > 0) words.push(`${l.lead_time?.label ?? 'Delivery'} +${fmt(l.lead_time_surcharge)}`);
  if (l.minimum_line_adjustment > 0) words.push(`raised to the minimum order of ${fmt(l.total_price)}`);
  return words.join(' · ');
}

/** The whole widget while it shows a kept quote (or why it cannot). */
export function renderKept(
  view: KeptView,
  w: Writing,
  downloading: boolean,
  order: KeptOrder | null,
  h: KeptHandlers,
  request: { state: RequestState; handlers: RequestHandlers } | null = null,
): TemplateResult {
  if (view.status === 'loading')
    return html`<div class="root kept" part="container kept"><p class="hint" role="status">Opening your saved quote…</p></div>`;
  if (view.status === 'failed')
    return html`<div class="root kept" part="container kept">
      <div class="error" part="error kept-error" role="alert" data-code=${view.code}>
        <p>${keptFailure(view.code, view.message)}</p>
        <button type="button" part="button" @click=${h.closeKept}>Price a part</button>
      </div>
    </div>`;
  const { kept } = view;
  const q = kept.quote;
  const fmt = (v: number) => money(v, q.currency!, w.locale, w.currencyDisplay);
  return html`<div class="root kept" part="container kept">
    <div class="stage">
      ${
        kept.picture
          ? html`<img class="kept-picture" part="kept-picture" src=${kept.picture} alt=${`Picture of ${q.file_name}`} />`
          : nothing
      }
      <div class="file-line"><span class="file-name" part="file-name">${q.file_name}</span></div>
    </div>
    <div class="panel">
      <h2 class="kept-title" part="kept-title">Your saved quote</h2>
      ${renderKeptFacts(kept, w)}
      <p class="hint" part="kept-validity">${
        q.expired
          ? `This price held until ${day(q.expires_at!, w.locale)}. Upload your part again for today's price.`
          : `This price holds until ${day(q.expires_at!, w.locale)}.`
      }</p>
      <div class="kept-actions">
        <button type="button" part="button pdf-button" aria-disabled=${downloading ? 'true' : 'false'}
          @click=${() => h.downloadPdf(kept.token)}>${downloading ? 'Preparing the PDF…' : 'Download PDF quote'}</button>
        <button type="button" part="button" @click=${h.closeKept}>Price another part</button>
      </div>
      ${
        // Ordered where no cart took it: the shop needs a name and an e-mail to follow it up.
        request
          ? html`<div class="rfq-block" part="request">${renderRequest('no_cart', request.state, request.handlers)}</div>`
          : nothing
      }
    </div>
    <div class="buy-bar" part="buy-bar">
      <div class="price" part="price" role="status" tabindex="-1">
        <div class="amount" part="amount">${fmt(kept.line.total_price)}</div>
        <div class="each" part="unit-price">${keptLineWords(kept, fmt)}${q.expired ? ' · expired' : ''}</div>
      </div>
      ${renderKeptOrder(kept, order, h, request?.state.sent === null)}
    </div>
  </div>`;
}

/** The choices the quote was made with, the quantity kept and the delivery option with its date. */
function renderKeptFacts(kept: KeptQuote, w: Writing): TemplateResult {
  const q = kept.quote;
  const c = q.choices;
  const lead = kept.line.lead_time;
  return html`<dl class="facts kept-facts" part="facts">
    ${c ? html`<div><dt>Material</dt><dd>${c.color ? `${c.material}, ${c.color}` : c.material}</dd></div>` : nothing}
    ${c ? html`<div><dt>Quality</dt><dd>${c.quality_label}</dd></div>` : nothing}
    ${c ? html`<div><dt>Infill</dt><dd>${percent(c.infill, w.locale)}</dd></div>` : nothing}
    <div><dt>Quantity</dt><dd part="kept-quantity">${kept.line.quantity}</dd></div>
    ${
      lead
        ? html`<div><dt>Delivery</dt><dd part="kept-delivery">${lead.label}, ships by ${day(lead.ships_by, w.locale)} if ordered today</dd></div>`
        : kept.lead_time
          ? html`<div><dt>Lead time</dt><dd>${kept.lead_time}</dd></div>`
          : nothing
    }
    ${
      // A price the shop set by hand for a part never sliced has no print figures to show.
      q.manual && !q.estimated_time_seconds
        ? nothing
        : html`<div><dt>Print time</dt><dd>${duration(q.estimated_time_seconds!)}</dd></div>
    <div><dt>Weight</dt><dd>${grams(q.filament_weight!, w.locale)} each</dd></div>`
    }
  </dl>`;
}

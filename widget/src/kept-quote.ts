// Quotes shoppers can keep (docs/widget.md): once a part is priced, "Save this quote" asks the server for a signed,
// expiring link, shown as the shop page's own address with `sq-quote=<token>`, with a PDF to download. Opening
// that address (or a `quote-link` attribute) shows the kept quote: the part's picture, choices and price, until
// when the price holds, and the PDF. An expired, altered or foreign link says so in plain words.
import { html, nothing, type TemplateResult } from 'lit';
import type { CurrencyDisplay } from './format.ts';
import { duration, grams, money, percent } from './format.ts';
import type { KeptQuote, KeptQuoteLink } from './types.ts';
import { shopperMessage } from './shopper-messages.ts';

/** The query parameter of the shop page that carries a kept quote's link. */
export const LINK_PARAM = 'sq-quote';

export type KeptView =
  | { status: 'loading' }
  | { status: 'shown'; kept: KeptQuote }
  | { status: 'failed'; code: string; message: string };

/** "Save this quote" for the quote shown: idle, asking, the link, or why it failed. */
export interface KeepState {
  quoteId: string;
  status: 'saving' | 'saved' | 'failed';
  link?: KeptQuoteLink;
  url?: string;
  message?: string;
  /** The PDF is being fetched. */
  downloading?: boolean;
}

export interface KeptHandlers {
  keep(): void;
  downloadPdf(token: string): void;
  closeKept(): void;
}

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

const day = (iso: string, locale?: string) =>
  new Date(iso).toLocaleDateString(locale, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });

/** The whole widget while it shows a kept quote (or why it cannot). */
export function renderKept(view: KeptView, w: Writing, downloading: boolean, h: KeptHandlers): TemplateResult {
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
  const c = q.choices;
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
      <dl class="facts kept-facts" part="facts">
        ${c ? html`<div><dt>Material</dt><dd>${c.color ? `${c.material}, ${c.color}` : c.material}</dd></div>` : nothing}
        ${c ? html`<div><dt>Quality</dt><dd>${c.quality_label}</dd></div>` : nothing}
        ${c ? html`<div><dt>Infill</dt><dd>${percent(c.infill, w.locale)}</dd></div>` : nothing}
        <div><dt>Print time</dt><dd>${duration(q.estimated_time_seconds!)}</dd></div>
        <div><dt>Weight</dt><dd>${grams(q.filament_weight!, w.locale)}</dd></div>
        ${kept.lead_time ? html`<div><dt>Lead time</dt><dd>${kept.lead_time}</dd></div>` : nothing}
      </dl>
      <p class="hint" part="kept-validity">${
        q.expired
          ? `This price held until ${day(q.expires_at!, w.locale)}. Upload your part again for today's price.`
          : `This price holds until ${day(q.expires_at!, w.locale)}.`
      }</p>
      <button type="button" part="button" @click=${h.closeKept}>Price another part</button>
    </div>
    <div class="buy-bar" part="buy-bar">
      <div class="price" part="price" role="status">
        <div class="amount" part="amount">${fmt(q.total_price!)}</div>
        <div class="each" part="unit-price">each${q.expired ? ' · expired' : ''}</div>
      </div>
      <button type="button" class="primary" part="button pdf-button" aria-disabled=${downloading ? 'true' : 'false'}
        @click=${() => h.downloadPdf(kept.token)}>${downloading ? 'Preparing the PDF…' : 'Download PDF quote'}</button>
    </div>
  </div>`;
}

/** Under a priced part: "Save this quote", then the link to copy and the PDF. */
export function renderKeep(keep: KeepState | null, quoteId: string, h: KeptHandlers): TemplateResult {
  const mine = keep?.quoteId === quoteId ? keep : null;
  if (!mine || mine.status === 'failed')
    return html`<div class="keep" part="keep">
      <button type="button" part="button keep-button" @click=${h.keep}>Save or share this quote</button>
      ${mine?.status === 'failed' ? html`<p class="field-error" role="alert">${mine.message}</p>` : nothing}
    </div>`;
  if (mine.status === 'saving')
    return html`<div class="keep" part="keep"><button type="button" part="button keep-button" aria-disabled="true">Saving…</button></div>`;
  const link = mine.link!;
  return html`<div class="keep" part="keep" role="status">
    <label for="kept-link" part="label">Link to this quote, until ${day(link.expires_at)}</label>
    <input id="kept-link" part="input kept-link" readonly .value=${mine.url!} @focus=${(e: Event) => (e.target as HTMLInputElement).select()} />
    <button type="button" part="button pdf-button" aria-disabled=${mine.downloading ? 'true' : 'false'}
      @click=${() => h.downloadPdf(link.token)}>${mine.downloading ? 'Preparing the PDF…' : 'Download PDF quote'}</button>
  </div>`;
}

/** Saves a Blob under `name` through a temporary link (the PDF cannot be a plain link: it needs the widget key). */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

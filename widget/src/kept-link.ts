// "Save or share this quote" under a priced part: the link, shown whole (it wraps) with a Copy button, until when
// the price holds, and the PDF. The link keeps the quantity it was saved at: another quantity asks to save again.
import { html, nothing, type TemplateResult } from 'lit';
import type { WidgetApi } from './api.ts';
import type { KeepHandlers, KeepState } from './kept-types.ts';

const day = (iso: string) =>
  new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });

/** Lines the link takes at about 40 characters a line: where `field-sizing` is not supported, rows do it. */
const rowsFor = (url: string) => Math.min(6, Math.max(2, Math.ceil(url.length / 40)));

const COPY_WORDS = {
  copied: 'Link copied.',
  selected: 'The link is selected: press Ctrl+C (⌘C on a Mac) to copy it.',
};

/**
 * Under a priced part: "Save or share this quote", then the link to copy and the PDF. For a row of the multi-part list,
 * `row` makes its ids unique and its buttons name the part for screen readers.
 */
export function renderKeep(
  keep: KeepState | null,
  quoteId: string,
  quantity: number,
  h: KeepHandlers,
  row?: { idPrefix: string; name: string },
): TemplateResult {
  const mine = keep?.quoteId === quoteId && keep.quantity === quantity ? keep : null;
  const id = (name: string) => (row ? `${row.idPrefix}-${name}` : name);
  const about = row ? html`<span class="visually-hidden"> for ${row.name}</span>` : nothing;
  if (!mine || mine.status === 'failed')
    return html`<div class="keep" part="keep">
      <button type="button" part="button keep-button" @click=${h.keep}>Save or share this quote${about}</button>
      ${mine?.status === 'failed' ? html`<p class="field-error" role="alert">${mine.message}</p>` : nothing}
    </div>`;
  if (mine.status === 'saving')
    return html`<div class="keep" part="keep"><button type="button" part="button keep-button" aria-disabled="true">Saving…${about}</button></div>`;
  const link = mine.link!;
  const n = link.quantity;
  return html`<div class="keep" part="keep">
    <label for=${id('kept-link')} part="label">Link to this quote (${n} ${n === 1 ? 'piece' : 'pieces'})${about}</label>
    <textarea id=${id('kept-link')} class="kept-link" part="input kept-link" readonly rows=${rowsFor(mine.url!)}
      aria-describedby=${id('kept-link-validity')} .value=${mine.url!}
      @focus=${(e: Event) => (e.target as HTMLTextAreaElement).select()}></textarea>
    <p class="hint" id=${id('kept-link-validity')} part="kept-link-validity">The price holds until ${day(link.price_expires_at)}.</p>
    <button type="button" part="button copy-button" @click=${h.copyLink}>Copy link${about}</button>
    <button type="button" part="button pdf-button" aria-disabled=${mine.downloading ? 'true' : 'false'}
      @click=${() => h.downloadPdf(link.token)}>${mine.downloading ? 'Preparing the PDF…' : 'Download PDF quote'}${about}</button>
    <p class="hint copy-status" part="copy-status" role="status">${mine.copied ? COPY_WORDS[mine.copied] : ''}</p>
  </div>`;
}

/**
 * Puts the link on the clipboard; where the browser refuses (no Clipboard API outside secure pages, a denied
 * permission), selects it in its field for the shopper to copy, trying the older copy command once.
 */
export async function copyLink(url: string, field: HTMLTextAreaElement | null): Promise<'copied' | 'selected'> {
  try {
    await navigator.clipboard.writeText(url);
    return 'copied';
  } catch {
    if (!field) return 'selected';
    field.focus();
    field.select();
    try {
      // Deprecated, yet the one way to copy on an http page; false (or a throw) where it is gone.
      return document.execCommand('copy') ? 'copied' : 'selected';
    } catch {
      return 'selected';
    }
  }
}

/**
 * The shop page the PDF links back to: this page without its fragment; a page whose address is too long for the
 * server (2000 characters) without its query, so the PDF always downloads.
 */
export function pdfPage(href: string): string {
  const url = new URL(href);
  url.hash = '';
  return url.toString().length <= 1900 ? url.toString() : `${url.origin}${url.pathname}`.slice(0, 1900);
}

/** Fetches a kept quote's PDF (it needs the widget key, so it cannot be a plain link) and saves it. */
export async function savePdf(client: WidgetApi, token: string): Promise<void> {
  saveBlob(await client.keptQuotePdf(token, pdfPage(location.href)), `quote-${token.split('.')[0]}.pdf`);
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

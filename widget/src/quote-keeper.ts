// "Save or share this quote" of one part (the single part, or a row with `multiple`): a signed link to its quote at
// the quantity chosen (POST /v2/quotes/{quote_id}/link), shown as the shop page's own address with the link in it,
// copied on request, and its PDF. The box is drawn by kept-link.ts; what a link opens is kept-quote.ts.
import type { WidgetApi } from './api.ts';
import { toWidgetError } from './errors.ts';
import { copyLink, savePdf } from './kept-link.ts';
import { shareUrl } from './kept-quote.ts';
import type { KeepState } from './kept-types.ts';
import type { Quote } from './types.ts';

export class QuoteKeeper {
  state: KeepState | null = null;

  constructor(private readonly changed: () => void) {}

  /** Asks for a link to `quote` at `quantity`; true once it is shown (its field may take the focus then). */
  async keep(client: WidgetApi, quote: Quote, quantity: number): Promise<boolean> {
    if (this.state?.status === 'saving') return false;
    const mine = { quoteId: quote.quote_id, quantity };
    this.set({ ...mine, status: 'saving' });
    try {
      const link = await client.keepQuote(quote.quote_id, quantity);
      this.set({ ...mine, status: 'saved', link, url: shareUrl(link.token, location.href) });
      return true;
    } catch (e) {
      this.set({ ...mine, status: 'failed', message: toWidgetError(e).message });
      return false;
    }
  }

  /** Puts the link on the clipboard, or selects it in `field` for the shopper to copy. */
  async copy(field: HTMLTextAreaElement | null): Promise<void> {
    const keep = this.state;
    if (!keep?.url) return;
    const copied = await copyLink(keep.url, field);
    if (this.state === keep) this.set({ ...keep, copied });
  }

  /** Saves the link's PDF; a failure is thrown, for the page's `sq-error`. */
  async downloadPdf(client: WidgetApi, token: string): Promise<void> {
    if (!this.state || this.state.downloading) return;
    this.set({ ...this.state, downloading: true });
    try {
      await savePdf(client, token);
    } finally {
      if (this.state) this.set({ ...this.state, downloading: false });
    }
  }

  private set(state: KeepState): void {
    this.state = state;
    this.changed();
  }
}

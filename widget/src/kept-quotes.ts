// Kept quotes in one <slice-quote> (docs/widget.md, "Quotes shoppers can keep"; kept-quote.ts draws them): the kept
// quote a link opens, shown instead of the drop zone until the shopper closes it, with its PDF and its Add to cart;
// and Save or share under a priced part (its QuoteKeeper asks for the link), whose link takes the focus once shown.
// It holds what a kept quote shows and asks the element to render when that changes; the element draws what render()
// gives it. It needs none of the element's update hooks, so it is not added to them.
import type { TemplateResult } from 'lit';
import { toWidgetError } from './errors.ts';
import type { CurrencyDisplay } from './format.ts';
import { savePdf } from './kept-link.ts';
import { keptCartDetail, keptThumbnail } from './kept-order.ts';
import { linkFromPage, renderKept } from './kept-quote.ts';
import type { KeptHandlers, KeptOrder, KeptView } from './kept-types.ts';
import { NoCartRequest } from './no-cart-request.ts';
import type { PartFlow } from './part-flow.ts';
import type { KeptQuote } from './types.ts';
import type { WidgetHost } from './widget-host.ts';

export interface KeptHost extends WidgetHost {
  readonly multiple: boolean;
  readonly currencyDisplay: CurrencyDisplay;
  /** The one part without `multiple`: the Save or share box of the single-part view is its. */
  readonly single: PartFlow;
  /** The Save or share link field of a part, to select for the shopper where the clipboard refuses. */
  linkField(id: string): HTMLTextAreaElement | null;
}

/** What the kept quote opened from a link shows. */
interface Opened {
  /** The quote, shown instead of the drop zone until the shopper closes it (or why it cannot be). */
  view: KeptView | null;
  /** Its PDF is being fetched. */
  pdfDownloading: boolean;
  /** Its Add to cart: under way, done, or why not. */
  order: KeptOrder | null;
}

export class KeptQuotes {
  private opened: Opened = { view: null, pdfDownloading: false, order: null };
  /** Request a quote of the opened quote, once ordered where no cart took it. */
  private readonly request: NoCartRequest;

  constructor(private readonly host: KeptHost) {
    this.request = new NoCartRequest(host);
  }

  /** Whether a kept quote is shown (then it is the whole widget). */
  get showing(): boolean {
    return this.opened.view !== null;
  }

  /** Opens the kept link the page was opened with (`quote-link`, else `sq-quote` in its address), if any. */
  openFromPage(attribute: string | null): void {
    const link = linkFromPage(attribute, location.href);
    if (link) void this.open(link);
  }

  /** The whole widget while it shows a kept quote (or why it cannot). */
  render(): TemplateResult | null {
    const { view, pdfDownloading, order } = this.opened;
    if (!view) return null;
    const { state } = this.request;
    const request = state && { state, handlers: this.request.handlers };
    const writing = { locale: this.host.locale, currencyDisplay: this.host.currencyDisplay };
    return renderKept(view, writing, pdfDownloading, order, this.handlers, request);
  }

  /** Save or share: a link to the part's quote at its quantity; its field (`linkField`) takes the focus once shown. */
  async keep(part: PartFlow, linkField: string): Promise<void> {
    const { quote, selection } = part.state;
    const { client } = this.host;
    if (!quote || !selection || !client) return;
    if (!(await part.keeper.keep(client, quote, selection.quantity))) return;
    // The link may already be drawn (the keeper's change rendered it): one more render moves the focus there.
    this.host.focusAfterRender(`#${linkField}`);
    this.host.changed();
  }

  /** The PDF of the kept quote shown, or of a part's saved link (`part`). */
  async downloadPdf(token: string, part?: PartFlow): Promise<void> {
    try {
      if (part) return await part.keeper.downloadPdf(this.host.client!, token);
      if (this.opened.pdfDownloading) return;
      this.set({ pdfDownloading: true });
      await savePdf(this.host.client!, token).finally(() => this.set({ pdfDownloading: false }));
    } catch (e) {
      this.host.emit('sq-error', toWidgetError(e).detail);
    }
  }

  /** The kept quote's buttons, and the single part's Save or share box's. */
  readonly handlers: KeptHandlers = {
    keep: () => void this.keep(this.host.single, 'kept-link'),
    copyLink: () => void this.host.single.keeper.copy(this.host.linkField('kept-link')),
    downloadPdf: (token) => void this.downloadPdf(token, this.showing ? undefined : this.host.single),
    order: (kept) => void this.orderOpened(kept),
    closeKept: () => {
      this.request.close();
      this.set({ view: null, order: null });
      this.host.focusAfterRender('[part~=choose-button]');
    },
  };

  private async open(token: string): Promise<void> {
    this.request.close();
    this.set({ view: { status: 'loading' }, order: null });
    try {
      this.set({ view: { status: 'shown', kept: await this.host.client!.keptQuote(token) } });
    } catch (e) {
      const err = toWidgetError(e);
      this.set({ view: { status: 'failed', code: err.code, message: err.message } });
      this.host.emit('sq-error', err.detail);
    }
  }

  /** Orders the kept quote shown: the server records the line, the page's cart takes it (or the fallback). */
  private async orderOpened(kept: KeptQuote): Promise<void> {
    if (this.opened.order?.status === 'adding') return;
    this.set({ order: { status: 'adding' } });
    try {
      const line = await this.host.client!.orderKept(kept.token);
      const thumbnail = await keptThumbnail(kept.picture);
      const detail = keptCartDetail(kept, line, this.host.config, thumbnail, this.host.locale);
      // With `multiple` the page's cart code reads `lines`, whatever was added.
      await this.host.deliver([detail], this.host.multiple ? { lines: [detail] } : detail, (taken) => {
        this.set({ order: { status: 'added', reserved: !taken, line } });
        // No cart took it: the shop needs the shopper's contact, unless it priced the link on their request.
        if (!taken && !kept.quote.manual)
          this.request.open([{ body: { link: kept.token }, file_id: line.file_id, quote_id: line.quote_id }]);
      });
    } catch (e) {
      const err = toWidgetError(e);
      this.set({ order: { status: 'failed', code: err.code, message: err.message, retryable: err.retryable } });
      this.host.emit('sq-error', err.detail);
    }
  }

  private set(change: Partial<Opened>): void {
    this.opened = { ...this.opened, ...change };
    this.host.changed();
  }
}

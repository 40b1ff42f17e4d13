// The types the kept-quote files share: the Save or share box (kept-link.ts), the kept quote a link opens
// (kept-quote.ts) and its Add to cart (kept-order.ts). They sit here, apart from the templates, so that each of those
// files and the element's state (state.ts) can name them without importing one another.
import type { CartLine, KeptQuote, KeptQuoteLink } from './types.ts';

/** What the Save or share box's buttons do. */
export interface KeepHandlers {
  keep(): void;
  copyLink(): void;
  downloadPdf(token: string): void;
}

/** "Save this quote" for the quote shown: idle, asking, the link, or why it failed. */
export interface KeepState {
  quoteId: string;
  /** The quantity the link keeps. */
  quantity: number;
  status: 'saving' | 'saved' | 'failed';
  link?: KeptQuoteLink;
  url?: string;
  message?: string;
  /** The PDF is being fetched. */
  downloading?: boolean;
  /** Copy: the link went to the clipboard, or it is selected for the shopper to copy. */
  copied?: 'copied' | 'selected';
}

/** The kept quote's own buttons, and the Save or share box's of the part shown (kept-link.ts). */
export interface KeptHandlers extends KeepHandlers {
  order(kept: KeptQuote): void;
  closeKept(): void;
}

/** A kept quote opened from a link: being fetched, shown, or why it cannot be. */
export type KeptView =
  | { status: 'loading' }
  | { status: 'shown'; kept: KeptQuote }
  | { status: 'failed'; code: string; message: string };

/** Add to cart of the kept quote shown: under way, done, or why not. */
export type KeptOrder =
  | { status: 'adding' }
  | { status: 'added'; reserved: boolean; line: CartLine }
  | { status: 'failed'; code: string; message: string; retryable: boolean };

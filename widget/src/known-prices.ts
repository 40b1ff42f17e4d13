// The exact prices a part already has, by file, size and choices: a shopper who goes back to a choice sees its price
// at once, and it costs no request (nor a place in the shopper's rate limit).
import { quoteRequest } from './quote-flow.ts';
import type { PartState } from './state.ts';
import type { Quote } from './types.ts';

/** A price the part already has is shown again only while it has at least this long left to live. */
const REUSE_MARGIN_MS = 60_000;

type Priced = Pick<PartState, 'file' | 'selection'>;

export class KnownPrices {
  private readonly byKey = new Map<string, Quote>();

  /** The exact price for the part's upload and choices now, while it is far enough from expiring. */
  get(s: Priced): Quote | null {
    const key = priceKey(s);
    const quote = key ? this.byKey.get(key) : undefined;
    if (!key || !quote) return null;
    if (Date.parse(quote.expires_at) - Date.now() > REUSE_MARGIN_MS) return quote;
    this.byKey.delete(key);
    return null;
  }

  /** Keeps the exact price of the part's upload and choices now. */
  keep(s: Priced, quote: Quote): void {
    const key = priceKey(s);
    if (key) this.byKey.set(key, quote);
  }

  /** A price the cart refused (expired, made at an earlier size) is never shown again. */
  forget(quoteId: string | undefined): void {
    for (const [key, q] of this.byKey) if (q.quote_id === quoteId) this.byKey.delete(key);
  }

  clear(): void {
    this.byKey.clear();
  }
}

/** Which file, at which size (its unit and scale), with which choices: what one exact price is for. */
function priceKey({ file, selection }: Priced): string | null {
  return file && selection
    ? `${file.file_id}@${file.unit}×${file.scale}:${JSON.stringify(quoteRequest(selection).choices)}`
    : null;
}

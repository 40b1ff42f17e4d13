// A kept quote's link (docs/widget.md, "Quotes shoppers can keep"): `<quote id>.<expiry>.<quantity>.<mac>`, the mac
// an HMAC-SHA256 over the quote id, the expiry (Unix seconds) and the quantity the shopper kept, under a key derived
// from the server's secret. Links made before they kept a quantity, `<quote id>.<expiry>.<mac>` (the mac over the
// id and expiry alone), still open, with no quantity of their own. The link is the shopper's to keep and share:
// whoever holds it may see that quote, and order it, through the shop's own widget key or API token (another
// account's answer 404), until it expires. Nothing is stored per link.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../http/index.ts';

/**
 * One spelling per link: the expiry and quantity without leading zeros (`0123` would be read as 123 and open the
 * same quote). The quantity is at most 6 digits (OFFER_LIMITS.maxQuantity is 100000).
 */
const TOKEN = /^((?:qt|job)_[A-Za-z0-9]{1,60})\.([1-9]\d{0,11})(?:\.([1-9]\d{0,5}))?\.([A-Za-z0-9_-]{43})$/;

/** Its own key, so that a link's mac can never stand for a session token's or anything else signed with the secret. */
const linkKey = (serverSecret: string) =>
  createHmac('sha256', serverSecret).update('slicequote kept-quote link v1').digest();

/** The mac of what a link says; a quote id has no dots, so `id.expiry` and `id.expiry.quantity` never coincide. */
const mac = (serverSecret: string, quoteId: string, expiry: number, quantity: number | null) =>
  createHmac('sha256', linkKey(serverSecret))
    .update(quantity === null ? `${quoteId}.${expiry}` : `${quoteId}.${expiry}.${quantity}`)
    .digest();

export interface LinkedQuote {
  quoteId: string;
  expiresAt: Date;
  /** The quantity the shopper kept; null for a link made before links kept one. */
  quantity: number | null;
}

export function signLink(serverSecret: string, quoteId: string, expiresAt: Date, quantity: number): string {
  const expiry = Math.floor(expiresAt.getTime() / 1000);
  return `${quoteId}.${expiry}.${quantity}.${mac(serverSecret, quoteId, expiry, quantity).toString('base64url')}`;
}

/** The quote a link stands for; 400 quote_link_invalid when it was altered or not made here, 410 when expired. */
export function verifyLink(serverSecret: string, token: string, now: Date): LinkedQuote {
  const m = TOKEN.exec(token);
  const invalid = () =>
    new ApiError(
      400,
      'quote_link_invalid',
      'This quote link is damaged or was not made by this shop: ask the shop for a new one.',
      {
        field: 'token',
      },
    );
  if (!m) throw invalid();
  const [, quoteId, expiryText, quantityText, given] = m as unknown as [
    string,
    string,
    string,
    string | undefined,
    string,
  ];
  const expiry = Number(expiryText);
  const quantity = quantityText === undefined ? null : Number(quantityText);
  const expected = mac(serverSecret, quoteId, expiry, quantity);
  const actual = Buffer.from(given, 'base64url');
  // Only the canonical spelling: the last of 43 characters carries 2 unused bits, and a link differing there would
  // otherwise decode to the same mac and open although it was altered.
  if (actual.toString('base64url') !== given) throw invalid();
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) throw invalid();
  const expiresAt = new Date(expiry * 1000);
  if (expiresAt <= now)
    throw new ApiError(
      410,
      'quote_link_expired',
      `This quote link expired on ${expiresAt.toISOString().slice(0, 10)}: upload the part again for today's price.`,
      { expired_at: expiresAt.toISOString() },
    );
  return { quoteId, expiresAt, quantity };
}

// Quotes shoppers can keep: a signed, expiring link to a completed quote at the quantity the shopper chose
// (link.ts), what the widget shows when it reopens one (the line priced as the cart will price it, line.ts), the
// order placed from it, and its PDF, a quotation (pdf.ts) with the part's picture (picture.ts).

import { quantityProblem } from '../../shared/offer.ts';
import type { Auth } from '../accounts/access/index.ts';
import type { Deps } from '../deps.ts';
import { fileById } from '../files/index.ts';
import { ApiError, notFound, ValidationError } from '../http/index.ts';
import { presentQuote, type QuoteRow, quoteAsSeen, quoteById, quoteForCaller } from '../quotes/index.ts';
import { fileKeptUntil } from '../retention/index.ts';
import { addKeptQuoteToCart } from '../widget/index.ts';
import { backLink } from './back-link.ts';
import { keptLine, keptOffer, keptQuantity } from './line.ts';
import { signLink, verifyLink } from './link.ts';

const DAY_MS = 86_400_000;

/** A kept link is signed with the server's secret, and its quote read and dated by the clock. */
type KeptLinkPorts = Pick<Deps, 'config' | 'db' | 'now'>;

/**
 * QUOTE_LINK_DAYS from now, but never past the day the retention sweep may delete the part's file (a shopper's
 * upload: its period, or while a quote of it can be bought), so a link never opens a quote whose part is gone.
 * At least a day, even for a file the next sweep deletes: that link opens the quote without its picture.
 */
async function linkExpiry(deps: KeptLinkPorts, row: QuoteRow): Promise<Date> {
  const now = deps.now().getTime();
  const full = now + deps.config.quoteLinkDays * DAY_MS;
  const fileKept = await fileKeptUntil(deps, row.account_id, row.file_id);
  if (!fileKept) return new Date(full);
  return new Date(Math.min(full, Math.max(fileKept.getTime(), now + DAY_MS)));
}

/** The link's paths: the kept quote, its PDF, and its order. */
const paths = (token: string) => ({
  url: `/v2/kept-quotes/${token}`,
  pdf_url: `/v2/kept-quotes/${token}/pdf`,
  cart_url: `/v2/kept-quotes/${token}/cart`,
});

/**
 * A link to one of the caller's completed quotes (a shopper: one of their own) at `quantity` pieces (default: the
 * offer's smallest), valid QUOTE_LINK_DAYS. The quantity must be one the offer sells: 400 names `quantity`.
 */
export async function keepQuote(deps: KeptLinkPorts, auth: Auth, quoteId: string, quantity: number | undefined) {
  const row = await quoteForCaller(deps.db, auth, quoteId);
  if (!row) throw notFound('quote', quoteId);
  if (row.status !== 'completed')
    throw new ApiError(409, 'quote_not_completed', 'Only a priced quote can be kept: wait until its price is shown.', {
      status: row.status,
    });
  const offer = await keptOffer(deps, auth, row);
  const pieces = keptQuantity(offer, quantity ?? null);
  const problem = quantityProblem(offer, pieces);
  if (problem) throw new ValidationError([{ field: 'quantity', message: problem }]);
  return linkToQuote(deps, row, pieces);
}

/**
 * A kept link to a completed quote at `quantity` pieces, valid as long as keepQuote's (also a quote priced by hand
 * from a quote request, whose link the merchant sends the shopper).
 */
export async function linkToQuote(deps: KeptLinkPorts, row: QuoteRow, quantity: number) {
  const expiresAt = await linkExpiry(deps, row);
  const token = keptLinkToken(deps, row.id, expiresAt, quantity);
  return {
    quote_id: row.id,
    token,
    quantity,
    expires_at: expiresAt.toISOString(),
    price_expires_at: row.expires_at!.toISOString(),
    ...paths(token),
  };
}

/**
 * The expiry of a link to a quote not yet written (a price set by hand, written in a transaction this must not
 * wait on): as linkExpiry, with the quote's expiry counted as the retention sweep will count it.
 */
export async function keptLinkExpiry(deps: KeptLinkPorts, accountId: string, fileId: string, priceExpiresAt: Date) {
  const now = deps.now().getTime();
  const full = now + deps.config.quoteLinkDays * DAY_MS;
  const fileKept = await fileKeptUntil(deps, accountId, fileId);
  if (!fileKept) return new Date(full);
  const kept = Math.max(fileKept.getTime(), priceExpiresAt.getTime(), now + DAY_MS);
  return new Date(Math.min(full, kept));
}

/** The signed link itself (link.ts). */
export const keptLinkToken = (deps: Pick<Deps, 'config'>, quoteId: string, expiresAt: Date, quantity: number) =>
  signLink(deps.config.jwtSecret, quoteId, expiresAt, quantity);

/** The quote a link stands for, if it is the caller's account's: another shop's key gets 404 as for any quote. */
async function linkedQuote(deps: KeptLinkPorts, auth: Auth, token: string) {
  const { quoteId, expiresAt, quantity } = verifyLink(deps.config.jwtSecret, token, deps.now());
  const row = await quoteById(deps.db, auth.account.id, quoteId);
  if (row?.status !== 'completed') throw notFound('quote', quoteId);
  const offer = await keptOffer(deps, auth, row);
  return { row, expiresAt, offer, quantity: keptQuantity(offer, quantity) };
}

/** The delivery option the shopper chose (it is part of the signed quote), else the offer's free-text lead time. */
function leadTime(row: QuoteRow, offer: { lead_time: string | null }): string | null {
  const chosen = row.choices?.lead_time;
  if (chosen) return `${chosen.label} (${chosen.business_days} business day${chosen.business_days === 1 ? '' : 's'})`;
  return offer.lead_time ?? null;
}

/** A kept quote's picture is drawn from its file's stored mesh and kept in memory. */
type PicturePorts = Pick<Deps, 'db' | 'storage' | 'pictures'>;

/**
 * The part's picture while its file is stored, drawn in the pictures' worker in the caller's turn (pictures.ts); a
 * deleted file's part is not shown, not even from the cache.
 */
async function picture(deps: PicturePorts, auth: Auth, row: QuoteRow): Promise<Buffer | null> {
  const file = await fileById(deps.db, row.account_id, row.file_id);
  if (!file) return null;
  const bbox = file.measurements?.bbox;
  return deps.pictures.of(
    {
      id: file.id,
      bbox: bbox ? { min: bbox.min, max: bbox.max } : null,
      async meshPath() {
        await deps.storage.ensureLocal(file.id).catch(() => undefined);
        return deps.storage.canonicalPath(file.id);
      },
    },
    auth.caller,
  );
}

/**
 * The quote and quantity a kept link stands for, for a quote request about it (a shopper who ordered a kept quote on
 * a page where no cart took it): the link is the proof, as for ordering it, so the quote may be another browser's.
 */
export async function keptLinkQuote(deps: KeptLinkPorts, auth: Auth, token: string) {
  const { row, quantity } = await linkedQuote(deps, auth, token);
  return { quote: row, quantity };
}

export async function openKeptQuote(deps: KeptLinkPorts & PicturePorts, auth: Auth, token: string) {
  const { row, expiresAt, offer, quantity } = await linkedQuote(deps, auth, token);
  const png = await picture(deps, auth, row);
  const { url: _url, ...more } = paths(token);
  return {
    token,
    link_expires_at: expiresAt.toISOString(),
    quantity,
    line: keptLine(deps, row, quantity, offer),
    lead_time: leadTime(row, offer),
    picture: png ? `data:image/png;base64,${png.toString('base64')}` : null,
    ...more,
    quote: quoteAsSeen(auth, offer, presentQuote(row, deps.now())),
  };
}

/** The kept quote ordered from its link, at the link's quantity: a cart line, as POST /v2/widget/cart answers it. */
export async function orderKeptQuote(
  deps: KeptLinkPorts & Pick<Deps, 'events'>,
  auth: Auth,
  token: string,
  origin: string | null,
) {
  // An add is one shopper session's (one order per quote and session): without a token every such shopper would be
  // one session, and each order would change the last one's.
  if (auth.via === 'widget' && !auth.shopperHash)
    throw new ValidationError([
      { field: 'X-Shopper-Token', message: 'is required to order: GET /v2/file/upload-id issues one' },
    ]);
  const { row, quantity } = await linkedQuote(deps, auth, token);
  return addKeptQuoteToCart(deps, auth, row.id, quantity, origin);
}

interface Breakdown {
  currency: string;
  digits: number;
  minor_units: Record<string, number>;
}

/**
 * The kept quote as a quotation PDF. `page` is the shop page to link back to (the link is added to it); a widget
 * may name only a page of the origin it calls from (`origin`).
 */
export async function keptQuotePdf(
  deps: KeptLinkPorts & PicturePorts,
  auth: Auth,
  token: string,
  page: { url: string | undefined; origin: string | null },
) {
  const { row, offer, quantity } = await linkedQuote(deps, auth, token);
  const result = row.result as {
    price_breakdown: Breakdown;
    estimated_time?: string;
    placement?: { dimensions: { x: number; y: number; z: number } };
  };
  const b = result.price_breakdown;
  // pdfkit and its fonts are loaded by the first PDF asked for, not by every process at start.
  const { quotePdf } = await import('./pdf.ts');
  return quotePdf({
    shopName: auth.account.shop_name ?? 'Print shop',
    // The account's login e-mail is never printed for link holders: the shop states its contact in the offer.
    contact: offer.contact,
    quoteId: row.id,
    fileName: row.file_name,
    createdAt: row.created_at,
    validUntil: row.expires_at,
    currency: b.currency,
    digits: b.digits,
    line: keptLine(deps, row, quantity, offer),
    costs: offer.show_cost_breakdown ? b.minor_units : null,
    taxMinor: b.minor_units.tax ?? 0,
    dimensions: result.placement?.dimensions ?? null,
    choices: row.choices,
    weightG: row.filament_weight_g,
    printTime: result.estimated_time ?? null,
    leadTime: leadTime(row, offer),
    link: page.url === undefined ? null : backLink(page.url, token, page.origin),
    picture: await picture(deps, auth, row),
  });
}

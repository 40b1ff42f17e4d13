// Quotes shoppers can keep: a signed, expiring link to a completed quote (link.ts), what the widget shows when it
// reopens one, and its PDF (pdf.ts) with the part's picture (picture.ts).
import type { Deps } from '../deps.ts';
import type { Auth } from '../accounts/index.ts';
import { ApiError, notFound } from '../http/index.ts';
import { quoteById, quoteForCaller, type QuoteRow } from '../quotes/index.ts';
import { presentQuote } from '../quotes/index.ts';
import { effectiveOffer } from '../offer/index.ts';
import { signLink, verifyLink } from './link.ts';
import { fileById } from '../files/index.ts';
import { fileKeptUntil } from '../retention/index.ts';
import { quotePdf } from './pdf.ts';

const DAY_MS = 86_400_000;

/**
 * QUOTE_LINK_DAYS from now, but never past the day the retention sweep may delete the part's file (a shopper's
 * upload: its period, or while a quote of it can be bought), so a link never opens a quote whose part is gone.
 * At least a day, even for a file the next sweep deletes: that link opens the quote without its picture.
 */
async function linkExpiry(deps: Deps, row: QuoteRow): Promise<Date> {
  const now = deps.now().getTime();
  const full = now + deps.config.quoteLinkDays * DAY_MS;
  const fileKept = await fileKeptUntil(deps, row.account_id, row.file_id);
  if (!fileKept) return new Date(full);
  return new Date(Math.min(full, Math.max(fileKept.getTime(), now + DAY_MS)));
}

/** A link to one of the caller's completed quotes (a shopper: one of their own), valid QUOTE_LINK_DAYS. */
export async function keepQuote(deps: Deps, auth: Auth, quoteId: string) {
  const row = await quoteForCaller(deps.db, auth, quoteId);
  if (!row) throw notFound('quote', quoteId);
  if (row.status !== 'completed')
    throw new ApiError(409, 'quote_not_completed', 'Only a priced quote can be kept: wait until its price is shown.', {
      status: row.status,
    });
  const expiresAt = await linkExpiry(deps, row);
  const token = signLink(deps.config.jwtSecret, row.id, expiresAt);
  return {
    quote_id: row.id,
    token,
    expires_at: expiresAt.toISOString(),
    url: `/v2/kept-quotes/${token}`,
    pdf_url: `/v2/kept-quotes/${token}/pdf`,
  };
}

/** The quote a link stands for, if it is the caller's account's: another shop's key gets 404 as for any quote. */
async function linkedQuote(deps: Deps, auth: Auth, token: string): Promise<{ row: QuoteRow; expiresAt: Date }> {
  const { quoteId, expiresAt } = verifyLink(deps.config.jwtSecret, token, deps.now());
  const row = await quoteById(deps.db, auth.account.id, quoteId);
  if (row?.status !== 'completed') throw notFound('quote', quoteId);
  return { row, expiresAt };
}

/** The delivery option the shopper chose (it is part of the signed quote), else the offer's free-text lead time. */
async function leadTime(deps: Deps, row: QuoteRow): Promise<string | null> {
  const chosen = row.choices?.lead_time;
  if (chosen) return `${chosen.label} (${chosen.business_days} business day${chosen.business_days === 1 ? '' : 's'})`;
  return (await effectiveOffer(deps.db, row.account_id, row.widget_key_id)).offer.lead_time ?? null;
}

/**
 * The part's picture while its file is stored, drawn in the pictures' worker in the caller's turn (pictures.ts); a
 * deleted file's part is not shown, not even from the cache.
 */
async function picture(deps: Deps, auth: Auth, row: QuoteRow): Promise<Buffer | null> {
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

export async function openKeptQuote(deps: Deps, auth: Auth, token: string) {
  const { row, expiresAt } = await linkedQuote(deps, auth, token);
  const png = await picture(deps, auth, row);
  return {
    token,
    link_expires_at: expiresAt.toISOString(),
    lead_time: await leadTime(deps, row),
    picture: png ? `data:image/png;base64,${png.toString('base64')}` : null,
    pdf_url: `/v2/kept-quotes/${token}/pdf`,
    quote: presentQuote(row, deps.now()),
  };
}

interface Breakdown {
  currency: string;
  digits: number;
  minor_units: Record<string, number>;
}

export async function keptQuotePdf(deps: Deps, auth: Auth, token: string) {
  const { row } = await linkedQuote(deps, auth, token);
  const result = row.result as { price_breakdown: Breakdown; estimated_time?: string };
  const b = result.price_breakdown;
  return quotePdf({
    shopName: auth.account.shop_name ?? 'Print shop',
    quoteId: row.id,
    fileName: row.file_name,
    createdAt: row.created_at,
    validUntil: row.expires_at,
    currency: b.currency,
    digits: b.digits,
    minor: b.minor_units,
    choices: row.choices,
    weightG: row.filament_weight_g,
    printTime: result.estimated_time ?? null,
    leadTime: await leadTime(deps, row),
    picture: await picture(deps, auth, row),
  });
}

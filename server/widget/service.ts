// What a storefront widget needs: the merchant's offer (materials, colours, qualities, infill, quantities,
// build volume, currency) and add-to-cart, which records the line (the shop's orders) and tells the merchant's
// webhooks with the authoritative, signed quote from the database, once per add (docs/widget.md).

import { type LineTerms, priceLine } from '../../shared/line-price.ts';
import { quantityProblem } from '../../shared/offer.ts';
import { deliveryDate } from '../../shared/offer-terms.ts';
import { currencyDigits, PriceOutOfRangeError } from '../../shared/pricing.ts';
import type { Auth } from '../accounts/access/index.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { fileById } from '../files/index.ts';
import { ApiError, notFound, ValidationError } from '../http/index.ts';
import { newId } from '../ids.ts';
import { effectiveOffer } from '../offer/index.ts';
import { writeEvent } from '../outbox/index.ts';
import type { QuoteRow } from '../quotes/index.ts';
import { quoteById, quoteForCaller } from '../quotes/index.ts';
import { addedToCartEvent, type CartLine } from './cart-event.ts';
import { insertCartLine, latestCartLine, lockQuotes, updateCartLine } from './cart-sql.ts';

export interface CartRequestLine {
  quote_id: string;
  quantity: number;
}

/** Who adds to a cart: a replay is the same add by the same shopper session (or API token, or dashboard). */
export function addedBy(auth: Auth): string {
  if (auth.via === 'widget') return `shopper:${auth.widgetKeyId}:${auth.shopperHash ?? '-'}`;
  return auth.tokenId ? `token:${auth.tokenId}` : 'session';
}

/** A cart line is written with its time, and its event woken for the webhooks. */
type CartPorts = Pick<Deps, 'db' | 'now' | 'events'>;

/** POST /v2/widget/cart {quote_id, quantity}: one cart line. */
export async function addToCart(deps: CartPorts, auth: Auth, quoteId: string, quantity: number, origin: string | null) {
  const [line] = await addLinesToCart(deps, auth, [{ quote_id: quoteId, quantity }], origin, { batch: false });
  return line!;
}

/**
 * A kept quote ordered from its link (POST /v2/kept-quotes/{token}/cart): one cart line, recorded and told to the
 * webhooks as any add. The link stands for the quote, so the shopper who opened it may order it although another
 * shopper session priced it; everything else (expiry, staleness, quantity, price) is checked as for any add.
 */
export async function addKeptQuoteToCart(
  deps: CartPorts,
  auth: Auth,
  quoteId: string,
  quantity: number,
  origin: string | null,
) {
  const [line] = await addLinesToCart(deps, auth, [{ quote_id: quoteId, quantity }], origin, {
    batch: false,
    linked: true,
  });
  return line!;
}

/**
 * POST /v2/widget/cart {lines}: every line is checked before any is recorded, and all are recorded in one
 * transaction, so a cart is never half added. A refused line's error names it in `details.line`.
 */
export async function addCartLines(deps: CartPorts, auth: Auth, lines: CartRequestLine[], origin: string | null) {
  const seen = new Map<string, number>();
  lines.forEach((l, i) => {
    const first = seen.get(l.quote_id);
    if (first !== undefined) {
      throw new ApiError(
        400,
        'validation_failed',
        `lines.${i}.quote_id: the quote is already line ${first}; one line per quote, with its whole quantity.`,
        { fields: [{ field: `lines.${i}.quote_id`, message: `repeats line ${first}` }], line: i },
      );
    }
    seen.set(l.quote_id, i);
  });
  return addLinesToCart(deps, auth, lines, origin, { batch: true });
}

/** How lines reach the cart: in a batch (errors name the line), and through a kept link (any session's quote). */
interface AddMode {
  batch: boolean;
  linked?: boolean;
}

/**
 * Records each line that is a new add and answers every line. A line whose quote this session added last with
 * the same quantity is a replay: it answers that add again and records and sends nothing.
 */
async function addLinesToCart(
  deps: CartPorts,
  auth: Auth,
  lines: CartRequestLine[],
  origin: string | null,
  mode: AddMode,
) {
  const { offer } = await effectiveOffer(deps.db, auth.account.id, auth.widgetKeyId);
  const by = addedBy(auth);
  const answered = await deps.db.transaction(async (tx) => {
    await lockQuotes(
      tx,
      auth.account.id,
      lines.map((l) => l.quote_id),
    );
    const out: { line: Record<string, unknown>; added: boolean }[] = [];
    for (const [i, l] of lines.entries()) {
      try {
        out.push(await cartLine(tx, deps, auth, offer, l, origin, by, mode.linked ?? false));
      } catch (e) {
        throw mode.batch && e instanceof ApiError ? naming(e, i) : e;
      }
    }
    return out;
  });
  if (answered.some((a) => a.added)) deps.events.wake();
  return answered.map((a) => a.line);
}

async function cartLine(
  tx: Queryable,
  deps: Pick<Deps, 'now'>,
  auth: Auth,
  offer: Offer,
  request: CartRequestLine,
  origin: string | null,
  by: string,
  linked: boolean,
): Promise<{ line: Record<string, unknown>; added: boolean }> {
  const quote = linked
    ? await quoteById(tx, auth.account.id, request.quote_id)
    : await quoteForCaller(tx, auth, request.quote_id);
  if (!quote) throw notFound('quote', request.quote_id);
  const latest = await latestCartLine(tx, quote.id, by);
  if (latest?.quantity === request.quantity) return { line: JSON.parse(latest.line), added: false };
  // One order per part and shopper session: another quantity changes that order (the latest wins), it adds none.
  const { line, event } = await checkedLine(tx, deps, auth, offer, quote, request.quantity, origin, latest?.id);
  if (latest) {
    await updateCartLine(tx, latest.id, {
      quantity: request.quantity,
      total_price: line.total_price,
      currency: line.currency,
      line: JSON.stringify(line),
      origin,
    });
    await writeEvent(tx, event);
    return { line, added: true };
  }
  await insertCartLine(tx, {
    id: line.cart_line_id,
    account_id: quote.account_id,
    quote_id: quote.id,
    file_id: quote.file_id,
    added_by: by,
    widget_key_id: auth.widgetKeyId,
    quantity: request.quantity,
    total_price: line.total_price,
    currency: line.currency,
    line: JSON.stringify(line),
    origin,
    created_at: deps.now(),
  });
  await writeEvent(tx, event);
  return { line, added: true };
}

/** The same error about line i of a batch: its index in `details.line`, its fields as `lines.i.field`. */
function naming(e: ApiError, i: number): ApiError {
  const fields = e.details?.fields as { field: string; message: string }[] | undefined;
  const details = {
    ...e.details,
    line: i,
    ...(fields ? { fields: fields.map((f) => ({ ...f, field: `lines.${i}.${f.field}` })) } : {}),
  };
  const message = fields ? `lines.${i}.${e.message}` : `Line ${i}: ${e.message}`;
  return new ApiError(e.status, e.code, message, details, e.headers);
}

type Offer = Awaited<ReturnType<typeof effectiveOffer>>['offer'];

/**
 * A completed quote's line at a quantity, priced as the cart prices it: breaks and the line minimum are the offer's
 * today; the lead time is the quote's own (chosen and signed).
 */
export function quoteLinePrice(quote: QuoteRow, quantity: number, offer: Offer) {
  // A price set by hand is the price of the part at that quantity: the offer's terms do not change it.
  if (quote.result?.manual)
    return lineOf(quote.total_price!, quantity, currencyDigits(quote.currency!), {
      quantity_breaks: [],
      lead_time: null,
      minimum_line_price: null,
      minimum_unit_price: null,
      rate: 1,
    });
  return lineOf(quote.total_price!, quantity, currencyDigits(quote.currency!), {
    quantity_breaks: offer.quantity_breaks,
    lead_time: quote.choices?.lead_time ?? null,
    minimum_line_price: offer.minimum_line_price,
    minimum_unit_price: quote.result?.price_breakdown?.minimum_unit_price ?? null,
    rate: quote.resolved?.conversion?.rate ?? 1,
  });
}

/** The delivery option the quote was made with and the day a line ordered `now` ships; null without one. */
export function chosenLeadTime(quote: QuoteRow, now: Date) {
  const lead = quote.choices?.lead_time;
  if (!lead) return null;
  const today = { year: now.getUTCFullYear(), month: now.getUTCMonth() + 1, day: now.getUTCDate() };
  return {
    id: lead.id,
    label: lead.label,
    business_days: lead.business_days,
    ships_by: deliveryDate(today, lead.business_days),
  };
}

/**
 * What was priced is what is sold: a quote made before its file was rescaled (another revision, unit or scale)
 * prices a part of another size, and is refused until the shopper re-prices it.
 */
async function checkNotStale(tx: Queryable, quote: QuoteRow) {
  const file = await fileById(tx, quote.account_id, quote.file_id);
  const placed = quote.resolved?.placement;
  const priced = placed?.placement;
  const stale =
    !file ||
    (placed?.file_revision !== undefined && placed.file_revision !== file.revision) ||
    (priced && (priced.unit !== file.unit || priced.scale !== file.scale));
  if (!stale) return file!;
  const message = file
    ? 'The part was rescaled after this quote was made; quote it again at its current size.'
    : 'The part of this quote has been deleted.';
  throw new ApiError(409, 'quote_stale', message, {
    file_id: quote.file_id,
    quoted_revision: placed?.file_revision ?? null,
    file_revision: file?.revision ?? null,
  });
}

/** The line's figures (shared/line-price.ts); a line too large to price exactly is a 422, as a part's price is. */
function lineOf(unit: number, quantity: number, digits: number, terms: LineTerms) {
  try {
    return priceLine(unit, quantity, terms, digits);
  } catch (err) {
    if (!(err instanceof PriceOutOfRangeError)) throw err;
    throw new ApiError(422, 'price_out_of_range', `This line cannot be priced: ${err.message}. Order fewer parts.`, {
      field: 'quantity',
    });
  }
}

/** One line checked and priced, with the widget.added_to_cart event to record for it. */
async function checkedLine(
  tx: Queryable,
  deps: Pick<Deps, 'now'>,
  auth: Auth,
  offer: Offer,
  quote: QuoteRow,
  quantity: number,
  origin: string | null,
  cartLineId: string = newId('cl'),
) {
  if (quote.status !== 'completed')
    throw new ApiError(409, 'quote_not_completed', 'Only a completed quote can be added to the cart.', {
      status: quote.status,
    });
  if (quote.expires_at && quote.expires_at <= deps.now()) {
    throw new ApiError(410, 'quote_expired', 'This quote has expired; quote the part again for a current price.', {
      expired_at: quote.expires_at.toISOString(),
    });
  }
  const file = await checkNotStale(tx, quote);
  const problem = quantityProblem(offer, quantity);
  if (problem) throw new ValidationError([{ field: 'quantity', message: problem }]);
  const unit = quote.total_price!;
  const currency = quote.currency!;
  const minimumUnit = quote.result?.price_breakdown?.minimum_unit_price ?? null;
  const price = quoteLinePrice(quote, quantity, offer);
  const leadTime = chosenLeadTime(quote, deps.now());
  if (!(price.total > 0)) {
    throw new ApiError(
      422,
      'zero_price',
      'This part is priced at 0 and cannot be sold; the shop sets a minimum price per part in its offer.',
      { total_price: price.total, currency },
    );
  }
  const result = quote.result!;
  const line: CartLine = {
    cart_line_id: cartLineId,
    quote_id: quote.id,
    file_id: quote.file_id,
    file_revision: quote.resolved?.placement?.file_revision ?? file.revision,
    placement: quote.resolved?.placement?.placement ?? null,
    quantity,
    unit_price: unit,
    minimum_unit_price: minimumUnit,
    subtotal: price.subtotal,
    discount_percent: price.discount_percent,
    quantity_discount: price.quantity_discount,
    lead_time_surcharge: price.lead_time_surcharge,
    minimum_line_adjustment: price.minimum_line_adjustment,
    total_price: price.total,
    currency,
    lead_time: leadTime,
    choices: quote.choices,
    expires_at: result.expires_at!,
    signature: result.signature!,
  };
  const event = addedToCartEvent(line, quote, auth.widgetKeyId, origin, deps.now());
  return { line, event };
}

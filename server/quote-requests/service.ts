// Quote requests (docs/widget.md, "Request a quote"): a shopper asks the shop to price a part the widget could not
// sell at once; the merchant prices it by hand (price.ts). This file is the shopper's side and the merchant's reading.

import { quantityProblem, type ResolvedChoices, resolveChoices } from '../../shared/offer.ts';
import type { Auth } from '../accounts/access/index.ts';
import type { Deps } from '../deps.ts';
import { fileById, fileForCaller } from '../files/index.ts';
import { ApiError, notFound, ValidationError } from '../http/index.ts';
import { newId } from '../ids.ts';
import { backLink, keptLinkQuote } from '../kept-quotes/index.ts';
import { effectiveOffer } from '../offer/index.ts';
import type { ContractSchema } from '../openapi/index.ts';
import { writeEvent } from '../outbox/index.ts';
import { quoteForCaller } from '../quotes/index.ts';
import { REQUEST_LIMITS } from './limits.ts';
import { deleteQuoteRequest, insertQuoteRequest, type NewQuoteRequest, openRequestOfShopper } from './sql.ts';

type CreateBody = ContractSchema<'QuoteRequestCreate'>;

/** Counts a shopper's request; past REQUEST_LIMITS.perSession in the window, 429 rate_limited. */
async function limitRequests(deps: Pick<Deps, 'limits'>, auth: Auth) {
  if (auth.via !== 'widget') return; // the merchant's own calls are held by the API's rate limits
  const hit = await deps.limits.limiter.hit(
    `rfq:${auth.widgetKeyId}:${auth.shopperHash}`,
    REQUEST_LIMITS.perSession,
    REQUEST_LIMITS.windowMs,
  );
  if (hit.allowed) return;
  const retryAfter = Math.max(1, Math.ceil(hit.resetMs / 1000));
  throw new ApiError(
    429,
    'rate_limited',
    `Too many quote requests: ${REQUEST_LIMITS.perSession} per shopper session an hour; retry in ${retryAfter} s.`,
    {
      class: 'quote_request',
      limit: REQUEST_LIMITS.perSession,
      retry_after: retryAfter,
      counted_by: 'shopper session',
    },
    { 'Retry-After': String(retryAfter) },
  );
}

/**
 * The upload a request is about: one of the caller's (a shopper: their own), or, named by a kept link (`link`), the
 * upload of the linked quote, whoever priced it: holding the link is what lets a shopper order it, and so ask for it.
 */
async function requestedFile(deps: Pick<Deps, 'config' | 'db' | 'now'>, auth: Auth, body: CreateBody) {
  const named = [body.file_id !== undefined && 'file_id', body.link !== undefined && 'link'].filter(Boolean);
  if (named.length !== 1)
    throw new ValidationError([
      { field: 'file_id', message: named.length ? 'give file_id or link, not both' : 'is required (or link)' },
    ]);
  if (body.file_id !== undefined) return { file: await fileForCaller(deps, auth, body.file_id), linked: null };
  for (const field of ['quote_id', 'choices', 'quantity'] as const)
    if (body[field] !== undefined && body[field] !== null)
      throw new ValidationError([{ field, message: 'is the link’s own: leave it out with link' }]);
  const linked = await keptLinkQuote(deps, auth, body.link!);
  const file = await fileById(deps.db, auth.account.id, linked.quote.file_id);
  if (!file) throw notFound('file', linked.quote.file_id);
  return { file, linked };
}

/** The choices and quantity asked for: the quote's when it names one, else the body's checked against the offer. */
async function whatIsAsked(deps: Pick<Deps, 'db'>, auth: Auth, body: CreateBody, fileId: string) {
  const quote = body.quote_id ? await quoteForCaller(deps.db, auth, body.quote_id) : null;
  if (body.quote_id && (!quote || quote.file_id !== fileId)) throw notFound('quote', body.quote_id);
  const { offer } = await effectiveOffer(deps.db, auth.account.id, auth.widgetKeyId ?? quote?.widget_key_id ?? null);
  let choices: ResolvedChoices | null = quote?.choices ?? null;
  if (!quote) {
    const resolved = resolveChoices(offer, body.choices ?? {});
    if (resolved.issues.length) throw new ValidationError(resolved.issues);
    choices = resolved.choices;
  }
  const quantity = body.quantity ?? choices?.quantity ?? offer.quantity.min;
  const problem = quantityProblem(offer, quantity);
  if (problem) throw new ValidationError([{ field: 'quantity', message: problem }]);
  return { quote, choices: choices && { ...choices, quantity }, quantity };
}

/** The shop page, which a widget may name only on the origin it calls from (as a kept quote's PDF link). */
function checkedPage(auth: Auth, page: string | undefined, origin: string | null): string | null {
  if (page === undefined) return null;
  backLink(page, '', auth.via === 'widget' ? origin : null); // throws 400 naming `page`
  return page;
}

/**
 * POST /v2/quote-requests: the request recorded, and quote_request.created written with it. A shopper's second
 * request for the same upload, while the first is unpriced, replaces it.
 */
export async function createRequest(
  deps: Pick<Deps, 'config' | 'db' | 'now' | 'limits' | 'events'>,
  auth: Auth,
  body: CreateBody,
  origin: string | null,
) {
  if (auth.via === 'widget' && !auth.shopperHash)
    throw new ValidationError([
      { field: 'X-Shopper-Token', message: 'is required to request a quote: GET /v2/file/upload-id issues one' },
    ]);
  if (!body.name.trim()) throw new ValidationError([{ field: 'name', message: 'must not be blank' }]);
  if (body.reason !== 'not_priceable' && body.reason_code)
    throw new ValidationError([{ field: 'reason_code', message: 'is only for reason not_priceable' }]);
  const { file, linked } = await requestedFile(deps, auth, body);
  const { quote, choices, quantity } = linked
    ? {
        quote: linked.quote,
        choices: linked.quote.choices && { ...linked.quote.choices, quantity: linked.quantity },
        quantity: linked.quantity,
      }
    : await whatIsAsked(deps, auth, body, file.id);
  const page = checkedPage(auth, body.page, origin);
  // Counted once the request is good: a refused one spends none of the shopper's requests.
  await limitRequests(deps, auth);
  const row: NewQuoteRequest = {
    id: newId('rq'),
    account_id: auth.account.id,
    widget_key_id: auth.widgetKeyId,
    shopper_hash: auth.shopperHash ?? null,
    token_id: auth.tokenId,
    file_id: file.id,
    file_name: file.name,
    quote_id: quote?.id ?? null,
    choices,
    quantity,
    reason: body.reason,
    reason_code: body.reason_code ?? null,
    name: body.name.trim(),
    email: body.email,
    note: (body.note ?? '').trim(),
    origin,
    page,
    created_at: deps.now(),
  };
  await deps.db.transaction(async (tx) => {
    if (row.shopper_hash) {
      const earlier = await openRequestOfShopper(tx, row.account_id, row.file_id, row.shopper_hash);
      if (earlier) await deleteQuoteRequest(tx, earlier.id);
    }
    await insertQuoteRequest(tx, row);
    await writeEvent(tx, {
      account_id: row.account_id,
      token_id: row.token_id,
      event: 'quote_request.created',
      data: {
        requestId: row.id,
        reason: row.reason,
        reasonCode: row.reason_code,
        fileId: row.file_id,
        fileName: row.file_name,
        quoteId: row.quote_id,
        choices: row.choices,
        quantity: row.quantity,
        name: row.name,
        email: row.email,
        note: row.note,
        origin: row.origin,
        page: row.page,
        widgetKeyId: row.widget_key_id,
      },
      at: row.created_at,
    });
  });
  deps.events.wake();
  return { request_id: row.id, status: 'requested' as const, created_at: row.created_at.toISOString() };
}

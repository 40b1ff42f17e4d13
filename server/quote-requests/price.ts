// The merchant prices a quote request by hand (POST /v2/quote-requests/{request_id}/price): a quote signed like
// every quote (quotes/manual.ts), a kept link at the request's quantity, quote_request.priced, in one transaction;
// then, when SMTP is configured, the link e-mailed to the shopper (mail.ts).

import { fromMinor, toMinor } from '../../shared/money.ts';
import { currencyDigits, MAX_MINOR_UNITS } from '../../shared/pricing.ts';
import type { Auth } from '../accounts/access/index.ts';
import type { Deps } from '../deps.ts';
import { fileById } from '../files/index.ts';
import { ApiError, notFound, ValidationError } from '../http/index.ts';
import { newId } from '../ids.ts';
import { keptLinkExpiry, keptLinkToken } from '../kept-quotes/index.ts';
import type { ContractSchema } from '../openapi/index.ts';
import { writeEvent } from '../outbox/index.ts';
import { resolveSettings } from '../profiles/index.ts';
import { createManualQuote, quoteById } from '../quotes/index.ts';
import { emailLink, type LinkMailPorts } from './mail.ts';
import { orderUrl, presentRequest } from './present.ts';
import { lockRequest, requestById, setPrice } from './sql.ts';

const DAY_MS = 86_400_000;

/** The price in minor units, exact: more decimals than the currency has are refused, not rounded away. */
function unitMinor(unitPrice: number, currency: string, quantity: number): number {
  const minor = toMinor(unitPrice, currency);
  const digits = currencyDigits(currency);
  if (fromMinor(minor, currency) !== unitPrice || minor < 1)
    throw new ValidationError([
      { field: 'unit_price', message: `must be an amount in ${currency} with at most ${digits} decimals, above 0` },
    ]);
  if (minor * quantity > MAX_MINOR_UNITS)
    throw new ValidationError([
      {
        field: 'unit_price',
        message: `the line (× ${quantity}) must not exceed ${fromMinor(MAX_MINOR_UNITS, currency)} ${currency}`,
      },
    ]);
  return minor;
}

export async function priceRequest(
  deps: LinkMailPorts & Pick<Deps, 'events'>,
  auth: Auth,
  id: string,
  body: ContractSchema<'QuoteRequestPrice'>,
) {
  const accountId = auth.account.id;
  const before = await requestById(deps.db, accountId, id);
  if (!before) throw notFound('quote request', id);
  const quote = (await resolveSettings(deps.db, accountId, {})).settings.quote;
  const currency = quote.currency;
  const minor = unitMinor(body.unit_price, currency, before.quantity);
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + (body.valid_days ?? quote.quote_validity_days) * DAY_MS);
  // Read before the transaction, which this must not wait on (one connection on PGlite).
  const linkExpiresAt = await keptLinkExpiry(deps, accountId, before.file_id, expiresAt);
  const source = before.quote_id ? ((await quoteById(deps.db, accountId, before.quote_id)) ?? null) : null;
  const priced = await deps.db.transaction(async (tx) => {
    const r = await lockRequest(tx, accountId, id);
    if (!r) throw notFound('quote request', id);
    const listed = await requestById(tx, accountId, id);
    if (listed?.ordered)
      throw new ApiError(
        409,
        'quote_request_ordered',
        'This request was ordered at its price: it cannot be priced again.',
        {
          quote_id: r.priced_quote_id,
        },
      );
    const file = await fileById(tx, accountId, r.file_id);
    if (!file)
      throw new ApiError(409, 'file_deleted', 'The part of this request has been deleted: it cannot be priced.', {
        file_id: r.file_id,
      });
    const quoteId = newId('qt');
    const row = await createManualQuote(tx, deps, {
      id: quoteId,
      accountId,
      widgetKeyId: r.widget_key_id,
      shopperHash: r.shopper_hash,
      file: { id: file.id, name: r.file_name, revision: file.revision },
      source,
      choices: r.choices,
      unitMinor: minor,
      currency,
      taxRate: quote.tax_rate,
      expiresAt,
      requestId: r.id,
    });
    const token = keptLinkToken(deps, quoteId, linkExpiresAt, r.quantity);
    const unitPrice = fromMinor(minor, currency);
    await setPrice(tx, r.id, { quoteId, unitPrice, currency, at: now, token, linkExpiresAt });
    await writeEvent(tx, {
      account_id: accountId,
      token_id: auth.tokenId,
      event: 'quote_request.priced',
      data: {
        requestId: r.id,
        quoteId,
        fileId: r.file_id,
        fileName: r.file_name,
        quantity: r.quantity,
        unitPrice,
        totalPrice: fromMinor(minor * r.quantity, currency),
        currency,
        expiresAt: expiresAt.toISOString(),
        signature: row.result!.signature!,
        token,
        orderUrl: orderUrl(r.page, token),
        email: r.email,
      },
      at: now,
    });
    return { request: r, token };
  });
  deps.events.wake();
  if (deps.config.smtp) await emailLink(deps, auth, priced.request, priced.token);
  return presentRequest(deps, (await requestById(deps.db, accountId, id))!);
}

// A quote request as the merchant reads it (GET /v2/quote-requests, the dashboard's Orders).

import { fromMinor, toMinor } from '../../shared/money.ts';
import type { Deps } from '../deps.ts';
import { backLink } from '../kept-quotes/index.ts';
import type { ContractSchema } from '../openapi/index.ts';
import type { ListedRequest } from './sql.ts';

/** The shop page with the link in it (`sq-quote`); null when the request named no page. */
export const orderUrl = (page: string | null, token: string) => (page ? backLink(page, token, null) : null);

export function presentRequest(deps: Pick<Deps, 'config'>, r: ListedRequest): ContractSchema<'QuoteRequestRecord'> {
  const priced = r.priced_quote_id && r.link_token && r.currency && r.unit_price !== null && r.priced_at;
  return {
    request_id: r.id,
    status: r.ordered ? 'ordered' : priced ? 'priced' : 'requested',
    reason: r.reason,
    reason_code: r.reason_code,
    file_id: r.file_id,
    file_name: r.file_name,
    file_url: `/v2/file/${r.file_id}`,
    quote_id: r.quote_id,
    choices: r.choices,
    quantity: r.quantity,
    name: r.name,
    email: r.email,
    note: r.note,
    origin: r.origin,
    page: r.page,
    widget_key_id: r.widget_key_id,
    created_at: r.created_at.toISOString(),
    price: priced
      ? {
          quote_id: r.priced_quote_id!,
          unit_price: r.unit_price!,
          // Exact: minor units × quantity, as the cart prices a line set by hand (no break, no surcharge).
          total_price: fromMinor(toMinor(r.unit_price!, r.currency!) * r.quantity, r.currency!),
          currency: r.currency!,
          priced_at: r.priced_at!.toISOString(),
          // A deleted quote no longer holds a price: its link opens nothing, from the moment it was priced.
          expires_at: (r.price_expires_at ?? r.priced_at!).toISOString(),
          token: r.link_token!,
          order_url: orderUrl(r.page, r.link_token!),
          link_expires_at: r.link_expires_at!.toISOString(),
        }
      : null,
    email_delivery: {
      configured: deps.config.smtp !== null,
      sent_at: r.emailed_at?.toISOString() ?? null,
      error: r.email_error,
    },
  };
}

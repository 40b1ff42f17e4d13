// The quote_requests table (migration 030). A request is `ordered` once a cart line of its priced quote exists: read
// here from cart_lines, never stored, so ordering through the kept link needs no step of its own.

import type { ResolvedChoices } from '../../shared/offer.ts';
import type { Queryable } from '../db/index.ts';

export interface QuoteRequestRow {
  id: string;
  account_id: string;
  widget_key_id: string | null;
  shopper_hash: string | null;
  token_id: string | null;
  file_id: string;
  file_name: string;
  quote_id: string | null;
  choices: ResolvedChoices | null;
  quantity: number;
  reason: 'no_cart' | 'not_priceable' | 'merchant_rule';
  reason_code: string | null;
  name: string;
  email: string;
  note: string;
  origin: string | null;
  page: string | null;
  priced_quote_id: string | null;
  unit_price: number | null;
  currency: string | null;
  priced_at: Date | null;
  link_token: string | null;
  link_expires_at: Date | null;
  emailed_at: Date | null;
  email_error: string | null;
  created_at: Date;
}

/** A request with what its priced quote says now: its expiry, and whether a cart line of it exists. */
export type ListedRequest = QuoteRequestRow & { price_expires_at: Date | null; ordered: boolean };

export type NewQuoteRequest = Omit<
  QuoteRequestRow,
  | 'priced_quote_id'
  | 'unit_price'
  | 'currency'
  | 'priced_at'
  | 'link_token'
  | 'link_expires_at'
  | 'emailed_at'
  | 'email_error'
>;

const SELECT = `SELECT r.*, q.expires_at AS price_expires_at,
    EXISTS (SELECT 1 FROM cart_lines c WHERE c.quote_id = r.priced_quote_id AND c.account_id = r.account_id) AS ordered
  FROM quote_requests r LEFT JOIN quotes q ON q.id = r.priced_quote_id AND q.account_id = r.account_id`;

const STATUS_SQL: Record<string, string> = {
  requested: 'r.priced_quote_id IS NULL',
  priced: `r.priced_quote_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM cart_lines c
    WHERE c.quote_id = r.priced_quote_id AND c.account_id = r.account_id)`,
  ordered: `EXISTS (SELECT 1 FROM cart_lines c WHERE c.quote_id = r.priced_quote_id AND c.account_id = r.account_id)`,
};

export async function insertQuoteRequest(tx: Queryable, r: NewQuoteRequest): Promise<void> {
  await tx.query(
    `INSERT INTO quote_requests (id, account_id, widget_key_id, shopper_hash, token_id, file_id, file_name, quote_id,
       choices, quantity, reason, reason_code, name, email, note, origin, page, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
    [
      r.id,
      r.account_id,
      r.widget_key_id,
      r.shopper_hash,
      r.token_id,
      r.file_id,
      r.file_name,
      r.quote_id,
      r.choices && JSON.stringify(r.choices),
      r.quantity,
      r.reason,
      r.reason_code,
      r.name,
      r.email,
      r.note,
      r.origin,
      r.page,
      r.created_at,
    ],
  );
}

/**
 * The same shopper's unpriced request for the same upload, locked: a second request replaces it rather than adding
 * one more (a shopper who resends, or corrects their e-mail, leaves one request).
 */
export async function openRequestOfShopper(
  tx: Queryable,
  accountId: string,
  fileId: string,
  shopperHash: string,
): Promise<QuoteRequestRow | undefined> {
  const [row] = await tx.query<QuoteRequestRow>(
    `SELECT * FROM quote_requests WHERE account_id = $1 AND file_id = $2 AND shopper_hash = $3
       AND priced_quote_id IS NULL ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
    [accountId, fileId, shopperHash],
  );
  return row;
}

export async function deleteQuoteRequest(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM quote_requests WHERE id = $1', [id]);
}

export async function requestById(db: Queryable, accountId: string, id: string): Promise<ListedRequest | undefined> {
  const [row] = await db.query<ListedRequest>(`${SELECT} WHERE r.id = $1 AND r.account_id = $2`, [id, accountId]);
  return row;
}

/** The request, locked until the transaction ends (two prices at once: one after the other). */
export async function lockRequest(tx: Queryable, accountId: string, id: string): Promise<QuoteRequestRow | undefined> {
  const [row] = await tx.query<QuoteRequestRow>(
    'SELECT * FROM quote_requests WHERE id = $1 AND account_id = $2 FOR UPDATE',
    [id, accountId],
  );
  return row;
}

export async function listRequests(
  db: Queryable,
  accountId: string,
  status: string | null,
  limit: number,
  offset: number,
): Promise<{ rows: ListedRequest[]; total: number }> {
  const only = status ? ` AND ${STATUS_SQL[status]}` : '';
  const rows = await db.query<ListedRequest>(
    `${SELECT} WHERE r.account_id = $1${only} ORDER BY r.created_at DESC, r.id DESC LIMIT $2 OFFSET $3`,
    [accountId, limit, offset],
  );
  const [count] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM quote_requests r WHERE r.account_id = $1${only}`,
    [accountId],
  );
  return { rows, total: count?.n ?? 0 };
}

export async function setPrice(
  tx: Queryable,
  id: string,
  p: { quoteId: string; unitPrice: number; currency: string; at: Date; token: string; linkExpiresAt: Date },
): Promise<void> {
  await tx.query(
    `UPDATE quote_requests SET priced_quote_id = $2, unit_price = $3, currency = $4, priced_at = $5, link_token = $6,
       link_expires_at = $7, emailed_at = NULL, email_error = NULL WHERE id = $1`,
    [id, p.quoteId, p.unitPrice, p.currency, p.at, p.token, p.linkExpiresAt],
  );
}

/** What became of the e-mail with the link: sent (at), or why not. */
export async function setEmailOutcome(
  db: Queryable,
  id: string,
  token: string,
  outcome: { at: Date } | { error: string },
): Promise<void> {
  // Only for the link it carried: a newer price's outcome is not overwritten by a slow older one.
  await db.query('UPDATE quote_requests SET emailed_at = $3, email_error = $4 WHERE id = $1 AND link_token = $2', [
    id,
    token,
    'at' in outcome ? outcome.at : null,
    'error' in outcome ? outcome.error.slice(0, 500) : null,
  ]);
}

// The cart_lines table (migration 019): every add to a cart, the shop's record of its orders.
import type { Queryable } from '../db/index.ts';

export interface CartLineRow {
  id: string;
  account_id: string;
  quote_id: string;
  file_id: string;
  added_by: string;
  widget_key_id: string | null;
  quantity: number;
  total_price: number;
  currency: string;
  /** The line as answered, JSON text. */
  line: string;
  origin: string | null;
  acknowledged_at: Date | null;
  created_at: Date;
}

export type NewCartLine = Omit<CartLineRow, 'acknowledged_at'>;

/**
 * Holds the account's quotes of a cart request until the transaction ends, in one order, so that two adds of one
 * quote run one after the other and the second sees the first.
 */
export async function lockQuotes(tx: Queryable, accountId: string, quoteIds: string[]): Promise<void> {
  await tx.query('SELECT id FROM quotes WHERE account_id = $1 AND id = ANY($2) ORDER BY id FOR UPDATE', [
    accountId,
    quoteIds,
  ]);
}

/** The latest add of a quote by one shopper session (or token), if any. */
export async function latestCartLine(
  tx: Queryable,
  quoteId: string,
  addedBy: string,
): Promise<CartLineRow | undefined> {
  const [row] = await tx.query<CartLineRow>(
    'SELECT * FROM cart_lines WHERE quote_id = $1 AND added_by = $2 ORDER BY created_at DESC, id DESC LIMIT 1',
    [quoteId, addedBy],
  );
  return row;
}

export async function insertCartLine(tx: Queryable, l: NewCartLine): Promise<void> {
  await tx.query(
    `INSERT INTO cart_lines (id, account_id, quote_id, file_id, added_by, widget_key_id, quantity, total_price,
       currency, line, origin, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      l.id,
      l.account_id,
      l.quote_id,
      l.file_id,
      l.added_by,
      l.widget_key_id,
      l.quantity,
      l.total_price,
      l.currency,
      l.line,
      l.origin,
      l.created_at,
    ],
  );
}

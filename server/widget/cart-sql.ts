// The cart_lines table (migration 019): one line per part and shopper session, the shop's record of its orders.
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

/**
 * The shopper changed the quantity of a part already in their cart: the same order, now as priced again. Its
 * acknowledgement ends, as the shop page's cart has yet to take the new quantity.
 */
export async function updateCartLine(
  tx: Queryable,
  id: string,
  l: Pick<CartLineRow, 'quantity' | 'total_price' | 'currency' | 'line' | 'origin'>,
): Promise<void> {
  await tx.query(
    `UPDATE cart_lines SET quantity = $2, total_price = $3, currency = $4, line = $5, origin = $6, acknowledged_at = NULL
     WHERE id = $1`,
    [id, l.quantity, l.total_price, l.currency, l.line, l.origin],
  );
}

/** A cart line as the shop's orders list it: the row and the quote's file name. */
export type OrderRow = CartLineRow & { file_name: string | null };

const ORDER_SELECT = `SELECT c.*, q.file_name FROM cart_lines c LEFT JOIN quotes q ON q.id = c.quote_id
  WHERE c.account_id = $1`;

/** A page of the account's orders, newest first; with quoteIds, only the lines of those quotes. */
export async function listOrders(
  db: Queryable,
  accountId: string,
  quoteIds: string[] | null,
  limit: number,
  offset: number,
): Promise<{ rows: OrderRow[]; total: number }> {
  const only = quoteIds ? ' AND c.quote_id = ANY($2)' : '';
  const params: unknown[] = quoteIds ? [accountId, quoteIds] : [accountId];
  const n = params.length;
  const rows = await db.query<OrderRow>(
    `${ORDER_SELECT}${only} ORDER BY c.created_at DESC, c.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...params, limit, offset],
  );
  const [count] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM cart_lines c WHERE c.account_id = $1${only}`,
    params,
  );
  return { rows, total: count?.n ?? 0 };
}

/** Every order of the account, oldest first, in pages of `size` (the CSV export). */
export async function* allOrders(db: Queryable, accountId: string, size = 500): AsyncGenerator<OrderRow> {
  for (let offset = 0; ; offset += size) {
    const page = await db.query<OrderRow>(`${ORDER_SELECT} ORDER BY c.created_at, c.id LIMIT $2 OFFSET $3`, [
      accountId,
      size,
      offset,
    ]);
    yield* page;
    if (page.length < size) return;
  }
}

/**
 * Marks lines as taken by the shop's cart (the first time counts). A shopper acknowledges only their own adds
 * (addedBy); the merchant (addedBy null) any of the account's. Returns the ids found.
 */
export async function acknowledgeCartLines(
  db: Queryable,
  accountId: string,
  addedBy: string | null,
  ids: string[],
  now: Date,
): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `UPDATE cart_lines SET acknowledged_at = coalesce(acknowledged_at, $4)
     WHERE account_id = $1 AND ($2::text IS NULL OR added_by = $2) AND id = ANY($3) RETURNING id`,
    [accountId, addedBy, ids, now],
  );
  return rows.map((r) => r.id);
}

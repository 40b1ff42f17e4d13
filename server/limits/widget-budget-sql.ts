// Counters of the widget budgets (migration 022): one row per widget key, scope and window.
import type { Queryable } from '../db/index.ts';
import { firstRow } from '../db/index.ts';
import type { AlertLevel } from './counters-sql.ts';

export interface BudgetWindow {
  start: Date;
  end: Date;
}

/**
 * Takes one slot of a counter whose window holds fewer than `limit`: the new count, or null when the window is
 * full. The conditional upsert locks the row, so concurrent requests in any process never take more than `limit`.
 */
export async function takeSlot(
  tx: Queryable,
  widgetKeyId: string,
  scope: string,
  window: BudgetWindow,
  limit: number,
): Promise<number | null> {
  const [row] = await tx.query<{ used: number }>(
    `INSERT INTO widget_budget_counters (widget_key_id, scope, window_start, window_end, used)
     SELECT $1, $2, $3, $4, 1 WHERE $5::int >= 1
     ON CONFLICT (widget_key_id, scope, window_start) DO UPDATE SET used = widget_budget_counters.used + 1
       WHERE widget_budget_counters.used < $5::int
     RETURNING used`,
    [widgetKeyId, scope, window.start.toISOString(), window.end.toISOString(), limit],
  );
  return row?.used ?? null;
}

/** Counts one more (no limit: completed quotes are always counted) and returns the count and the band alerted. */
export async function countSlot(tx: Queryable, widgetKeyId: string, scope: string, window: BudgetWindow) {
  const rows = await tx.query<{ used: number; alerted: AlertLevel }>(
    `INSERT INTO widget_budget_counters (widget_key_id, scope, window_start, window_end, used) VALUES ($1, $2, $3, $4, 1)
     ON CONFLICT (widget_key_id, scope, window_start) DO UPDATE SET used = widget_budget_counters.used + 1
     RETURNING used, alerted`,
    [widgetKeyId, scope, window.start.toISOString(), window.end.toISOString()],
  );
  return firstRow(rows);
}

export async function saveAlerted(
  tx: Queryable,
  widgetKeyId: string,
  scope: string,
  window: BudgetWindow,
  level: AlertLevel,
) {
  await tx.query(
    'UPDATE widget_budget_counters SET alerted = $4 WHERE widget_key_id = $1 AND scope = $2 AND window_start = $3',
    [widgetKeyId, scope, window.start.toISOString(), level],
  );
}

export async function slotsUsed(db: Queryable, widgetKeyId: string, scope: string, window: BudgetWindow) {
  const [row] = await db.query<{ used: number }>(
    'SELECT used FROM widget_budget_counters WHERE widget_key_id = $1 AND scope = $2 AND window_start = $3',
    [widgetKeyId, scope, window.start.toISOString()],
  );
  return row?.used ?? 0;
}

/** The offer's widget_budget as stored (the key's own offer, else the account's); null: neither sets one. */
export async function storedBudget(db: Queryable, accountId: string, widgetKeyId: string): Promise<unknown> {
  const [row] = await db.query<{ budget: unknown }>(
    `SELECT coalesce(k.offer, a.offer) -> 'widget_budget' AS budget
     FROM widget_keys k JOIN accounts a ON a.id = k.account_id WHERE k.id = $1 AND k.account_id = $2`,
    [widgetKeyId, accountId],
  );
  return row?.budget ?? null;
}

/** Locks the widget key's row: uploads through one key are checked against its storage budget one at a time. */
export async function lockWidgetKey(tx: Queryable, widgetKeyId: string): Promise<void> {
  await tx.query('SELECT id FROM widget_keys WHERE id = $1 FOR NO KEY UPDATE', [widgetKeyId]);
}

/** Bytes the files uploaded through the key's upload ids keep stored (originals and canonical meshes). */
export async function widgetStorageUsed(db: Queryable, widgetKeyId: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `SELECT coalesce(sum(f.stored_bytes), 0)::float8 AS n FROM upload_ids u JOIN files f ON f.id = u.file_id
     WHERE u.widget_key_id = $1 AND u.file_id IS NOT NULL`,
    [widgetKeyId],
  );
  return firstRow(rows).n;
}

export async function liveWidgetKeys(db: Queryable, accountId: string) {
  return db.query<{ id: string; name: string }>(
    'SELECT id, name FROM widget_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at, id',
    [accountId],
  );
}

/** Windows that ended more than a day before `now` are no longer read. */
export async function pruneBudgetWindows(db: Queryable, now: Date): Promise<void> {
  await db.query(`DELETE FROM widget_budget_counters WHERE window_end < $1::timestamptz - interval '1 day'`, [
    now.toISOString(),
  ]);
}

/**
 * Whether the client address or the shopper session already had a shopper quote of this key counted toward its
 * share since `since` (the month): such a shopper is no newcomer, and the share's reserve is not theirs.
 */
export async function spentShare(
  db: Queryable,
  widgetKeyId: string,
  caller: string,
  shopperHash: string,
  since: Date,
): Promise<boolean> {
  const rows = await db.query(
    `SELECT 1 FROM quotes WHERE widget_key_id = $1 AND counted AND created_at >= $2
       AND (caller = $3 OR shopper_hash = $4) LIMIT 1`,
    [widgetKeyId, since.toISOString(), caller, shopperHash],
  );
  return rows.length > 0;
}

export interface Spender {
  /** ip:<address> (IPv6 per /64), or the shopper session's hash. */
  who: string;
  quotes: number;
}

/** Who spent the key's share since `since`: the `top` client addresses and shopper sessions with most counted quotes. */
export async function shareSpenders(db: Queryable, widgetKeyId: string, since: Date, top: number) {
  const by = (column: 'caller' | 'shopper_hash') =>
    db.query<Spender>(
      `SELECT coalesce(${column}, '') AS who, count(*)::int AS quotes FROM quotes
       WHERE widget_key_id = $1 AND counted AND created_at >= $2
       GROUP BY ${column} ORDER BY quotes DESC, who LIMIT $3`,
      [widgetKeyId, since.toISOString(), top],
    );
  const [addresses, sessions] = await Promise.all([by('caller'), by('shopper_hash')]);
  return { addresses, sessions };
}

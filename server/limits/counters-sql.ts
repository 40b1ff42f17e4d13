// Usage counters, usage.alert state and the request log's writes: what limits/ counts and remembers.
import type { Queryable } from '../db/index.ts';
import { firstRow } from '../db/index.ts';

export type AlertResource = 'quotes' | 'storage';
export type AlertLevel = 0 | 80 | 100;

export interface AlertState {
  level: AlertLevel;
  period: string | null;
}

/** Who made a request: an API token, a widget key (the shop's storefront) or the dashboard's session. */
export type CallerVia = 'token' | 'widget' | 'session';
export const CALLER_VIAS: readonly CallerVia[] = ['token', 'widget', 'session'];

export interface RequestRecord {
  account_id: string;
  token_id: string | null;
  via: CallerVia;
  method: string;
  route: string;
  status: number;
  duration_ms: number;
  created_at: Date;
}

/** Successful quotes counted in one UTC month ('YYYY-MM'). */
export async function quotesUsed(db: Queryable, accountId: string, period: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    'SELECT coalesce(sum(quotes), 0)::int AS n FROM usage_counters WHERE account_id = $1 AND period = $2',
    [accountId, period],
  );
  return firstRow(rows).n;
}

/** quotesUsed of many accounts in one statement (GET /v2/user's requests arriving together share it). */
export async function quotesUsedOf(db: Queryable, accountIds: string[], period: string): Promise<Map<string, number>> {
  const rows = await db.query<{ account_id: string; n: number }>(
    `SELECT account_id, coalesce(sum(quotes), 0)::int AS n FROM usage_counters
     WHERE account_id = ANY($1::text[]) AND period = $2 GROUP BY account_id`,
    [accountIds, period],
  );
  return new Map(rows.map((r) => [r.account_id, r.n]));
}

/** Counts one quote and returns the month's new total; the row lock it takes serialises concurrent counts. */
export async function incrementQuotes(tx: Queryable, accountId: string, period: string): Promise<number> {
  const rows = await tx.query<{ quotes: number }>(
    `INSERT INTO usage_counters (account_id, period, quotes) VALUES ($1, $2, 1)
     ON CONFLICT (account_id, period) DO UPDATE SET quotes = usage_counters.quotes + 1
     RETURNING quotes`,
    [accountId, period],
  );
  return firstRow(rows).quotes;
}

/** Bytes the account's model files keep stored, originals and canonical meshes (the storage quota counts them). */
export async function storageUsed(db: Queryable, accountId: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    'SELECT coalesce(sum(stored_bytes), 0)::float8 AS n FROM files WHERE account_id = $1',
    [accountId],
  );
  return firstRow(rows).n;
}

export async function accountPlanId(db: Queryable, accountId: string): Promise<string | undefined> {
  const [row] = await db.query<{ plan: string }>('SELECT plan FROM accounts WHERE id = $1', [accountId]);
  return row?.plan;
}

export async function alertState(
  db: Queryable,
  accountId: string,
  resource: AlertResource,
): Promise<AlertState | undefined> {
  const [row] = await db.query<AlertState>(
    'SELECT level, period FROM usage_alerts WHERE account_id = $1 AND resource = $2',
    [accountId, resource],
  );
  return row;
}

/**
 * Locks the (account, resource) alert row for the rest of the transaction, creating it at level 0 first.
 * Every transaction that changes usage takes this lock before reading the usage total, so it sees the
 * total and the level that the previous holder committed.
 */
export async function lockAlertState(tx: Queryable, accountId: string, resource: AlertResource): Promise<AlertState> {
  await tx.query(
    `INSERT INTO usage_alerts (account_id, resource, level, period) VALUES ($1, $2, 0, NULL) ON CONFLICT (account_id, resource) DO NOTHING`,
    [accountId, resource],
  );
  const rows = await tx.query<AlertState>(
    'SELECT level, period FROM usage_alerts WHERE account_id = $1 AND resource = $2 FOR UPDATE',
    [accountId, resource],
  );
  return firstRow(rows);
}

export async function saveAlertState(
  tx: Queryable,
  accountId: string,
  resource: AlertResource,
  state: AlertState,
): Promise<void> {
  await tx.query(
    'UPDATE usage_alerts SET level = $3, period = $4, updated_at = now() WHERE account_id = $1 AND resource = $2',
    [accountId, resource, state.level, state.period],
  );
}

/** Accounts whose quotes alert is raised for an earlier month: they owe a level-0 alert for the new one. */
export async function staleQuoteAlerts(db: Queryable, period: string, limit = 500): Promise<string[]> {
  const rows = await db.query<{ account_id: string }>(
    `SELECT account_id FROM usage_alerts WHERE resource = 'quotes' AND level > 0 AND period IS DISTINCT FROM $1
     ORDER BY account_id LIMIT $2`,
    [period, limit],
  );
  return rows.map((r) => r.account_id);
}

const REQUEST_COLUMNS = 8;

/** One multi-row INSERT; rows of accounts deleted meanwhile are skipped rather than failing the batch. */
export async function insertRequests(db: Queryable, rows: RequestRecord[]): Promise<void> {
  if (!rows.length) return;
  const params: unknown[] = [];
  const tuples = rows.map((r, i) => {
    params.push(
      r.account_id,
      r.token_id,
      r.method,
      r.route,
      r.status,
      r.duration_ms,
      r.created_at.toISOString(),
      r.via,
    );
    const b = i * REQUEST_COLUMNS;
    return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}::integer, $${b + 6}::float8, $${b + 7}::timestamptz, $${b + 8})`;
  });
  await db.query(
    `INSERT INTO api_requests (account_id, token_id, method, route, status, duration_ms, created_at, via)
     SELECT v.* FROM (VALUES ${tuples.join(', ')}) AS v (account_id, token_id, method, route, status, duration_ms, created_at, via)
     WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = v.account_id)`,
    params,
  );
}

export async function pruneRequests(db: Queryable, retentionDays: number, now: Date): Promise<void> {
  await db.query(`DELETE FROM api_requests WHERE created_at < $2::timestamptz - make_interval(days => $1)`, [
    retentionDays,
    now,
  ]);
}

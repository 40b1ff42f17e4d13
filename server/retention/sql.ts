// The retention sweep's queries. Every cut-off is a parameter computed from the injected clock (deps.now), so
// tests move time forward instead of waiting. Each purge deletes in batches, so no statement holds locks long.
import type { Queryable } from '../db/index.ts';
import { cartedFile } from './carted.ts';

const BATCH = 500;

/** A shopper upload: made through an upload id of a widget key (an API caller's public upload is the merchant's). */
const SHOPPER_UPLOAD = `f.source = 'public' AND EXISTS (SELECT 1 FROM upload_ids u
  WHERE u.id = f.upload_id AND u.widget_key_id IS NOT NULL)`;

/** Some quote of the file is still in flight, or can still be bought at `now`: the merchant may have to print it. */
const heldByQuote = (now: string) => `EXISTS (SELECT 1 FROM quotes q WHERE q.file_id = f.id
  AND (q.status IN ('queued', 'processing') OR q.expires_at > ${now}))`;

/** An account with shopper uploads to look at, and its own retention of carted ones (null: kept). */
export interface RetentionAccount {
  id: string;
  carted_upload_retention_days: number | null;
}

/** Accounts with shopper uploads made before `madeBefore` that no quote holds at `now`: this sweep's candidates. */
export async function accountsWithShopperUploads(
  db: Queryable,
  now: Date,
  madeBefore: Date,
): Promise<RetentionAccount[]> {
  return db.query<RetentionAccount>(
    `SELECT a.id, a.carted_upload_retention_days FROM accounts a
     WHERE a.id IN (SELECT f.account_id FROM files f
                    WHERE f.created_at <= $2 AND ${SHOPPER_UPLOAD} AND NOT ${heldByQuote('$1')})`,
    [now, madeBefore],
  );
}

/** The merchant's retention of carted shopper uploads, in days; null: kept until deleted. */
export async function cartedRetentionDays(db: Queryable, accountId: string): Promise<number | null> {
  const [row] = await db.query<{ days: number | null }>(
    'SELECT carted_upload_retention_days AS days FROM accounts WHERE id = $1',
    [accountId],
  );
  return row?.days ?? null;
}

export async function setCartedRetentionDays(db: Queryable, accountId: string, days: number | null): Promise<void> {
  await db.query('UPDATE accounts SET carted_upload_retention_days = $2 WHERE id = $1', [accountId, days]);
}

/**
 * One batch of an account's shopper uploads that are due: not carted and made before `uncartedBefore`, or carted
 * and made before `cartedBefore` (null: carted ones are kept); never one a quote still holds. Oldest first.
 */
export async function dueShopperUploads(
  db: Queryable,
  accountId: string,
  cut: { now: Date; uncartedBefore: Date; cartedBefore: Date | null },
): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT f.id FROM files f
     WHERE f.account_id = $1 AND ${SHOPPER_UPLOAD} AND NOT ${heldByQuote('$2')}
       AND CASE WHEN ${cartedFile('f')} THEN f.created_at <= $4 ELSE f.created_at <= $3 END
     ORDER BY f.created_at, f.id LIMIT ${BATCH}`,
    [accountId, cut.now, cut.uncartedBefore, cut.cartedBefore],
  );
  return rows.map((r) => r.id);
}

/** What decides when the sweep may delete a file: whether it is a shopper upload, carted, and its quotes' expiry. */
export async function fileRetentionFacts(db: Queryable, accountId: string, fileId: string) {
  const [row] = await db.query<{
    created_at: Date;
    shopper_upload: boolean;
    carted: boolean;
    carted_days: number | null;
    quoted_until: Date | null;
  }>(
    `SELECT f.created_at, (${SHOPPER_UPLOAD}) AS shopper_upload, ${cartedFile('f')} AS carted,
       a.carted_upload_retention_days AS carted_days,
       (SELECT max(q.expires_at) FROM quotes q WHERE q.file_id = f.id) AS quoted_until
     FROM files f JOIN accounts a ON a.id = f.account_id WHERE f.id = $1 AND f.account_id = $2`,
    [fileId, accountId],
  );
  return row;
}

/** Runs `DELETE ... WHERE <key> IN (<select> LIMIT batch)` until a batch comes back short; returns rows deleted. */
async function deleteInBatches(db: Queryable, table: string, key: string, select: string, params: unknown[]) {
  let total = 0;
  for (;;) {
    const rows = await db.query(
      `DELETE FROM ${table} WHERE ${key} IN (${select} LIMIT ${BATCH}) RETURNING ${key}`,
      params,
    );
    total += rows.length;
    if (rows.length < BATCH) return total;
  }
}

/**
 * Upload ids (a shopper's session with the shop's widget) that ended: unused and expired before `expiredBefore`,
 * or used for a file that is gone. The id of a stored file stays: it says which shopper owns the file.
 */
export function purgeUploadIds(db: Queryable, expiredBefore: Date): Promise<number> {
  return deleteInBatches(
    db,
    'upload_ids',
    'id',
    `SELECT u.id FROM upload_ids u WHERE (u.used_at IS NULL AND u.expires_at <= $1)
       OR (u.file_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM files f WHERE f.id = u.file_id))`,
    [expiredBefore],
  );
}

/** Dashboard sign-ins that expired. */
export function purgeSessions(db: Queryable, now: Date): Promise<number> {
  return deleteInBatches(db, 'sessions', 'id_hash', 'SELECT id_hash FROM sessions WHERE expires_at <= $1', [now]);
}

/**
 * Cached slices no live quote of a stored file names (their files are gone, or their quotes were superseded,
 * failed or deleted) and no prefetch waits for, made before `madeBefore` (a newer one may be a prefetch's result
 * that the shopper has not asked for yet).
 */
export function purgeSlices(db: Queryable, madeBefore: Date): Promise<number> {
  return deleteInBatches(
    db,
    'slices',
    'key',
    `SELECT s.key FROM slices s WHERE s.created_at <= $1
       AND NOT EXISTS (SELECT 1 FROM prefetches p WHERE p.slicing_key = s.key)
       AND NOT EXISTS (SELECT 1 FROM quotes q JOIN files f ON f.id = q.file_id
         WHERE q.slicing_key = s.key AND q.deleted_at IS NULL AND q.status <> 'failed')`,
    [madeBefore],
  );
}

/** Outbox events handed to the webhooks before `dispatchedBefore`; an undispatched one always stays. */
export function purgeOutbox(db: Queryable, dispatchedBefore: Date): Promise<number> {
  return deleteInBatches(
    db,
    'outbox_events',
    'seq',
    `SELECT e.seq FROM outbox_events e WHERE e.dispatched_at IS NOT NULL AND e.dispatched_at <= $1
       ORDER BY e.seq`,
    [dispatchedBefore],
  );
}

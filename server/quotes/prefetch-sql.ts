// Prefetch rows: slices queued at a widget upload (docs/instant-price.md), claimed with a lease like quote jobs,
// deleted once their slice is stored, their file is deleted or the upload's shopper session has ended.
import type { Queryable } from '../db/index.ts';
import { FAIR_SHARE_WINDOW_S } from './claim-sql.ts';
import type { StoredResolution } from './model.ts';

export interface PrefetchRow {
  slicing_key: string;
  account_id: string;
  file_id: string;
  resolved: StoredResolution;
  rank: number;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  created_at: Date;
  expires_at: Date;
  /** The uploader, who pays for the prefetch's slicer time (docs/limits.md). */
  caller: string | null;
  predicted_s: number | null;
}

export type NewPrefetch = Pick<
  PrefetchRow,
  'slicing_key' | 'account_id' | 'file_id' | 'resolved' | 'rank' | 'expires_at' | 'caller' | 'predicted_s'
>;

/** A failed prefetch is not retried more than this: the shopper's own quote reports the failure. */
const MAX_ATTEMPTS = 2;

/** Queues prefetches whose slice is neither stored nor queued yet; returns how many were queued. */
export async function insertPrefetches(db: Queryable, rows: NewPrefetch[]): Promise<number> {
  let queued = 0;
  for (const r of rows) {
    const inserted = await db.query(
      `INSERT INTO prefetches (slicing_key, account_id, file_id, resolved, rank, expires_at, caller, predicted_s)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE NOT EXISTS (SELECT 1 FROM slices WHERE key = $1)
       ON CONFLICT (slicing_key) DO NOTHING RETURNING slicing_key`,
      [
        r.slicing_key,
        r.account_id,
        r.file_id,
        JSON.stringify(r.resolved),
        r.rank,
        r.expires_at,
        r.caller,
        r.predicted_s,
      ],
    );
    queued += inserted.length;
  }
  return queued;
}

/** Prefetches an account has waiting or running (its bound: docs/instant-price.md). */
export async function countPrefetches(db: Queryable, accountId: string, now: Date): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM prefetches WHERE account_id = $1 AND expires_at > $2',
    [accountId, now],
  );
  return row?.n ?? 0;
}

/**
 * Claims the next prefetch (the offer's default choices first, and of those the account that used the slicer
 * least recently: docs/limits.md) whose slice nobody has made or is making. Expired ones (by the injected clock
 * `now` that set their expiry; leases by the database's) are dropped on the way.
 */
export async function claimPrefetch(
  db: Queryable,
  owner: string,
  leaseMs: number,
  now: Date,
): Promise<PrefetchRow | undefined> {
  // Also gone: a prefetch whose slice a quote made meanwhile, which would otherwise hold a place under the
  // account's cap until the shopper's session ends.
  await db.query(
    `DELETE FROM prefetches p WHERE expires_at <= $2 OR attempts >= $1
       OR EXISTS (SELECT 1 FROM slices s WHERE s.key = p.slicing_key)`,
    [MAX_ATTEMPTS, now],
  );
  const [row] = await db.query<PrefetchRow>(
    `WITH next AS (
       SELECT slicing_key FROM prefetches p
       WHERE (lease_expires_at IS NULL OR lease_expires_at < now())
         AND NOT EXISTS (SELECT 1 FROM slices s WHERE s.key = p.slicing_key)
         AND NOT EXISTS (SELECT 1 FROM quotes q WHERE q.slicing_key = p.slicing_key AND q.status = 'processing'
                           AND q.lease_expires_at >= now())
       ORDER BY rank,
         (SELECT coalesce(sum(u.seconds), 0) FROM slicer_usage u
          WHERE u.account_id = p.account_id AND u.at > now() - make_interval(secs => $3::float8)),
         created_at
       LIMIT 1 FOR UPDATE OF p SKIP LOCKED)
     UPDATE prefetches p SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2::float8 / 1000),
       attempts = p.attempts + 1, started_at = now(), expected_done_at = NULL
     FROM next WHERE p.slicing_key = next.slicing_key RETURNING p.*`,
    [owner, leaseMs, FAIR_SHARE_WINDOW_S],
  );
  return row;
}

/** Keeps the lease; false when the prefetch is gone (file deleted, session over) or another worker holds it. */
export async function renewPrefetch(
  db: Queryable,
  key: string,
  owner: string,
  leaseMs: number,
  now: Date,
  expectedDoneAt: Date,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE prefetches SET lease_expires_at = now() + make_interval(secs => $3::float8 / 1000), expected_done_at = $5
     WHERE slicing_key = $1 AND lease_owner = $2 AND expires_at > $4 RETURNING slicing_key`,
    [key, owner, leaseMs, now, expectedDoneAt],
  );
  return rows.length === 1;
}

/** A file deleted or rescaled: its prefetches stop (a worker slicing one sees it at its next heartbeat). */
export async function deleteFilePrefetches(db: Queryable, fileId: string): Promise<number> {
  const rows = await db.query('DELETE FROM prefetches WHERE file_id = $1 RETURNING slicing_key', [fileId]);
  return rows.length;
}

/** Done (its slice is stored) or failed: the row goes. */
export async function deletePrefetch(db: Queryable, key: string): Promise<void> {
  await db.query('DELETE FROM prefetches WHERE slicing_key = $1', [key]);
}

/** Made way for a quote: back in the queue at once, and the interrupted try does not count. */
export async function releasePrefetch(db: Queryable, key: string, owner: string): Promise<void> {
  await db.query(
    `UPDATE prefetches SET lease_owner = NULL, lease_expires_at = NULL, attempts = greatest(attempts - 1, 0)
     WHERE slicing_key = $1 AND lease_owner = $2`,
    [key, owner],
  );
}

// The idempotency_keys table (migration 012). Times come from the caller's clock (deps.now) so that the
// 24-hour expiry and the in-flight lease are judged by one clock, the one tests can move.
import type { Queryable } from '../db/index.ts';

export interface KeyRef {
  accountId: string;
  scope: string;
  key: string;
}

export interface IdempotencyRow {
  fingerprint: string;
  state: 'in_flight' | 'done';
  status_code: number | null;
  response: string | null;
  location: string | null;
  locked_until: Date;
  expires_at: Date;
}

/**
 * Claims the key for a request: true when this request is the first (or the previous use expired, or its
 * holder's lease ran out, e.g. the process died, and the fingerprint matches). One statement, so two
 * concurrent claims cannot both win.
 */
export async function claimKey(
  db: Queryable,
  ref: KeyRef,
  fingerprint: string,
  now: Date,
  lockedUntil: Date,
  expiresAt: Date,
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO idempotency_keys (account_id, scope, key, fingerprint, state, locked_until, created_at, expires_at)
     VALUES ($1, $2, $3, $4, 'in_flight', $6, $5, $7)
     ON CONFLICT (account_id, scope, key) DO UPDATE SET
       fingerprint = EXCLUDED.fingerprint, state = 'in_flight', status_code = NULL, response = NULL, location = NULL,
       locked_until = EXCLUDED.locked_until, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
     WHERE idempotency_keys.expires_at <= $5
        OR (idempotency_keys.state = 'in_flight' AND idempotency_keys.locked_until <= $5
            AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)
     RETURNING key`,
    [ref.accountId, ref.scope, ref.key, fingerprint, now, lockedUntil, expiresAt],
  );
  return rows.length === 1;
}

export async function keyRow(db: Queryable, ref: KeyRef): Promise<IdempotencyRow | undefined> {
  const [row] = await db.query<IdempotencyRow>(
    `SELECT fingerprint, state, status_code, response, location, locked_until, expires_at FROM idempotency_keys
     WHERE account_id = $1 AND scope = $2 AND key = $3`,
    [ref.accountId, ref.scope, ref.key],
  );
  return row;
}

export async function completeKey(
  db: Queryable,
  ref: KeyRef,
  answer: { status: number; body: string; location: string | null },
): Promise<void> {
  await db.query(
    `UPDATE idempotency_keys SET state = 'done', status_code = $4, response = $5, location = $6
     WHERE account_id = $1 AND scope = $2 AND key = $3`,
    [ref.accountId, ref.scope, ref.key, answer.status, answer.body, answer.location],
  );
}

/** Gives the key up (the request ended without an answer worth replaying); a retry runs afresh. */
export async function releaseKey(db: Queryable, ref: KeyRef): Promise<void> {
  await db.query(
    `DELETE FROM idempotency_keys WHERE account_id = $1 AND scope = $2 AND key = $3 AND state = 'in_flight'`,
    [ref.accountId, ref.scope, ref.key],
  );
}

export async function purgeExpired(db: Queryable, now: Date): Promise<number> {
  const rows = await db.query('DELETE FROM idempotency_keys WHERE expires_at <= $1 RETURNING key', [now]);
  return rows.length;
}

// The delivery pump's second step: due deliveries claimed under a lease, each attempt and its outcome recorded.
import type { Queryable } from '../db/index.ts';
import type { DeliveryState } from './sql.ts';

/** Recorded as last_error when a claim takes over an expired lease. */
export const INTERRUPTED = 'attempt interrupted: the process stopped before recording an outcome';

export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  /** The webhook's account: its receiver is judged by that account's address rule. */
  account_id: string;
  event: string;
  body: string;
  signature: string;
  url: string;
  attempts: number;
  interrupted_attempts: number;
  /** True when this claim took over an expired lease (the previous attempt was interrupted). */
  reclaimed: boolean;
  lease_owner: string;
}

/**
 * Atomically leases up to `limit` due deliveries of active webhooks. A row is due when it is pending, its
 * next_attempt_at has come, and nobody holds a live lease on it. SKIP LOCKED plus the lease mean no two
 * claimers ever hold the same row. At most `perWebhook` live leases per webhook (counting other processes'),
 * so one slow receiver's backlog cannot take every slot. Leases are judged by the database clock (processes
 * must agree on them); whether a retry is due by the injected clock `now` that scheduled it (recordAttempt).
 */
export async function claimDueDeliveries(
  db: Queryable,
  o: { owner: string; limit: number; perWebhook: number; leaseMs: number; now: Date },
): Promise<ClaimedDelivery[]> {
  return db.query<ClaimedDelivery>(
    `WITH busy AS (
       SELECT webhook_id, count(*) AS n FROM webhook_deliveries
       WHERE state = 'pending' AND lease_expires_at > now() GROUP BY webhook_id
     ), ranked AS (
       SELECT d.id, d.seq, d.next_attempt_at,
              row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.next_attempt_at, d.seq) + coalesce(b.n, 0) AS slot
       FROM webhook_deliveries d
       JOIN webhooks w ON w.id = d.webhook_id AND w.active
       LEFT JOIN busy b ON b.webhook_id = d.webhook_id
       WHERE d.state = 'pending' AND d.next_attempt_at <= $6
         AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= now())
     ), picked AS (
       SELECT d.id, (d.lease_owner IS NOT NULL) AS reclaimed FROM webhook_deliveries d JOIN ranked r ON r.id = d.id
       WHERE r.slot <= $2 AND d.state = 'pending' AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= now())
       ORDER BY r.next_attempt_at, r.seq
       LIMIT $1
       FOR UPDATE OF d SKIP LOCKED
     )
     UPDATE webhook_deliveries d SET
       interrupted_attempts = d.interrupted_attempts + (CASE WHEN picked.reclaimed THEN 1 ELSE 0 END),
       last_error = CASE WHEN picked.reclaimed THEN $5 ELSE d.last_error END,
       lease_owner = $3,
       lease_expires_at = now() + $4::double precision * interval '1 millisecond',
       last_attempt_at = now()
     FROM picked, webhooks w
     WHERE d.id = picked.id AND w.id = d.webhook_id
     RETURNING d.id, d.webhook_id, w.account_id, d.event, d.body, d.signature, w.url, d.attempts, d.interrupted_attempts,
               picked.reclaimed, d.lease_owner`,
    [o.limit, o.perWebhook, o.owner, o.leaseMs, INTERRUPTED, o.now],
  );
}

export interface AttemptOutcome {
  id: string;
  owner: string;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  snippet: string | null;
  /** The longer snippet kept with this attempt's row (webhook_delivery_attempts). */
  attemptSnippet: string | null;
  /** When the attempt left (its X-Webhook-Timestamp) and how long it took. */
  sentAt: Date;
  /** When the outcome came back (injected clock): the retry delay counts from here. */
  finishedAt: Date;
  durationMs: number;
  maxAttempts: number;
  retryDelayMs: number;
}

/**
 * Records one finished attempt and releases the lease. Only the current lease holder may record: an attempt
 * whose lease was taken over (it overran) changes nothing. Returns the new state, or null when not recorded.
 */
export async function recordAttempt(db: Queryable, o: AttemptOutcome): Promise<DeliveryState | null> {
  // One statement: the attempt row exists exactly when the outcome was recorded by the lease holder.
  const [row] = await db.query<{ state: DeliveryState }>(
    `WITH recorded AS (
     UPDATE webhook_deliveries SET
       attempts = attempts + 1,
       state = CASE WHEN $3::boolean THEN 'delivered' WHEN attempts + 1 >= $7::int THEN 'failed' ELSE 'pending' END,
       last_status_code = $4::int,
       last_error = $5,
       response_snippet = $6,
       delivered_at = CASE WHEN $3::boolean THEN $12::timestamptz ELSE NULL END,
       next_attempt_at = $12::timestamptz + $8::double precision * interval '1 millisecond',
       lease_owner = NULL,
       lease_expires_at = NULL
     WHERE id = $1 AND lease_owner = $2 AND state = 'pending'
     RETURNING id, attempts, state
     ), logged AS (
       INSERT INTO webhook_delivery_attempts (delivery_id, attempt, sent_at, duration_ms, status_code, error, response_snippet)
       SELECT id, attempts, $9::timestamptz, $10::int, $4::int, $5::text, $11::text FROM recorded
     )
     SELECT state FROM recorded`,
    [
      o.id,
      o.owner,
      o.ok,
      o.statusCode,
      o.error,
      o.snippet,
      o.maxAttempts,
      o.retryDelayMs,
      o.sentAt.toISOString(),
      Math.max(0, Math.round(o.durationMs)),
      o.attemptSnippet,
      o.finishedAt.toISOString(),
    ],
  );
  return row?.state ?? null;
}

/** Closes a delivery as failed without an attempt (e.g. interrupted too often); only by the lease holder. */
export async function closeFailed(db: Queryable, id: string, owner: string, reason: string): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET state = 'failed', last_error = $3, lease_owner = NULL, lease_expires_at = NULL
     WHERE id = $1 AND lease_owner = $2 AND state = 'pending'`,
    [id, owner, reason],
  );
}

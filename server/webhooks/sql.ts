// Webhooks, their deliveries, and the outbox reads of the delivery pump.
import type { Queryable } from '../db/index.ts';
import { firstRow } from '../db/rows.ts';

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface WebhookRow {
  id: string;
  account_id: string;
  url: string;
  events: string[];
  secret: string;
  token_id: string | null;
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  account_id: string;
  event_id: string;
  event: string;
  body: string;
  signature: string;
  state: DeliveryState;
  attempts: number;
  interrupted_attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  response_snippet: string | null;
  resent_from: string | null;
  created_at: Date;
  last_attempt_at: Date | null;
  next_attempt_at: Date;
  delivered_at: Date | null;
}

export interface WebhookStatsRow {
  total: number;
  delivered: number;
  failed: number;
  pending: number;
  last_delivery_at: Date | null;
  last_attempt_at: Date | null;
}

// Never select the lease columns or, outside the pump, the secret into API code paths by accident.
const DELIVERY_COLUMNS = `id, webhook_id, account_id, event_id, event, body, signature, state, attempts, interrupted_attempts,
  last_status_code, last_error, response_snippet, resent_from, created_at, last_attempt_at, next_attempt_at, delivered_at`;

// ---- management ------------------------------------------------------------------------------------------

export async function insertWebhook(
  db: Queryable,
  w: { id: string; account_id: string; url: string; events: string[]; secret: string; token_id: string | null },
): Promise<WebhookRow> {
  const rows = await db.query<WebhookRow>(
    `INSERT INTO webhooks (id, account_id, url, events, secret, token_id) VALUES ($1, $2, $3, $4::jsonb, $5, $6) RETURNING *`,
    [w.id, w.account_id, w.url, JSON.stringify(w.events), w.secret, w.token_id],
  );
  return firstRow(rows);
}

export async function countWebhooks(db: Queryable, accountId: string): Promise<number> {
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhooks WHERE account_id = $1', [
    accountId,
  ]);
  return firstRow(rows).n;
}

export async function listWebhooks(db: Queryable, accountId: string, limit: number, offset: number) {
  const rows = await db.query<WebhookRow>(
    'SELECT * FROM webhooks WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3',
    [accountId, limit, offset],
  );
  return { rows, total: await countWebhooks(db, accountId) };
}

export async function webhookById(db: Queryable, accountId: string, id: string): Promise<WebhookRow | undefined> {
  const [row] = await db.query<WebhookRow>('SELECT * FROM webhooks WHERE id = $1 AND account_id = $2', [id, accountId]);
  return row;
}

export interface WebhookPatch {
  url?: string;
  events?: string[];
  active?: boolean;
  /** undefined: unchanged; null: unlink; a token id: link. */
  token_id?: string | null;
  secret?: string;
}

export async function updateWebhook(
  db: Queryable,
  accountId: string,
  id: string,
  p: WebhookPatch,
): Promise<WebhookRow | undefined> {
  const [row] = await db.query<WebhookRow>(
    `UPDATE webhooks SET
       url = coalesce($3, url),
       events = coalesce($4::jsonb, events),
       active = coalesce($5::boolean, active),
       token_id = CASE WHEN $6::boolean THEN $7 ELSE token_id END,
       secret = coalesce($8, secret),
       updated_at = now()
     WHERE id = $1 AND account_id = $2 RETURNING *`,
    [
      id,
      accountId,
      p.url ?? null,
      p.events ? JSON.stringify(p.events) : null,
      p.active ?? null,
      p.token_id !== undefined,
      p.token_id ?? null,
      p.secret ?? null,
    ],
  );
  return row;
}

export async function deleteWebhook(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM webhooks WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId]);
  return rows.length === 1;
}

export async function webhookStats(db: Queryable, webhookId: string): Promise<WebhookStatsRow> {
  const rows = await db.query<WebhookStatsRow>(
    `SELECT count(*)::int AS total,
            (count(*) FILTER (WHERE state = 'delivered'))::int AS delivered,
            (count(*) FILTER (WHERE state = 'failed'))::int AS failed,
            (count(*) FILTER (WHERE state = 'pending'))::int AS pending,
            max(delivered_at) AS last_delivery_at,
            max(last_attempt_at) AS last_attempt_at
     FROM webhook_deliveries WHERE webhook_id = $1`,
    [webhookId],
  );
  return firstRow(rows);
}

export async function listDeliveries(
  db: Queryable,
  webhookId: string,
  state: DeliveryState | null,
  limit: number,
  offset: number,
) {
  const rows = await db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
     WHERE webhook_id = $1 AND ($2::text IS NULL OR state = $2) ORDER BY seq DESC LIMIT $3 OFFSET $4`,
    [webhookId, state, limit, offset],
  );
  const counts = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND ($2::text IS NULL OR state = $2)',
    [webhookId, state],
  );
  return { rows, total: firstRow(counts).n };
}

export async function deliveryById(db: Queryable, webhookId: string, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2`,
    [id, webhookId],
  );
  return row;
}

export type NewDelivery = Pick<
  DeliveryRow,
  'id' | 'webhook_id' | 'account_id' | 'event_id' | 'event' | 'body' | 'signature' | 'resent_from'
>;

export async function insertDelivery(db: Queryable, d: NewDelivery): Promise<DeliveryRow> {
  const rows = await db.query<DeliveryRow>(
    `INSERT INTO webhook_deliveries (id, webhook_id, account_id, event_id, event, body, signature, resent_from)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${DELIVERY_COLUMNS}`,
    [d.id, d.webhook_id, d.account_id, d.event_id, d.event, d.body, d.signature, d.resent_from],
  );
  return firstRow(rows);
}

export interface AttemptRow {
  attempt: number;
  sent_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_snippet: string | null;
}

export async function deliveryAttempts(db: Queryable, deliveryId: string): Promise<AttemptRow[]> {
  return db.query<AttemptRow>(
    `SELECT attempt, sent_at, duration_ms, status_code, error, response_snippet FROM webhook_delivery_attempts
     WHERE delivery_id = $1 ORDER BY attempt`,
    [deliveryId],
  );
}

// ---- the pump: outbox -> deliveries ----------------------------------------------------------------------

export interface OutboxRow {
  seq: number;
  id: string;
  account_id: string;
  token_id: string | null;
  event: string;
  payload: { event: string; timestamp: string; data: unknown };
}

/** Locks a batch of undispatched events; SKIP LOCKED lets several processes take disjoint batches. */
export async function claimUndispatchedEvents(tx: Queryable, limit: number): Promise<OutboxRow[]> {
  return tx.query<OutboxRow>(
    `SELECT seq, id, account_id, token_id, event, payload FROM outbox_events
     WHERE dispatched_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
}

/** Active webhooks of the account subscribed to the event; a linked one only for events its token caused. */
export async function matchingWebhooks(tx: Queryable, e: Pick<OutboxRow, 'account_id' | 'event' | 'token_id'>) {
  return tx.query<{ id: string; secret: string }>(
    `SELECT id, secret FROM webhooks
     WHERE account_id = $1 AND active AND events ? $2 AND (token_id IS NULL OR token_id = $3)
     ORDER BY created_at, id`,
    [e.account_id, e.event, e.token_id],
  );
}

export async function markEventDispatched(tx: Queryable, seq: number): Promise<void> {
  await tx.query('UPDATE outbox_events SET dispatched_at = now() WHERE seq = $1', [seq]);
}

// ---- the pump: claiming and recording attempts ----------------------------------------------------------

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

// Webhook endpoints and their deliveries as the API shows them; the delivery pump's SQL is in dispatch-sql.ts
// (outbox → deliveries) and attempts-sql.ts (claiming deliveries and recording attempts).
import type { Queryable } from '../db/index.ts';
import { firstRow } from '../db/index.ts';
import type { WebhookEvent } from './events.ts';

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface WebhookRow {
  id: string;
  account_id: string;
  url: string;
  events: WebhookEvent[];
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
  /** A subscribed event's name, or 'ping' for the test delivery. */
  event: WebhookEvent | 'ping';
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

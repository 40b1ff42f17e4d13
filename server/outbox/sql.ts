// Outbox rows: one per event, written in the caller's transaction.
import type { components } from '../../shared/api/schema.ts';
import type { Queryable } from '../db/index.ts';
import { newId } from '../ids.ts';

type Schemas = components['schemas'];

/** Each event's `data`, as the contract's webhook bodies state it: an event cannot be written with another shape. */
export interface EventData {
  'quote.completed': Schemas['WebhookEventQuoteCompleted']['data'];
  'quote.failed': Schemas['WebhookEventQuoteFailed']['data'];
  'file.uploaded': Schemas['WebhookEventFileUploaded']['data'];
  'file.deleted': Schemas['WebhookEventFileDeleted']['data'];
  'job.status_changed': Schemas['WebhookEventJobStatusChanged']['data'];
  'widget.added_to_cart': Schemas['WebhookEventWidgetAddedToCart']['data'];
  'usage.alert': Schemas['WebhookEventUsageAlert']['data'];
  'quote_request.created': Schemas['WebhookEventQuoteRequestCreated']['data'];
  'quote_request.priced': Schemas['WebhookEventQuoteRequestPriced']['data'];
}
export type EventName = keyof EventData;

export interface OutboxEvent<E extends EventName = EventName> {
  account_id: string;
  token_id: string | null;
  event: E;
  data: EventData[E];
  /** When it happened, by the service's injected clock: the body's `timestamp`. */
  at: Date;
}

/** Writes an event row in the caller's transaction; the body is fixed here, with its timestamp. */
export async function writeEvent<E extends EventName>(db: Queryable, e: OutboxEvent<E>): Promise<string> {
  const id = newId('evt');
  const payload = { event: e.event, timestamp: e.at.toISOString(), data: e.data };
  await db.query('INSERT INTO outbox_events (id, account_id, token_id, event, payload) VALUES ($1, $2, $3, $4, $5)', [
    id,
    e.account_id,
    e.token_id,
    e.event,
    JSON.stringify(payload),
  ]);
  return id;
}

export async function eventsForAccount(db: Queryable, accountId: string, event?: string) {
  return db.query<{ id: string; event: string; token_id: string | null; payload: Record<string, unknown> }>(
    `SELECT id, event, token_id, payload FROM outbox_events WHERE account_id = $1 AND ($2::text IS NULL OR event = $2) ORDER BY seq`,
    [accountId, event ?? null],
  );
}

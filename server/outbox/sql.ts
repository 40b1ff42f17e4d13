// Outbox rows: one per event, written in the caller's transaction.
import type { Queryable } from '../db/index.ts';
import { newId } from '../ids.ts';

export interface OutboxEvent {
  account_id: string;
  token_id: string | null;
  event: string;
  data: Record<string, unknown>;
  /** When it happened, by the service's injected clock: the body's `timestamp`. */
  at: Date;
}

/** Writes an event row in the caller's transaction; the body is fixed here, with its timestamp. */
export async function writeEvent(db: Queryable, e: OutboxEvent): Promise<string> {
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

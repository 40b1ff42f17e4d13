// The delivery pump's first step: undispatched outbox events become one delivery per matching endpoint.
import type { Queryable } from '../db/index.ts';

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

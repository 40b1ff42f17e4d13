// API shapes of webhooks and deliveries. The secret appears only where the caller asks for it (creation,
// rotation); the lease of a delivery never appears, and its body and signature only in the detail of one.

import type { ContractSchema } from '../openapi/index.ts';
import { deliveryHeaders } from './attempt.ts';
import { MAX_ATTEMPTS } from './settings.ts';
import type { AttemptRow, DeliveryRow, WebhookRow, WebhookStatsRow } from './sql.ts';

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function presentWebhook(w: WebhookRow): ContractSchema<'Webhook'> {
  return {
    webhook_id: w.id,
    url: w.url,
    events: w.events,
    active: w.active,
    token_id: w.token_id,
    created_at: w.created_at.toISOString(),
    updated_at: w.updated_at.toISOString(),
  };
}

/** success_rate: delivered / (delivered + failed), over finished deliveries only; null before any finished. */
export function presentStats(s: WebhookStatsRow): ContractSchema<'WebhookStats'> {
  const finished = s.delivered + s.failed;
  return {
    total: s.total,
    delivered: s.delivered,
    failed: s.failed,
    pending: s.pending,
    success_rate: finished === 0 ? null : Math.round((s.delivered / finished) * 10_000) / 10_000,
    last_delivery_at: iso(s.last_delivery_at),
    last_attempt_at: iso(s.last_attempt_at),
  };
}

export function presentDelivery(d: DeliveryRow): ContractSchema<'WebhookDelivery'> {
  return {
    delivery_id: d.id,
    webhook_id: d.webhook_id,
    event: d.event,
    event_id: d.event_id,
    state: d.state,
    attempts: d.attempts,
    max_attempts: MAX_ATTEMPTS,
    interrupted_attempts: d.interrupted_attempts,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    response_snippet: d.response_snippet,
    resent_from: d.resent_from,
    created_at: d.created_at.toISOString(),
    last_attempt_at: iso(d.last_attempt_at),
    next_attempt_at: d.state === 'pending' ? d.next_attempt_at.toISOString() : null,
    delivered_at: iso(d.delivered_at),
  };
}

/**
 * One delivery with what was sent and what came back: the request as the latest attempt sent it (the body and
 * signature are the same on every attempt; only X-Webhook-Timestamp differs, and each attempt's sent_at is that
 * value) and every recorded attempt, oldest first.
 */
export function presentDeliveryDetail(
  d: DeliveryRow,
  hook: Pick<WebhookRow, 'url'>,
  attempts: AttemptRow[],
): ContractSchema<'WebhookDeliveryDetail'> {
  const latest = attempts.at(-1);
  const headers: Record<string, string> = deliveryHeaders(d, latest?.sent_at ?? new Date(0));
  if (!latest) delete headers['x-webhook-timestamp']; // not sent yet: there is no timestamp to show
  headers['content-length'] = String(Buffer.byteLength(d.body, 'utf8'));
  return {
    ...presentDelivery(d),
    request: { method: 'POST' as const, url: hook.url, headers, body: d.body },
    attempt_log: attempts.map((a) => ({
      attempt: a.attempt,
      sent_at: a.sent_at.toISOString(),
      duration_ms: a.duration_ms,
      status_code: a.status_code,
      error: a.error,
      response_snippet: a.response_snippet,
    })),
  };
}

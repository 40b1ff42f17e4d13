// The event names of spec 6.1: the only names a webhook may subscribe to.
export const WEBHOOK_EVENTS = [
  'quote.completed',
  'quote.failed',
  'file.uploaded',
  'file.deleted',
  'job.status_changed',
  'widget.added_to_cart',
  'usage.alert',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The exact bytes sent for an outbox payload: {event, timestamp, data} in that order, compact JSON. */
export function eventBody(payload: { event: string; timestamp: string; data: unknown }): string {
  return JSON.stringify({ event: payload.event, timestamp: payload.timestamp, data: payload.data });
}

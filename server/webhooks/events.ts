export { WEBHOOK_EVENTS, type WebhookEvent } from '../../shared/webhook-events.ts';

/** The exact bytes sent for an outbox payload: {event, timestamp, data} in that order, compact JSON. */
export function eventBody(payload: { event: string; timestamp: string; data: unknown }): string {
  return JSON.stringify({ event: payload.event, timestamp: payload.timestamp, data: payload.data });
}

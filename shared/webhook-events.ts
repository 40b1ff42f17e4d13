// The nine webhook event names (docs/webhooks.md): the only names a webhook may subscribe to (server and dashboard alike).
export const WEBHOOK_EVENTS = [
  'quote.completed',
  'quote.failed',
  'file.uploaded',
  'file.deleted',
  'job.status_changed',
  'widget.added_to_cart',
  'usage.alert',
  'quote_request.created',
  'quote_request.priced',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

// The front door of webhooks/: webhook endpoints, the outbox's delivery pump, signatures, the address guard.
// Other folders import only what is exported here (npm run check:graph).

export type { EventPump } from './dispatcher.ts';
export { createEventPump } from './dispatcher.ts';
export { webhookEvents, webhookPaths, webhookSchemas } from './openapi.ts';
export { webhooksRouter } from './router.ts';
export { generateSecret } from './signature.ts';
export { insertWebhook } from './sql.ts';

// Paths and schemas of the webhooks API (filled in by the webhook pipeline).
export const webhookPaths = {};
export const webhookSchemas = {};

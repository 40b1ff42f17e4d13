// The front door of retention/: the retention sweep (shopper uploads, expired rows) and /v2/retention.
// Other folders import only what is exported here (npm run check:graph).

export { fileKeptUntil } from './kept-until.ts';
export { retentionPaths, retentionSchemas } from './openapi.ts';
export { retentionRouter } from './router.ts';
export type { RetentionSweep } from './sweep.ts';
export { startRetentionSweep } from './sweep.ts';

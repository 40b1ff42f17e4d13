// The front door of usage/: /v2/usage, analytics and the export: reads of the request log and of quotes.
// Other folders import only what is exported here (npm run check:graph).
export { analyticsRouter } from './analytics-router.ts';
export type { Row } from './export.ts';
export { csvStream } from './export.ts';
export { usagePaths, usageSchemas, usageTags } from './openapi.ts';
export { usageRouter } from './router.ts';

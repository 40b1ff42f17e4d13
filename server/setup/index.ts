// Front door of setup/: the dashboard's first-run checklist (GET /v2/setup). Other folders import only what is
// exported here (npm run check:graph).
export { setupPaths, setupSchemas } from './openapi.ts';
export { setupRouter } from './router.ts';

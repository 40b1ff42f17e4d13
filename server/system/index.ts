// The front door of system/: health, readiness, the contract and its reference, static front-ends.
// Other folders import only what is exported here (npm run check:graph).
export { systemPaths } from './openapi.ts';
export { metricsTokenScheme, operationsPaths, operationsSchemas } from './operations-openapi.ts';
export { operationsRouter } from './operations-router.ts';
export { systemRouter } from './router.ts';
export { staticRouter } from './static-router.ts';

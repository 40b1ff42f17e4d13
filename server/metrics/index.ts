// The front door of metrics/: Prometheus metrics of this process and of the service's state, served at /metrics.
// Other folders import only what is exported here (npm run check:graph).

export type { Metrics } from './metrics.ts';
export { createMetrics } from './metrics.ts';
export { requestMetrics } from './middleware.ts';

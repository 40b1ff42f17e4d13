// The contract of the operations routes: Prometheus metrics and readiness.
export const operationsPaths = {
  '/metrics': {
    get: {
      operationId: 'getMetrics',
      tags: ['system'],
      summary: 'Prometheus metrics (text exposition format)',
      description:
        'Requests by route and status, upload bytes, slice durations and outcomes, slice cache lookups (this process); quote jobs by status, webhook deliveries and attempts, stored bytes (the whole service, read from the database). With `METRICS_TOKEN` set, it must be sent as a Bearer token. Outside demo mode (`DEMO_ACCOUNT` off) metrics need a `METRICS_TOKEN`: without one this route is not served and answers 404 `route_not_found`.',
      security: [{}, { metricsToken: [] }],
      responses: {
        '200': { description: 'Metrics', content: { 'text/plain': { schema: { type: 'string' } } } },
        '401': { $ref: '#/components/responses/Unauthorized' },
        '404': { $ref: '#/components/responses/NotFound' },
      },
    },
  },
  '/readyz': {
    get: {
      operationId: 'ready',
      tags: ['system'],
      summary: 'Readiness: can this process take traffic?',
      description:
        'The database, the file storage and (when configured) Redis answer, and the process is not shutting down. 503 otherwise, so a load balancer stops sending requests; /healthz stays the liveness check.',
      security: [],
      responses: {
        '200': {
          description: 'Ready',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Readiness' } } },
        },
        '503': {
          description: 'Not ready, or draining before a stop',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Readiness' } } },
        },
      },
    },
  },
};

const check = { type: 'string', enum: ['ok', 'unavailable', 'not_configured'] };
export const operationsSchemas = {
  Readiness: {
    type: 'object',
    required: ['status', 'checks'],
    properties: {
      status: { type: 'string', enum: ['ready', 'not_ready', 'draining'] },
      checks: {
        type: 'object',
        required: ['database', 'storage', 'redis'],
        properties: { database: check, storage: check, redis: check },
      },
    },
  },
};

export const metricsTokenScheme = {
  metricsToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'METRICS_TOKEN, when the operator set one (GET /metrics only)',
  },
};

// Paths of the service itself: liveness, this document and the readable reference.
import { ok } from '../openapi/index.ts';

export const systemPaths = {
  '/v2/openapi.json': {
    get: {
      operationId: 'getOpenApi',
      tags: ['system'],
      summary: 'This document',
      security: [],
      responses: {
        '200': {
          description: 'The OpenAPI 3.1 document',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
      },
    },
  },
  '/docs': {
    get: {
      operationId: 'getDocs',
      tags: ['system'],
      summary: 'Readable API reference',
      security: [],
      responses: { '200': { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  },
  '/healthz': {
    get: {
      operationId: 'health',
      tags: ['system'],
      summary: 'Liveness and readiness',
      security: [],
      responses: { '200': ok('Health', 'Ready') },
    },
  },
};

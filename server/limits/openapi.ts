// The rate-limit headers every response carries (withRateLimits adds them, a 429 and the operation's
// rate-limit class to every operation of the document), and the quota: allowances and their refusals.
import { bearer, errorSchema, errors, ok, timestamp } from '../openapi/index.ts';
import { widgetBudgetSchemas } from './widget-budget-openapi.ts';

const int0 = { type: 'integer', minimum: 0 };
const num0 = { type: 'number', minimum: 0 };

export const rateLimitHeaders = {
  'X-RateLimit-Limit': {
    description:
      'Requests allowed per window for this caller and endpoint class (quote, upload, read, write), from the plan.',
    schema: { type: 'integer', minimum: 1 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description:
      'Seconds until the current window ends and the count starts again (a relative number of seconds, not a timestamp).',
    schema: { type: 'integer', minimum: 0 },
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
};

const headerRefs = (...names: (keyof typeof rateLimitHeaders)[]) =>
  Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
const RATE = headerRefs('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset');
const RATE_AND_RETRY = headerRefs('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After');

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];

/**
 * Every operation: the X-RateLimit-* headers on each of its inline responses, a 429 response (any request
 * can be rate limited), and x-rate-limit-class naming the counter it is charged to: the class an operation
 * declares (the upload and quote operations; the route declares the same, which a test checks), else read or
 * write by method.
 */
export function withRateLimits<T extends Record<string, any>>(paths: T): T {
  const out = structuredClone(paths);
  for (const item of Object.values<any>(out)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const declared = op['x-rate-limit-class'];
      delete op['x-rate-limit-class']; // listed after the operation's own fields, declared or not
      op['x-rate-limit-class'] = declared ?? (['get', 'head', 'options'].includes(method) ? 'read' : 'write');
      op.responses['429'] ??= { $ref: '#/components/responses/TooManyRequests' };
      for (const response of Object.values<any>(op.responses)) {
        if (!response.$ref) response.headers = { ...RATE, ...response.headers };
      }
    }
  }
  return out;
}

/** The shared error responses carry the headers too; 429 and 503 also Retry-After. */
export function withRateLimitResponses<T extends Record<string, any>>(responses: T): T {
  const out = structuredClone(responses);
  for (const [name, response] of Object.entries<any>(out)) {
    const retry = name === 'TooManyRequests' || name === 'ServiceUnavailable';
    response.headers = { ...(retry ? RATE_AND_RETRY : RATE), ...response.headers };
  }
  return out;
}

const alertLevel = {
  type: 'integer',
  enum: [0, 80, 100],
  description: 'Level of the last usage.alert for this resource',
};
const allowance = (unit: string) => ({
  type: 'object',
  required: ['used', 'limit', 'remaining', 'percent', 'alert_level'],
  additionalProperties: false,
  properties: {
    used: { ...int0, description: `Used, in ${unit}` },
    limit: { type: 'integer', minimum: 1, description: `The plan's allowance, in ${unit}` },
    remaining: int0,
    percent: { ...num0, description: 'used / limit in percent, two decimals (may exceed 100 by quotes in flight)' },
    alert_level: alertLevel,
  },
});

export const limitsSchemas = {
  ...widgetBudgetSchemas,
  QuoteAllowanceExhaustedError: errorSchema('quote_allowance_exhausted', {
    used: { ...int0, description: 'Quotes counted this month' },
    limit: { type: 'integer', minimum: 1, description: "The plan's monthly allowance" },
    period: { type: 'string', pattern: '^\\d{4}-\\d{2}$', description: 'The UTC month' },
    resets_at: { ...timestamp, description: 'When the allowance starts again: the start of the next UTC month' },
  }),
  StorageQuotaExceededError: errorSchema('storage_quota_exceeded', {
    used_bytes: {
      ...int0,
      description: "Bytes the account's files store now (originals and canonical meshes), without this upload",
    },
    limit_bytes: { type: 'integer', minimum: 1, description: "The plan's storage allowance" },
    needed_bytes: {
      ...int0,
      description:
        'What this upload would store, as far as known when refused: the declared length before the body was read, the original before the parse, the original plus at least its canonical mesh after it',
    },
    free_at_least_bytes: {
      ...int0,
      description: 'used_bytes + needed_bytes - limit_bytes: delete at least this much to make the upload fit',
    },
  }),
  Quota: {
    type: 'object',
    required: ['plan', 'period', 'period_start', 'resets_at', 'resets_in_seconds', 'quotes', 'storage'],
    additionalProperties: false,
    properties: {
      plan: { type: 'string' },
      period: {
        type: 'string',
        pattern: '^\\d{4}-\\d{2}$',
        description: 'The current quota period: a UTC calendar month',
      },
      period_start: timestamp,
      resets_at: {
        ...timestamp,
        description: 'Start of the next UTC month, when the quote count starts again from zero',
      },
      resets_in_seconds: { type: 'integer', minimum: 1 },
      quotes: { ...allowance('successful quotes this month'), description: 'Monthly quote allowance' },
      storage: {
        ...allowance('bytes the model files store: each original and its canonical mesh'),
        description: 'Storage allowance (not monthly: deleting files frees it at once)',
      },
    },
  },
};

export const limitsPaths = {
  '/v2/quota': {
    get: {
      operationId: 'getQuota',
      tags: ['usage'],
      summary: 'Quota limits, usage and reset time for quotes and storage',
      security: bearer,
      description:
        'Quotes are counted per UTC calendar month and reset at `resets_at`; storage is the bytes the model files store (each original and the canonical mesh written from it: an instanced 3MF stores far more than its upload), freed at once by deleting files. A quote beyond the monthly allowance is refused with 402 `quote_allowance_exhausted` (`details.resets_at`), an upload beyond the storage allowance with 402 `storage_quota_exceeded` (`details.free_at_least_bytes`: how much to delete). Neither carries Retry-After; 429 means a rate limit only.',
      responses: { '200': ok('Quota', 'Allowances and usage'), ...errors(401) },
    },
  },
};

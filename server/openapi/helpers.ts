// Small builders that keep the path definitions of the OpenAPI document short and uniform.
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Security requirements used across the document. */
export const bearer = [{ bearerAuth: [] }];
export const session = [{ sessionCookie: [] }];

/** The header every state-changing dashboard call carries. */
export const csrfHeader = {
  name: 'X-CSRF-Token',
  in: 'header',
  required: true,
  description: 'The csrf_token from GET /dashboard/api/session',
  schema: { type: 'string' },
};

/** Widget calls about a shopper's uploads and quotes carry the token issued with the upload id. */
export const shopperToken = {
  name: 'X-Shopper-Token',
  in: 'header',
  required: false,
  description:
    'Widget keys: the shopper token from GET /v2/file/upload-id; a shopper sees only their own uploads and quotes',
  schema: { type: 'string', pattern: '^st_[A-Za-z0-9_-]{32,64}$' },
};

/** Safe retries of the POSTs that create something (server/idempotency/middleware.ts, docs/security.md). */
export const idempotencyKey = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Any unique string (e.g. a UUID) of 1 to 255 visible ASCII characters. A retry with the same key and the same request within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) and creates nothing; the same key with a different request is 422 `idempotency_key_reused`; a retry while the first request still runs is 409 `idempotency_key_in_use`. Keys are per account (per widget key and shopper for widget calls).',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
};

export const timestamp = { type: 'string', format: 'date-time', description: 'ISO 8601 UTC with milliseconds' };

export const jsonBody = (schema: string, description?: string, required = true) => ({
  required,
  ...(description ? { description } : {}),
  content: { 'application/json': { schema: ref(schema) } },
});

/** What every DELETE of a resource answers: its id under its own name, and `deleted: true`. */
export const deletedSchema = (idField: string, description: string) => ({
  type: 'object',
  required: [idField, 'deleted'],
  additionalProperties: false,
  properties: { [idField]: { type: 'string', description }, deleted: { const: true } },
});

export const ok = (schema: string, description: string) => ({
  description,
  content: { 'application/json': { schema: ref(schema) } },
});

const ERROR_RESPONSES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Gone',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Unprocessable',
  429: 'TooManyRequests',
  500: 'ServerError',
  503: 'ServiceUnavailable',
  507: 'InsufficientStorage',
};

export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/${ERROR_RESPONSES[s]}` }]));

export function errorResponses() {
  const describe: Record<string, string> = {
    BadRequest: 'The request is malformed or a field is invalid; `details.fields` names each field.',
    Unauthorized: 'Missing, invalid, expired or revoked credentials.',
    Forbidden: 'The credentials may not do this (e.g. a failed CSRF check).',
    NotFound: "No such resource in this account (another account's resources also answer 404), or no such route.",
    Conflict: 'The request conflicts with the current state (e.g. an email already registered).',
    Gone: 'The resource existed but can no longer be used (e.g. a used or expired upload id).',
    PayloadTooLarge:
      'The body exceeds a size limit, named in the message and in `details.max_bytes`: a file over MAX_UPLOAD_MB (`file_too_large`, refused before the body is read when the length is declared), multipart form fields over 64 KB (`fields_too_large`) or a JSON body over 256 KB (`json_too_large`).',
    UnsupportedMediaType: 'Wrong Content-Type (e.g. not multipart/form-data for an upload).',
    Unprocessable:
      'The request is well-formed but cannot be processed (e.g. a model file that is broken); `code` names the problem.',
    TooManyRequests:
      'Too many requests: a rate limit (`rate_limited`), a shopper with SLICER_QUEUE_PER_SHOPPER quotes already waiting for the slicer (`caller_queue_full`), or a caller whose slicer seconds of the last hour, failed and timed-out slices included, reached its budget (`slicer_budget_spent`, `details.used_seconds` and `details.budget_seconds`). Back off and retry after Retry-After seconds. An exhausted allowance answers 402, not 429.',
    ServerError: 'An unexpected server-side failure (logged); the error code says what failed.',
    ServiceUnavailable:
      "The server is busy: e.g. your account's slicing queue is full (`queue_full`, SLICER_QUEUE_PER_ACCOUNT quotes waiting; other accounts are not affected); see Retry-After.",
    InsufficientStorage:
      "The server's disk is short of space (`insufficient_storage`): the upload would leave less free than the operator's floor (DISK_FREE_FLOOR_MB), or its account's or widget key's files would hold more than their share of the space above it (DISK_ACCOUNT_SHARE_PERCENT, DISK_WIDGET_SHARE_PERCENT; `details.limit`: `disk_floor`, `account_disk_share` or `widget_disk_share`). Refused before the body is read when its length is declared, once it arrived, and before the parse writes the canonical mesh; retry later.",
  };
  const shared = Object.entries(describe).map(([name, description]) => [
    name,
    { description, content: { 'application/json': { schema: ref('Error') } } },
  ]);
  return Object.fromEntries([...shared, ...Object.entries(ALLOWANCE_RESPONSES)]);
}

/** The 402 answers of an exhausted allowance, each with its own details (docs/limits.md). No Retry-After. */
const ALLOWANCE_RESPONSES = {
  QuoteAllowanceExhausted: {
    description:
      'An allowance is used up; retrying does not help before `details.resets_at`: the plan\'s monthly quotes (`quote_allowance_exhausted`), or for a widget key its share of them (`widget_allowance_exhausted`) or its quotes of the day (`widget_daily_budget_exhausted`; docs/limits.md, "Widget budgets").',
    content: {
      'application/json': {
        schema: {
          anyOf: [
            'QuoteAllowanceExhaustedError',
            'WidgetAllowanceExhaustedError',
            'WidgetDailyBudgetExhaustedError',
          ].map(ref),
        },
      },
    },
  },
  StorageQuotaExceeded: {
    description:
      'The upload does not fit the storage allowance (`storage_quota_exceeded`); deleting files of at least `details.free_at_least_bytes` bytes makes room at once.',
    content: { 'application/json': { schema: ref('StorageQuotaExceededError') } },
  },
};

/** A 402 response of an operation that may hit the monthly quote allowance or the storage allowance. */
export const allowanceRefusal = (name: keyof typeof ALLOWANCE_RESPONSES) => ({
  '402': { $ref: `#/components/responses/${name}` },
});

/** An error body with a fixed code and documented details. */
export function errorSchema(code: string, details: Record<string, unknown>) {
  return {
    type: 'object',
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message', 'details'],
        additionalProperties: false,
        properties: {
          code: { const: code },
          message: { type: 'string' },
          details: { type: 'object', required: Object.keys(details), additionalProperties: false, properties: details },
        },
      },
    },
  };
}

export const pathParam = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});

export const pageParams = [
  {
    name: 'page',
    in: 'query',
    required: false,
    description: 'Page number, from 1',
    schema: { type: 'integer', minimum: 1, default: 1 },
  },
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'Items per page',
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  },
];

// The widget budgets' part of the OpenAPI document (docs/limits.md, "Widget budgets"): the offer's widget_budget,
// the refusals of a shopper's quote or upload beyond a budget, and what GET /v2/usage reports of each key.
import { DEFAULT_WIDGET_BUDGET, WIDGET_BUDGET_BOUNDS, type WidgetBudget } from '../../shared/widget-budget.ts';
import { errorSchema, ref, timestamp } from '../openapi/index.ts';

const int0 = { type: 'integer', minimum: 0 };
const period = { type: 'string', pattern: '^\\d{4}-\\d{2}$', description: 'The UTC month' };

const BUDGET_FIELDS: Record<keyof WidgetBudget, string> = {
  quotes_per_shopper_hour:
    'Quote requests one shopper session may make per UTC hour (every request counts, re-quotes of one upload included); beyond: 429 shopper_quote_budget_exhausted',
  quotes_per_day:
    "Quote requests all the key's shoppers together may make per UTC day; beyond: 402 widget_daily_budget_exhausted",
  monthly_quote_share_percent:
    "Percent of the plan's monthly quotes the key's shoppers may use, counted as the allowance counts (one per upload explored); beyond: 402 widget_allowance_exhausted",
  upload_storage_bytes:
    "Bytes the key's shoppers' uploads may keep stored, originals and canonical meshes (they count against the account's storage too); beyond: 402 widget_storage_exhausted",
};

export const widgetBudgetSchema = {
  type: 'object',
  additionalProperties: false,
  description:
    "What the widget key's shoppers may spend; a key with its own offer has its own budget. Each field left out takes its default.",
  properties: Object.fromEntries(
    Object.entries(BUDGET_FIELDS).map(([name, description]) => {
      const field = name as keyof WidgetBudget;
      const { min, max } = WIDGET_BUDGET_BOUNDS[field];
      return [
        name,
        { type: 'integer', minimum: min, maximum: max, default: DEFAULT_WIDGET_BUDGET[field], description },
      ];
    }),
  ),
};

const resetsAt = (what: string) => ({ ...timestamp, description: `When ${what} starts again` });

export const widgetBudgetSchemas = {
  ShopperQuoteBudgetExhaustedError: errorSchema('shopper_quote_budget_exhausted', {
    limit: { type: 'integer', minimum: 1, description: 'Quotes per shopper session per hour' },
    retry_after: { type: 'integer', minimum: 1, description: 'Seconds until the hour ends (also in Retry-After)' },
    resets_at: resetsAt('the shopper’s count (the next UTC hour)'),
  }),
  WidgetDailyBudgetExhaustedError: errorSchema('widget_daily_budget_exhausted', {
    limit: { type: 'integer', minimum: 1, description: 'Quotes per day of the whole shop' },
    resets_at: resetsAt('the day’s count (the next UTC day)'),
  }),
  WidgetAllowanceExhaustedError: errorSchema('widget_allowance_exhausted', {
    used: { ...int0, description: "Quotes counted against the key's share this month" },
    limit: { ...int0, description: "The key's share, in quotes" },
    newcomer_reserve: {
      ...int0,
      description:
        'The last quotes of the share, kept for shoppers whose address and session had no quote counted this month (a tenth of the share, rounded down): refused here when this shopper is not one',
    },
    share_percent: { type: 'integer', minimum: 0, maximum: 100 },
    period,
    resets_at: resetsAt('the share (the next UTC month)'),
  }),
  WidgetStorageExhaustedError: errorSchema('widget_storage_exhausted', {
    used_bytes: { ...int0, description: "Bytes the key's shoppers' uploads store now, without this one" },
    limit_bytes: { ...int0, description: "The key's upload_storage_bytes" },
    needed_bytes: {
      ...int0,
      description:
        'What this upload would store, as far as known when refused: the declared length before the body, the original before the parse, the original plus at least its canonical mesh after it',
    },
  }),
  WidgetBudgetUsage: {
    type: 'object',
    required: ['widget_key_id', 'name', 'monthly_quotes', 'quotes_today', 'quotes_per_shopper_hour', 'upload_storage'],
    additionalProperties: false,
    description: "One live widget key's budget and what its shoppers used of it",
    properties: {
      widget_key_id: { type: 'string' },
      name: { type: 'string' },
      monthly_quotes: {
        type: 'object',
        required: ['used', 'limit', 'newcomer_reserve', 'share_percent', 'period', 'top_addresses', 'top_sessions'],
        additionalProperties: false,
        description:
          "The key's share of the monthly quote allowance (used may exceed limit by quotes in flight), and who spent it",
        properties: {
          used: int0,
          limit: int0,
          newcomer_reserve: {
            ...int0,
            description:
              'The last quotes of the share, kept for shoppers whose address and session had no quote counted this month',
          },
          share_percent: { type: 'integer', minimum: 0, maximum: 100 },
          period,
          top_addresses: {
            type: 'array',
            maxItems: 5,
            description:
              'The client addresses (IPv6 per /64) with the most quotes counted against the share this month',
            items: {
              type: 'object',
              required: ['address', 'quotes'],
              additionalProperties: false,
              properties: { address: { type: 'string' }, quotes: { type: 'integer', minimum: 1 } },
            },
          },
          top_sessions: {
            type: 'array',
            maxItems: 5,
            description:
              'The shopper sessions with the most quotes counted against the share this month, each named by the first 12 characters of its hash',
            items: {
              type: 'object',
              required: ['session', 'quotes'],
              additionalProperties: false,
              properties: { session: { type: 'string' }, quotes: { type: 'integer', minimum: 1 } },
            },
          },
        },
      },
      quotes_today: {
        type: 'object',
        required: ['used', 'limit'],
        additionalProperties: false,
        description: 'Quote requests of the current UTC day',
        properties: { used: int0, limit: { type: 'integer', minimum: 1 } },
      },
      quotes_per_shopper_hour: { type: 'integer', minimum: 1 },
      upload_storage: {
        type: 'object',
        description:
          "Bytes the key's shoppers' uploads store now (originals and canonical meshes) and upload_storage_bytes",
        required: ['used_bytes', 'limit_bytes'],
        additionalProperties: false,
        properties: { used_bytes: int0, limit_bytes: int0 },
      },
    },
  },
};

const json = (...schemas: string[]) => ({
  'application/json': { schema: schemas.length === 1 ? ref(schemas[0]!) : { anyOf: schemas.map((s) => ref(s)) } },
});

/** The 429 of a quote request: a rate limit, or for a widget key a shopper's hour (docs/limits.md). */
export const quoteBudgetResponses = {
  '429': {
    description:
      "A rate limit (`rate_limited`), or for a widget key the shopper session's quotes of the hour (`shopper_quote_budget_exhausted`): retry after Retry-After seconds.",
    headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
    content: json('Error', 'ShopperQuoteBudgetExhaustedError'),
  },
};

/** The 402 of a public upload: the account's storage allowance, or the widget key's storage budget. */
export const publicUploadStorageResponse = {
  '402': {
    description:
      "The upload does not fit: the account's storage allowance (`storage_quota_exceeded`), or for an upload id a widget key fetched, the key's storage for shopper uploads (`widget_storage_exhausted`).",
    content: json('StorageQuotaExceededError', 'WidgetStorageExhaustedError'),
  },
};

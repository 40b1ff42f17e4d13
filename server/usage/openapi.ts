// Paths and schemas of usage statistics and analytics (the account's requests and quotes by day, endpoint,
// material and configuration) and the streamed export.
import { bearer, errors, ok, ref } from '../openapi/index.ts';

const date = { type: 'string', format: 'date', description: 'UTC calendar date, YYYY-MM-DD' };
const int0 = { type: 'integer', minimum: 0 };
const num0 = { type: 'number', minimum: 0 };
const money = { type: 'number', description: 'In the currency named beside it, rounded to cents' };

const query = (name: string, description: string, schema: Record<string, unknown>) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
const fromParam = query('from', 'First UTC day, inclusive (YYYY-MM-DD). Default: 29 days before `to`.', {
  type: 'string',
  format: 'date',
});
const toParam = query(
  'to',
  'Last UTC day, inclusive (YYYY-MM-DD). Default: today (UTC). At most 3660 days after `from`.',
  { type: 'string', format: 'date' },
);
const groupBy = query('group_by', 'Bucket size: UTC day, ISO week (starting Monday) or UTC month', {
  type: 'string',
  enum: ['day', 'week', 'month'],
  default: 'day',
});

const priceStats = {
  currency: { type: 'string' },
  quotes: int0,
  total: money,
  average: money,
  min: money,
  max: money,
  average_per_gram: { type: ['number', 'null'], description: 'total / grams of filament, four decimals' },
};

export const usageSchemas = {
  EndpointStats: {
    type: 'object',
    required: ['method', 'route', 'calls', 'errors', 'cancelled', 'median_ms', 'p95_ms'],
    additionalProperties: false,
    properties: {
      method: { type: 'string' },
      route: {
        type: 'string',
        description: 'Route template, e.g. /v2/file/:file_id; (unmatched) for requests that matched no route',
        examples: ['/v2/file/:file_id'],
      },
      calls: int0,
      errors: { ...int0, description: 'Responses with status 400 or above (cancelled requests excluded)' },
      cancelled: {
        ...int0,
        description: 'Requests the client abandoned before the answer (e.g. a quote the widget superseded)',
      },
      median_ms: { ...num0, description: 'Median response time in milliseconds (interpolated)' },
      p95_ms: { ...num0, description: '95th percentile response time in milliseconds (interpolated)' },
    },
  },
  MaterialUsage: {
    type: 'object',
    required: ['material', 'quotes', 'grams'],
    additionalProperties: false,
    properties: {
      material: { type: 'string' },
      quotes: int0,
      grams: { ...num0, description: 'Filament in grams, two decimals' },
      share: { ...num0, maximum: 1, description: 'Share of the completed quotes' },
    },
  },
  CallerVia: {
    type: 'string',
    enum: ['token', 'widget', 'session'],
    description:
      'Who made a request: `token` an API token, `widget` a publishable widget key (and uploads through its upload ids), `session` the dashboard',
  },
  Usage: {
    type: 'object',
    required: ['from', 'to', 'via', 'totals', 'callers', 'endpoints', 'materials', 'daily', 'widget_budgets'],
    additionalProperties: false,
    properties: {
      from: date,
      to: date,
      via: {
        type: 'array',
        items: ref('CallerVia'),
        minItems: 1,
        uniqueItems: true,
        description:
          'The callers counted in `totals` (calls, errors, cancelled), `endpoints` and `daily` (calls, errors, cancelled): the `via` parameter, or all three',
      },
      callers: {
        type: 'array',
        minItems: 3,
        maxItems: 3,
        description:
          'Calls per caller kind over the range, whatever `via` says: token, widget, session, in that order, zeros included',
        items: {
          type: 'object',
          required: ['via', 'calls', 'errors', 'cancelled'],
          additionalProperties: false,
          properties: { via: ref('CallerVia'), calls: int0, errors: int0, cancelled: int0 },
        },
      },
      totals: {
        type: 'object',
        required: ['calls', 'errors', 'cancelled', 'quotes', 'grams'],
        additionalProperties: false,
        properties: {
          calls: int0,
          errors: int0,
          cancelled: int0,
          quotes: { ...int0, description: 'Completed quotes' },
          grams: num0,
        },
      },
      endpoints: { type: 'array', items: ref('EndpointStats'), description: 'Per route and method, most called first' },
      materials: { type: 'array', items: ref('MaterialUsage'), description: 'From completed quotes, most used first' },
      daily: {
        type: 'array',
        description: 'One entry per UTC day of the range, zeros included',
        items: {
          type: 'object',
          required: ['date', 'calls', 'errors', 'cancelled', 'quotes', 'grams'],
          additionalProperties: false,
          properties: { date, calls: int0, errors: int0, cancelled: int0, quotes: int0, grams: num0 },
        },
      },
      widget_budgets: {
        type: 'array',
        items: ref('WidgetBudgetUsage'),
        description:
          "Each live widget key's budget and what its shoppers used of it now (this UTC month, day), whatever the range",
      },
    },
  },
  QuoteAnalytics: {
    type: 'object',
    required: [
      'from',
      'to',
      'group_by',
      'totals',
      'prices',
      'materials',
      'material_trends',
      'conversion',
      'orders',
      'quote_requests',
    ],
    additionalProperties: false,
    properties: {
      from: date,
      to: date,
      group_by: { type: 'string', enum: ['day', 'week', 'month'] },
      conversion: {
        type: 'object',
        description:
          "Shoppers' quotes → orders → carts, from the shop's orders (every add to a cart through a widget key). An order no cart took (`unacknowledged`) is ordered, not carted.",
        required: ['quoted_uploads', 'ordered_uploads', 'carted_uploads', 'cart_lines', 'order_rate', 'cart_rate'],
        additionalProperties: false,
        properties: {
          quoted_uploads: {
            ...int0,
            description:
              'Uploads a shopper had priced through a widget key, completed in the range: the quotes of one upload (materials, qualities tried) count once',
          },
          ordered_uploads: {
            ...int0,
            description:
              'Of those, the uploads added through the widget at least once, whether or not a cart took them',
          },
          carted_uploads: {
            ...int0,
            description: "Of those, the uploads of which the shop page's cart took at least one line (acknowledged)",
          },
          cart_lines: {
            ...int0,
            description: 'Lines added through the widget in the range (one per part added), in a cart or not',
          },
          order_rate: {
            type: ['number', 'null'],
            description: 'ordered_uploads / quoted_uploads, four decimals; null without quoted uploads',
          },
          cart_rate: {
            type: ['number', 'null'],
            description: 'carted_uploads / quoted_uploads, four decimals; null without quoted uploads',
          },
        },
      },
      orders: {
        type: 'array',
        description:
          'The orders added in the range (every cart line, as the Orders page lists them), per currency, most lines first: the lines and the order value (the sum of their line totals), split into the lines a cart took and those no cart took',
        items: {
          type: 'object',
          required: ['currency', 'lines', 'in_cart_lines', 'not_in_cart_lines', 'total', 'in_cart', 'not_in_cart'],
          additionalProperties: false,
          properties: {
            currency: { type: 'string' },
            lines: int0,
            in_cart_lines: { ...int0, description: "Lines the shop page's cart took (acknowledged)" },
            not_in_cart_lines: {
              ...int0,
              description: 'Lines no cart took: the widget asked the shopper for a quote request (`quote_requests`)',
            },
            total: { ...num0, description: 'Order value: the sum of the line totals (total_price), exact' },
            in_cart: { ...num0, description: 'The sum of the line totals a cart took' },
            not_in_cart: { ...num0, description: 'The sum of the line totals no cart took' },
          },
        },
      },
      quote_requests: {
        type: 'object',
        description:
          'Extension. The quote requests shoppers sent in the range (GET /v2/quote-requests lists them), apart from the orders: by status and by reason',
        required: ['requests', 'requested', 'priced', 'ordered', 'by_reason'],
        additionalProperties: false,
        properties: {
          requests: int0,
          requested: { ...int0, description: 'Waiting for your price' },
          priced: { ...int0, description: 'Priced: the link to order is out, not ordered yet' },
          ordered: { ...int0, description: 'Ordered from their link (a cart line of the priced quote exists)' },
          by_reason: {
            type: 'object',
            required: ['no_cart', 'not_priceable', 'merchant_rule'],
            additionalProperties: false,
            properties: { no_cart: int0, not_priceable: int0, merchant_rule: int0 },
          },
        },
      },
      totals: {
        type: 'object',
        required: ['completed', 'failed', 'cached', 'deleted', 'grams', 'print_time_s', 'success_rate'],
        additionalProperties: false,
        properties: {
          completed: int0,
          failed: int0,
          cached: { ...int0, description: 'Completed from a cached slice' },
          deleted: {
            ...int0,
            description: 'Finished quotes (completed or failed) since deleted from history (still counted)',
          },
          grams: num0,
          print_time_s: num0,
          success_rate: { type: ['number', 'null'], description: 'completed / (completed + failed), four decimals' },
        },
      },
      prices: {
        type: 'array',
        description: 'Per currency',
        items: {
          type: 'object',
          required: Object.keys(priceStats),
          additionalProperties: false,
          properties: priceStats,
        },
      },
      materials: { type: 'array', items: ref('MaterialUsage') },
      material_trends: {
        type: 'array',
        items: {
          type: 'object',
          required: ['period_start', 'period', 'material', 'quotes', 'grams'],
          additionalProperties: false,
          properties: {
            period_start: date,
            period: { type: 'string', description: 'Day, ISO week (2026-W47) or month (2026-11)' },
            material: { type: 'string' },
            quotes: int0,
            grams: num0,
          },
        },
      },
    },
  },
  PopularAnalytics: {
    type: 'object',
    required: ['from', 'to', 'limit', 'materials', 'colors', 'printers', 'configurations'],
    additionalProperties: false,
    properties: {
      from: date,
      to: date,
      limit: { type: 'integer', minimum: 1, maximum: 100 },
      materials: { type: 'array', items: ref('MaterialUsage') },
      colors: {
        type: 'array',
        items: {
          type: 'object',
          required: ['material', 'color', 'quotes'],
          additionalProperties: false,
          properties: { material: { type: 'string' }, color: { type: 'string' }, quotes: int0 },
        },
      },
      printers: {
        type: 'array',
        items: {
          type: 'object',
          required: ['printer', 'quotes'],
          additionalProperties: false,
          properties: { printer: { type: 'string' }, quotes: int0 },
        },
      },
      configurations: {
        type: 'array',
        description:
          'Printer plus the resolved settings that shape a print most; null where a quote did not record one',
        items: {
          type: 'object',
          required: ['printer', 'layer_height', 'fill_density', 'infill_pattern', 'support_material', 'quotes'],
          additionalProperties: false,
          properties: {
            printer: { type: 'string' },
            layer_height: { type: ['number', 'null'] },
            fill_density: { type: ['number', 'null'] },
            infill_pattern: { type: ['string', 'null'] },
            support_material: { type: ['boolean', 'null'] },
            quotes: int0,
          },
        },
      },
    },
  },
  CostTrends: {
    type: 'object',
    required: ['from', 'to', 'group_by', 'series'],
    additionalProperties: false,
    properties: {
      from: date,
      to: date,
      group_by: { type: 'string', enum: ['day', 'week', 'month'] },
      series: {
        type: 'array',
        description: 'One entry per bucket and currency that has completed quotes, oldest first',
        items: {
          type: 'object',
          required: ['period_start', 'period', ...Object.keys(priceStats), 'grams'],
          additionalProperties: false,
          properties: { period_start: date, period: { type: 'string' }, ...priceStats, grams: num0 },
        },
      },
    },
  },
  AnalyticsExport: {
    type: 'object',
    required: ['dataset', 'from', 'to', 'columns', 'rows', 'count'],
    additionalProperties: false,
    properties: {
      dataset: { type: 'string', enum: ['quotes', 'usage'] },
      from: { type: ['string', 'null'], format: 'date' },
      to: { type: ['string', 'null'], format: 'date' },
      columns: { type: 'array', items: { type: 'string' } },
      rows: {
        type: 'array',
        items: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } },
      },
      count: { ...int0, description: 'Number of rows; written last, so a truncated download is invalid JSON' },
    },
  },
};

export const usagePaths = {
  '/v2/usage': {
    get: {
      operationId: 'getUsage',
      tags: ['usage'],
      summary: 'Endpoint statistics, material usage and daily trends',
      security: bearer,
      description:
        'For the account (all its tokens, its widget keys and its dashboard sessions, told apart in `callers` and selectable with `via`), over UTC days `from`..`to` inclusive (default: the last 30 days, today included). Endpoint statistics come from the request log (written in batches within seconds); material usage and quotes per day from completed quotes, including those deleted from history.',
      parameters: [
        fromParam,
        toParam,
        {
          name: 'via',
          in: 'query',
          required: false,
          description:
            'Count only requests of these callers in `endpoints`, `daily` and the call totals: a comma-separated list of `token`, `widget`, `session` (default: all). The dashboard shows `token,widget`: API calls without its own. An unknown name answers 400 naming `via`.',
          schema: { type: 'string', examples: ['token,widget'] },
        },
      ],
      responses: { '200': ok('Usage', 'Usage for the range'), ...errors(400, 401) },
    },
  },
  '/v2/analytics/quotes': {
    get: {
      operationId: 'getQuoteAnalytics',
      tags: ['analytics'],
      summary: 'Quote totals, average prices and material usage trends',
      security: bearer,
      description:
        'Completed and failed quotes by `finished_at` in the UTC range (default: the last 30 days). Prices per currency. Quotes deleted from history are counted.',
      parameters: [fromParam, toParam, groupBy],
      responses: { '200': ok('QuoteAnalytics', 'Quote statistics'), ...errors(400, 401) },
    },
  },
  '/v2/analytics/popular': {
    get: {
      operationId: 'getPopularAnalytics',
      tags: ['analytics'],
      summary: 'Most used materials, colours, printers and printer configurations',
      security: bearer,
      parameters: [
        fromParam,
        toParam,
        query('limit', 'Entries per list', { type: 'integer', minimum: 1, maximum: 100, default: 10 }),
      ],
      responses: { '200': ok('PopularAnalytics', 'Rankings, most used first'), ...errors(400, 401) },
    },
  },
  '/v2/analytics/cost-trends': {
    get: {
      operationId: 'getCostTrends',
      tags: ['analytics'],
      summary: 'Quote prices over time per day, ISO week or month',
      security: bearer,
      parameters: [groupBy, fromParam, toParam],
      responses: { '200': ok('CostTrends', 'Price statistics per bucket and currency'), ...errors(400, 401) },
    },
  },
  '/v2/analytics/export': {
    get: {
      operationId: 'exportAnalytics',
      tags: ['analytics'],
      summary: 'Export quotes or daily usage as CSV or JSON (streamed)',
      security: bearer,
      description:
        '`dataset=quotes`: one row per quote (every status, deleted ones included, with `deleted_at`), by `created_at`. `dataset=usage`: one row per UTC day with activity. Without `from`/`to` everything is exported. CSV follows RFC 4180 (header row, CRLF line ends); text cells starting with `=`, `+`, `-` or `@` get a leading apostrophe so spreadsheets do not run them as formulas. The body is streamed from the database page by page.',
      parameters: [
        query('format', 'Output format', { type: 'string', enum: ['csv', 'json'], default: 'csv' }),
        query('dataset', 'What to export', { type: 'string', enum: ['quotes', 'usage'], default: 'quotes' }),
        query('from', 'First UTC day, inclusive (YYYY-MM-DD); default: no lower bound when `to` is absent too', {
          type: 'string',
          format: 'date',
        }),
        query('to', 'Last UTC day, inclusive (YYYY-MM-DD)', { type: 'string', format: 'date' }),
      ],
      responses: {
        '200': {
          description: 'The export, as an attachment',
          content: {
            'text/csv': { schema: { type: 'string' } },
            'application/json': { schema: ref('AnalyticsExport') },
          },
        },
        ...errors(400, 401),
      },
    },
  },
};

export const usageTags = [
  { name: 'usage', description: 'Quotas and usage statistics' },
  { name: 'analytics', description: 'Quote analytics and exports' },
];

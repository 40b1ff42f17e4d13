// Paths and schemas of the webhooks API, and the schemas of the event bodies we POST to receivers
// (documented here so receivers and the engineers who emit events share one definition; see docs/webhooks.md).
import {
  bearer,
  errors,
  idempotencyKey,
  jsonBody,
  ok,
  pageParams,
  pathParam,
  ref,
  timestamp,
} from '../openapi/index.ts';
import { WEBHOOK_EVENTS } from './events.ts';

const nullableTimestamp = { oneOf: [timestamp, { type: 'null' }] };
const id = (prefix: string) => ({
  type: 'string',
  pattern: `^${prefix}_[a-z0-9]+$`,
  examples: [`${prefix}_3k9x0b2m7q1z8w4v6n5c`],
});
const webhookId = pathParam('webhook_id', 'A webhook id (wh_...)');
const deliveryId = pathParam('delivery_id', 'A delivery id (dlv_...)');
/** When each event is sent (docs/webhooks.md). */
const EVENT_WHEN: Record<string, string> = {
  'quote.completed': 'A quote finished successfully, synchronous or asynchronous.',
  'quote.failed':
    'A well-formed quote request could not be quoted: refused settings, price or build volume (422), or a failed slice; the quote is in the history with its error.',
  'file.uploaded': 'A model file was uploaded, with a token or through a public upload id.',
  'file.deleted': 'A model file was deleted.',
  'job.status_changed': 'An asynchronous quote job changed state; synchronous quotes send none.',
  'widget.added_to_cart': 'A shopper added a model to the cart through the widget.',
  'usage.alert': 'Quote or storage usage reached 80 % or 100 % of the allowance, or fell back below 80 %.',
  'quote_request.created':
    'Extension. A shopper asked for a quote the widget could not give or sell at once (docs/widget.md, "Request a quote").',
  'quote_request.priced': 'Extension. You priced a quote request: the signed quote and the link to order it.',
  ping: 'A test delivery you asked for ("Send a test event" in the dashboard, or POST /v2/webhooks/{webhook_id}/ping); sent to any webhook whatever its events. Answer with any 2xx.',
};

const tags = ['webhooks'];

const url = {
  type: 'string',
  description:
    'Receiver endpoint (at most 2048 characters); must satisfy the endpoint rules (http/https, no credentials, public address only), checked by the URL guard so each refusal carries its rule as the error code',
  examples: ['https://shop.example.com/hooks/slicequote'],
};
const events = {
  type: 'array',
  minItems: 1,
  maxItems: 20,
  items: ref('WebhookEventName'),
  description: 'Event names to receive; duplicates are ignored',
};
const secret = { type: 'string', minLength: 16, maxLength: 256, description: 'HMAC-SHA256 signing secret' };
const tokenLink = {
  oneOf: [id('tok'), { type: 'null' }],
  description: 'Fire only for requests made with this API token of the account; null: for every request of the account',
};

const webhookProperties = {
  webhook_id: id('wh'),
  url: { type: 'string' },
  events: { type: 'array', items: ref('WebhookEventName') },
  active: {
    type: 'boolean',
    description: 'Inactive webhooks get no new deliveries; their pending deliveries wait until reactivated',
  },
  token_id: { oneOf: [id('tok'), { type: 'null' }] },
  created_at: timestamp,
  updated_at: timestamp,
};
const webhookRequired = ['webhook_id', 'url', 'events', 'active', 'token_id', 'created_at', 'updated_at'];

// ---- event bodies --------------------------------------------------------------------------------------

const eventEnvelope = (event: string, data: Record<string, unknown>, description: string) => ({
  type: 'object',
  description: `${description} Receivers must ignore fields they do not know; fields may be added.`,
  required: ['event', 'timestamp', 'data'],
  properties: { event: { const: event }, timestamp, data },
});

const quoteResult = {
  type: 'object',
  description: 'Quote result',
  required: [
    'quote_id',
    'total_price',
    'currency',
    'estimated_time',
    'estimated_time_seconds',
    'filament_weight',
    'printInfo',
  ],
  properties: {
    quote_id: { type: 'string' },
    total_price: { type: 'number' },
    currency: { type: 'string' },
    estimated_time: { type: 'string', description: 'Human readable duration, e.g. "1h 23m"' },
    estimated_time_seconds: { type: 'number' },
    filament_weight: { type: 'number', description: 'grams' },
    printInfo: {
      type: 'object',
      required: ['technology', 'material', 'color'],
      properties: { technology: { type: 'string' }, material: { type: 'string' }, color: { type: 'string' } },
    },
  },
};

const quoteEventData = (status: string, result: object, error: object) => ({
  type: 'object',
  required: ['jobId', 'quoteId', 'status', 'fileName', 'fileId', 'processingTimeMs', 'cached', 'result', 'error'],
  properties: {
    jobId: { type: 'string', description: 'The job id (every quote is a job)' },
    quoteId: { type: 'string', description: 'Equals jobId' },
    status: { const: status },
    fileName: { type: 'string' },
    fileId: { type: 'string' },
    processingTimeMs: { type: 'number', minimum: 0 },
    cached: { type: 'boolean', description: 'The slice statistics were reused from an identical earlier slice' },
    result,
    error,
  },
});

const eventSchemas = {
  WebhookEventQuoteCompleted: eventEnvelope(
    'quote.completed',
    quoteEventData('completed', quoteResult, { type: 'null' }),
    'Body of `quote.completed`.',
  ),
  WebhookEventQuoteFailed: eventEnvelope(
    'quote.failed',
    quoteEventData(
      'failed',
      { type: 'null' },
      {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string' }, message: { type: 'string' } },
      },
    ),
    'Body of `quote.failed`: the same fields as quote.completed, with result null and error set. Sent for every well-formed quote request for a file of the caller that cannot be quoted, synchronous or asynchronous: settings refused (unknown_material, settings_conflict, material_price_missing, currency_not_offered), price_out_of_range, exceeds_build_volume, or a slicer failure. Not for refusals of the request itself (a malformed body or forbidden field: 400; no such file, rate limit, exhausted allowance, full queue).',
  ),
  WebhookEventFileUploaded: eventEnvelope(
    'file.uploaded',
    {
      type: 'object',
      required: ['fileId', 'fileName', 'format', 'sizeBytes', 'sha256', 'source', 'measurements'],
      properties: {
        fileId: { type: 'string' },
        fileName: { type: 'string' },
        format: { type: 'string', enum: ['stl', 'obj', '3mf'] },
        sizeBytes: { type: 'integer' },
        sha256: { type: 'string' },
        source: { type: 'string', enum: ['api', 'public'] },
        measurements: { $ref: '#/components/schemas/Measurements', description: 'As in the File record' },
      },
    },
    'Body of `file.uploaded`.',
  ),
  WebhookEventFileDeleted: eventEnvelope(
    'file.deleted',
    {
      type: 'object',
      required: ['fileId', 'fileName', 'sizeBytes'],
      properties: { fileId: { type: 'string' }, fileName: { type: 'string' }, sizeBytes: { type: 'integer' } },
    },
    'Body of `file.deleted`.',
  ),
  WebhookEventJobStatusChanged: eventEnvelope(
    'job.status_changed',
    {
      type: 'object',
      required: ['jobId', 'quoteId', 'fileId', 'fileName', 'status', 'previousStatus', 'progress', 'attempts'],
      properties: {
        jobId: { type: 'string' },
        quoteId: { type: 'string', description: 'Equals jobId' },
        fileId: { type: 'string' },
        fileName: { type: 'string' },
        status: { enum: ['queued', 'processing', 'completed', 'failed'] },
        previousStatus: {
          type: ['string', 'null'],
          enum: ['queued', 'processing', 'completed', 'failed', null],
          description: 'null for the first event (queued)',
        },
        progress: { type: 'integer', minimum: 0, maximum: 100 },
        attempts: { type: 'integer', minimum: 0, description: 'How many times a worker has taken the job up' },
      },
    },
    'Body of `job.status_changed`, sent on every transition of an asynchronous quote job (POST /v2/file/quote/{file_id}/async answered 202): queued, processing, completed or failed. A synchronous quote sends none, whether it was sliced or answered from the cache (its caller has the outcome in the response; quote.completed or quote.failed still fire).',
  ),
  WebhookEventWidgetAddedToCart: eventEnvelope(
    'widget.added_to_cart',
    {
      type: 'object',
      required: [
        'cartLineId',
        'widgetKeyId',
        'fileId',
        'fileName',
        'fileRevision',
        'placement',
        'quoteId',
        'quantity',
        'material',
        'color',
        'choices',
        'unitPrice',
        'subtotal',
        'minimumLineAdjustment',
        'totalPrice',
        'currency',
        'expiresAt',
        'signature',
        'origin',
        'quote',
      ],
      properties: {
        cartLineId: {
          type: 'string',
          pattern: '^cl_',
          description: 'The add to the cart this event reports (sent once per add; a replayed add sends none)',
        },
        widgetKeyId: { type: ['string', 'null'], description: 'null when reported with an API token' },
        fileId: { type: 'string' },
        fileName: { type: 'string' },
        fileRevision: {
          type: 'integer',
          minimum: 1,
          description: "The file's revision that was priced (every rescale makes a new one)",
        },
        placement: {
          oneOf: [{ $ref: '#/components/schemas/Placement' }, { type: 'null' }],
          description:
            'The unit, scale and orientation that were priced; null only for quotes made before placements were kept',
        },
        quoteId: { type: 'string' },
        quantity: { type: 'integer', minimum: 1 },
        material: { type: 'string' },
        color: { type: ['string', 'null'] },
        choices: { $ref: '#/components/schemas/ResolvedChoices' },
        unitPrice: { type: 'number' },
        subtotal: { type: 'number', description: 'unitPrice × quantity' },
        // Not required: events recorded before breaks and lead times (a resend sends them as recorded) lack them.
        discountPercent: { type: 'number', minimum: 0, description: "The offer's quantity break applied; 0: none" },
        quantityDiscount: { type: 'number', minimum: 0, description: 'subtotal × discountPercent, half up' },
        leadTimeSurcharge: {
          type: 'number',
          minimum: 0,
          description:
            "(subtotal − quantityDiscount) × the lead time's surcharge_percent, half up, + its surcharge_amount",
        },
        leadTime: {
          type: ['object', 'null'],
          required: ['id', 'label', 'business_days', 'ships_by'],
          description:
            'The lead time chosen (also in the signature) and the day the part ships, business days from the add (UTC, Monday to Friday); null when the offer has no lead-time options',
          properties: {
            id: { type: 'string' },
            label: { type: 'string' },
            business_days: { type: 'integer', minimum: 0 },
            ships_by: { type: 'string', format: 'date' },
          },
        },
        minimumLineAdjustment: {
          type: 'number',
          minimum: 0,
          description: "Raises the line to the offer's minimum_line_price",
        },
        totalPrice: {
          type: 'number',
          description:
            'subtotal − quantityDiscount + leadTimeSurcharge + minimumLineAdjustment: what to charge for the line',
        },
        expiresAt: {
          type: 'string',
          format: 'date-time',
          description: 'Refuse the order after this; re-quote instead',
        },
        signature: { $ref: '#/components/schemas/QuoteSignature' },
        currency: { type: 'string' },
        origin: { type: ['string', 'null'], description: 'Origin of the shop page the widget was on' },
        quote: {
          ...quoteResult,
          description: 'The authoritative quote from the database: trust this, not prices seen in the browser',
        },
      },
    },
    'Body of `widget.added_to_cart`. unitPrice is the quote total for one part; totalPrice = unitPrice × quantity − quantityDiscount + leadTimeSurcharge + minimumLineAdjustment (exact minor units). Verify `signature` with your quote signing secret before charging (docs/quote-signatures.md).',
  ),
  WebhookEventQuoteRequestCreated: eventEnvelope(
    'quote_request.created',
    {
      type: 'object',
      required: [
        'requestId',
        'reason',
        'reasonCode',
        'fileId',
        'fileName',
        'quoteId',
        'choices',
        'quantity',
        'name',
        'email',
        'note',
        'origin',
        'page',
        'widgetKeyId',
      ],
      properties: {
        requestId: { type: 'string', pattern: '^rq_' },
        reason: {
          type: 'string',
          enum: ['no_cart', 'not_priceable', 'merchant_rule'],
          description:
            "no_cart: no cart on the page took the line; not_priceable: no automatic price (reasonCode says why); merchant_rule: above the offer's request_quote_above",
        },
        reasonCode: { type: ['string', 'null'], description: 'The error code the part failed with (not_priceable)' },
        fileId: { type: 'string' },
        fileName: { type: 'string' },
        quoteId: { type: ['string', 'null'], description: 'The automatic quote it concerns, if any' },
        choices: { $ref: '#/components/schemas/ResolvedChoices' },
        quantity: { type: 'integer', minimum: 1 },
        name: { type: 'string' },
        email: { type: 'string' },
        note: { type: 'string' },
        origin: { type: ['string', 'null'] },
        page: { type: ['string', 'null'], description: 'The shop page it was sent from' },
        widgetKeyId: { type: ['string', 'null'] },
      },
    },
    'Extension. Body of `quote_request.created`: a shopper asked you to price a part (docs/widget.md, "Request a quote"). Price it in the dashboard (Orders) or with POST /v2/quote-requests/{request_id}/price.',
  ),
  WebhookEventQuoteRequestPriced: eventEnvelope(
    'quote_request.priced',
    {
      type: 'object',
      required: [
        'requestId',
        'quoteId',
        'fileId',
        'fileName',
        'quantity',
        'unitPrice',
        'totalPrice',
        'currency',
        'expiresAt',
        'signature',
        'token',
        'orderUrl',
        'email',
      ],
      properties: {
        requestId: { type: 'string', pattern: '^rq_' },
        quoteId: { type: 'string', description: 'The quote priced by hand (`manual: true`)' },
        fileId: { type: 'string' },
        fileName: { type: 'string' },
        quantity: { type: 'integer', minimum: 1 },
        unitPrice: { type: 'number' },
        totalPrice: { type: 'number', description: 'unitPrice × quantity' },
        currency: { type: 'string' },
        expiresAt: { type: 'string', format: 'date-time', description: 'Until when the price holds' },
        signature: { $ref: '#/components/schemas/QuoteSignature' },
        token: { type: 'string', description: 'The kept link the shopper orders from' },
        orderUrl: { type: ['string', 'null'], description: 'The shop page with the link in it; null: none named' },
        email: { type: 'string', description: "The shopper's e-mail" },
      },
    },
    'Extension. Body of `quote_request.priced`: you priced a quote request; the quote is signed like every quote (docs/quote-signatures.md). Ordering it from the link sends `widget.added_to_cart` as any add.',
  ),
  WebhookEventPing: {
    type: 'object',
    description:
      'Body of a test delivery ("Send a test event", `POST /v2/webhooks/{webhook_id}/ping`). Not an event you subscribe to: every webhook can receive it. `test` is true only here. Answer with any 2xx; a receiver that switches on `event` should treat an unknown name (this one included) as "nothing to do" and still answer 2xx. Receivers must ignore fields they do not know; fields may be added.',
    required: ['event', 'timestamp', 'test', 'data'],
    properties: {
      event: { const: 'ping' },
      timestamp,
      test: { const: true, description: 'Marks a test delivery: no quote, file, order or usage change is behind it' },
      data: {
        type: 'object',
        required: ['webhookId', 'events', 'message'],
        properties: {
          webhookId: id('wh'),
          events: {
            type: 'array',
            items: ref('WebhookEventName'),
            description: 'The events the webhook is subscribed to',
          },
          message: { type: 'string' },
        },
      },
    },
  },
  WebhookEventUsageAlert: eventEnvelope(
    'usage.alert',
    {
      type: 'object',
      required: ['resource', 'level', 'used', 'limit', 'period'],
      properties: {
        resource: {
          enum: ['quotes', 'storage', 'widget_quotes'],
          description: "widget_quotes: one widget key's share of the monthly quotes (widget_key_id names the key)",
        },
        level: {
          type: 'integer',
          enum: [0, 80, 100],
          description: '80 or 100: usage entered that band (>= 80 %, >= 100 % of the allowance); 0: back below 80 %',
        },
        used: { type: 'number', description: 'Quotes this month, or stored bytes' },
        limit: {
          type: 'number',
          description: "The plan's allowance (for widget_quotes, the key's share) in the same unit",
        },
        period: { type: ['string', 'null'], description: 'YYYY-MM (UTC) for quotes; null for storage' },
        widget_key_id: { type: 'string', description: 'The widget key (widget_quotes only)' },
      },
    },
    'Body of `usage.alert`.',
  ),
};

/** The fields every delivery answer has; the detail view adds the request and the attempt log. */
const DELIVERY_FIELDS = [
  'delivery_id',
  'webhook_id',
  'event',
  'event_id',
  'state',
  'attempts',
  'max_attempts',
  'interrupted_attempts',
  'last_status_code',
  'last_error',
  'response_snippet',
  'resent_from',
  'created_at',
  'last_attempt_at',
  'next_attempt_at',
  'delivered_at',
];

function webhookDeliveryProperties() {
  return {
    delivery_id: { ...id('dlv'), description: 'Also sent as X-Webhook-Delivery, the same on every attempt' },
    webhook_id: id('wh'),
    event: ref('WebhookDeliveryEvent'),
    event_id: { ...id('evt'), description: 'The event; a resend shares it with the original' },
    state: {
      enum: ['pending', 'delivered', 'failed'],
      description: 'pending: waiting for (another) attempt; delivered: a 2xx answer; failed: 3 attempts failed',
    },
    attempts: { type: 'integer', minimum: 0, description: 'Attempts with a recorded outcome' },
    max_attempts: { const: 3 },
    interrupted_attempts: {
      type: 'integer',
      minimum: 0,
      description: 'Attempts cut short by a stopped process; retried and not counted in attempts',
    },
    last_status_code: {
      type: ['integer', 'null'],
      description: 'HTTP status of the latest answer; null when there was none',
    },
    last_error: {
      type: ['string', 'null'],
      description: 'Why the latest attempt failed, e.g. "url_private_address: ..." or "receiver answered 500"',
    },
    response_snippet: {
      type: ['string', 'null'],
      description: "Start of the receiver's answer (256 characters at most); only from receivers at public addresses",
    },
    resent_from: { oneOf: [id('dlv'), { type: 'null' }], description: 'The delivery this one was resent from' },
    created_at: timestamp,
    last_attempt_at: { ...nullableTimestamp, description: 'When the latest attempt started' },
    next_attempt_at: { ...nullableTimestamp, description: 'Earliest time of the next attempt (pending only)' },
    delivered_at: nullableTimestamp,
  };
}

// ---- API schemas ---------------------------------------------------------------------------------------

export const webhookSchemas = {
  WebhookEventName: { type: 'string', enum: [...WEBHOOK_EVENTS] },
  WebhookDeliveryEvent: {
    type: 'string',
    enum: [...WEBHOOK_EVENTS, 'ping'],
    description: 'A subscribed event, or `ping` for a test delivery',
  },
  WebhookCreate: {
    type: 'object',
    required: ['url', 'events'],
    additionalProperties: false,
    properties: {
      url,
      events,
      secret: {
        ...secret,
        description:
          'Signing secret (16-256 characters); generated (whsec_...) when omitted. Returned only in this response.',
      },
      token_id: tokenLink,
    },
  },
  WebhookUpdate: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    description:
      'Fields left out stay as they are. `rotate_secret: true` generates a new secret; `secret` sets one; either way the response carries it, once. Deliveries already created keep the signature made with the old secret.',
    properties: {
      url,
      events,
      active: { type: 'boolean' },
      token_id: tokenLink,
      secret,
      rotate_secret: { type: 'boolean', description: 'true: replace the secret with a generated one' },
    },
  },
  Webhook: { type: 'object', required: webhookRequired, additionalProperties: false, properties: webhookProperties },
  WebhookWithSecret: {
    type: 'object',
    required: [...webhookRequired, 'secret'],
    additionalProperties: false,
    properties: {
      ...webhookProperties,
      secret: { type: 'string', description: 'The signing secret; shown only in this response' },
    },
  },
  WebhookUpdated: {
    type: 'object',
    required: webhookRequired,
    additionalProperties: false,
    properties: {
      ...webhookProperties,
      secret: { type: 'string', description: 'Present only when the secret was changed by this request' },
    },
  },
  WebhookStats: {
    type: 'object',
    required: ['total', 'delivered', 'failed', 'pending', 'success_rate', 'last_delivery_at', 'last_attempt_at'],
    additionalProperties: false,
    properties: {
      total: { type: 'integer', minimum: 0 },
      delivered: { type: 'integer', minimum: 0 },
      failed: { type: 'integer', minimum: 0 },
      pending: { type: 'integer', minimum: 0 },
      success_rate: {
        oneOf: [{ type: 'number', minimum: 0, maximum: 1 }, { type: 'null' }],
        description: 'delivered / (delivered + failed), 4 decimals; null while none has finished',
      },
      last_delivery_at: { ...nullableTimestamp, description: 'When the latest successful delivery was accepted' },
      last_attempt_at: { ...nullableTimestamp, description: 'When the latest attempt started' },
    },
  },
  WebhookDetails: {
    type: 'object',
    required: [...webhookRequired, 'stats'],
    additionalProperties: false,
    properties: { ...webhookProperties, stats: ref('WebhookStats') },
  },
  WebhookList: {
    allOf: [ref('ListMeta')],
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: ref('Webhook') } },
  },
  WebhookDeleted: {
    type: 'object',
    required: ['webhook_id', 'deleted'],
    additionalProperties: false,
    properties: { webhook_id: id('wh'), deleted: { const: true } },
  },
  WebhookDelivery: {
    type: 'object',
    required: DELIVERY_FIELDS,
    additionalProperties: false,
    properties: webhookDeliveryProperties(),
  },
  WebhookDeliveryAttempt: {
    type: 'object',
    required: ['attempt', 'sent_at', 'duration_ms', 'status_code', 'error', 'response_snippet'],
    additionalProperties: false,
    properties: {
      attempt: { type: 'integer', minimum: 1, description: '1 for the first attempt' },
      sent_at: { ...timestamp, description: 'When the attempt was sent: the X-Webhook-Timestamp it carried' },
      duration_ms: {
        type: 'integer',
        minimum: 0,
        description: 'From the address check to the end of the answer (or the failure)',
      },
      status_code: { type: ['integer', 'null'], description: 'HTTP status of the answer; null when there was none' },
      error: { type: ['string', 'null'], description: 'Why the attempt failed; null when it was delivered' },
      response_snippet: {
        type: ['string', 'null'],
        maxLength: 2048,
        description:
          'Start of the answer (2048 characters at most, control characters removed); only from receivers at public addresses, and only for a text answer (a text/*, JSON, XML or form type, or no Content-Type)',
      },
    },
  },
  WebhookDeliveryDetail: {
    type: 'object',
    required: [...DELIVERY_FIELDS, 'request', 'attempt_log'],
    additionalProperties: false,
    properties: {
      ...webhookDeliveryProperties(),
      request: {
        type: 'object',
        required: ['method', 'url', 'headers', 'body'],
        additionalProperties: false,
        description:
          "What is sent on every attempt: the same body bytes and signature each time; only X-Webhook-Timestamp changes (it is the latest attempt's, absent before the first)",
        properties: {
          method: { const: 'POST' },
          url: { type: 'string', description: "The webhook's URL now (an edit since the attempts is not reflected)" },
          headers: {
            type: 'object',
            additionalProperties: { type: 'string' },
            description: 'Header names in lower case',
          },
          body: { type: 'string', description: 'The exact signed body (JSON text)' },
        },
      },
      attempt_log: {
        type: 'array',
        maxItems: 3,
        items: ref('WebhookDeliveryAttempt'),
        description: 'Recorded attempts, oldest first (interrupted attempts have no entry)',
      },
    },
  },
  WebhookDeliveryList: {
    allOf: [ref('ListMeta')],
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: ref('WebhookDelivery') } },
  },
  ...eventSchemas,
};

// ---- paths ---------------------------------------------------------------------------------------------

export const webhookPaths = {
  '/v2/webhooks': {
    post: {
      operationId: 'createWebhook',
      tags,
      summary: 'Create a webhook (the secret is returned only here)',
      security: bearer,
      description:
        'The URL is checked now (and again before every delivery attempt): http or https, no credentials, and the host must resolve only to public addresses. A refused URL answers 400 with the rule as `code` (`url_scheme`, `url_credentials`, `url_private_address`, `url_unresolvable`, `url_invalid`, `url_too_long`); `url_private_address` also names the operator setting that allows private receivers (`details.setting`: `WEBHOOK_ALLOW_PRIVATE_CIDRS`) and its guide (`details.docs`). Unknown event names answer 400 naming the field. At most 20 webhooks per account (409 `webhook_limit_reached`).',
      parameters: [idempotencyKey],
      requestBody: jsonBody('WebhookCreate'),
      responses: {
        '201': ok('WebhookWithSecret', 'The webhook with its signing secret'),
        ...errors(400, 401, 409, 415, 422),
      },
    },
    get: {
      operationId: 'listWebhooks',
      tags,
      summary: "The account's webhooks, newest first (no secrets)",
      security: bearer,
      parameters: pageParams,
      responses: { '200': ok('WebhookList', 'A page of webhooks'), ...errors(400, 401) },
    },
  },
  '/v2/webhooks/{webhook_id}': {
    get: {
      operationId: 'getWebhook',
      tags,
      summary: 'A webhook with its delivery statistics',
      security: bearer,
      parameters: [webhookId],
      responses: { '200': ok('WebhookDetails', 'The webhook'), ...errors(401, 404) },
    },
    put: {
      operationId: 'updateWebhook',
      tags,
      summary: 'Change URL, events, active, token link, or the secret',
      security: bearer,
      parameters: [webhookId],
      description:
        'Partial: fields left out are unchanged. `token_id: null` unlinks. `rotate_secret: true` (or `secret`) replaces the secret and returns it once.',
      requestBody: jsonBody('WebhookUpdate'),
      responses: { '200': ok('WebhookUpdated', 'The updated webhook'), ...errors(400, 401, 404, 415) },
    },
    delete: {
      operationId: 'deleteWebhook',
      tags,
      summary: 'Delete a webhook and its delivery log',
      security: bearer,
      parameters: [webhookId],
      responses: { '200': ok('WebhookDeleted', 'Deleted'), ...errors(401, 404) },
    },
  },
  '/v2/webhooks/{webhook_id}/deliveries': {
    get: {
      operationId: 'listWebhookDeliveries',
      tags,
      summary: "The webhook's deliveries, newest first",
      security: bearer,
      parameters: [
        webhookId,
        ...pageParams,
        {
          name: 'state',
          in: 'query',
          required: false,
          description: 'Only deliveries in this state',
          schema: { enum: ['pending', 'delivered', 'failed'] },
        },
      ],
      responses: { '200': ok('WebhookDeliveryList', 'A page of deliveries'), ...errors(400, 401, 404) },
    },
  },
  '/v2/webhooks/{webhook_id}/deliveries/{delivery_id}': {
    get: {
      operationId: 'getWebhookDelivery',
      tags,
      summary: "One delivery with the request sent and every attempt's answer and timing",
      security: bearer,
      parameters: [webhookId, deliveryId],
      description:
        "The request headers and the exact signed body, and per recorded attempt when it was sent, how long it took, the status and the start of the answer (2 KB at most, text only, from public addresses only). Another account's webhook or delivery answers 404.",
      responses: { '200': ok('WebhookDeliveryDetail', 'The delivery'), ...errors(401, 404) },
    },
  },
  '/v2/webhooks/{webhook_id}/ping': {
    post: {
      operationId: 'pingWebhook',
      tags,
      summary: 'Send a test event (a `ping` delivery) to the webhook',
      security: bearer,
      parameters: [webhookId],
      description:
        'Creates a pending delivery of the `ping` event (body: `WebhookEventPing`, with `"test": true`), signed with the webhook\'s secret and sent by the normal delivery pump: the address rules at attempt time, up to 3 attempts, and an entry in the delivery log. Any webhook receives it, whatever its events. Follow it with `GET /v2/webhooks/{webhook_id}/deliveries/{delivery_id}`. The webhook must be active (else 409 `webhook_inactive`).',
      responses: { '202': ok('WebhookDelivery', 'The new pending test delivery'), ...errors(401, 404, 409) },
    },
  },
  '/v2/webhooks/{webhook_id}/deliveries/{delivery_id}/resend': {
    post: {
      operationId: 'resendWebhookDelivery',
      tags,
      summary: 'Send a delivery again, as a new pending record',
      security: bearer,
      parameters: [webhookId, deliveryId],
      description:
        "Creates a new delivery with the same body bytes, signed with the webhook's current secret, and attempts it at once. The webhook must be active (else 409 `webhook_inactive`).",
      responses: { '202': ok('WebhookDelivery', 'The new pending delivery'), ...errors(401, 404, 409) },
    },
  },
};

// ---- outgoing requests ---------------------------------------------------------------------------------

/** The schema (components.schemas) of each event's body. */
export const SCHEMA_OF_EVENT: Record<string, string> = {
  'quote.completed': 'WebhookEventQuoteCompleted',
  'quote.failed': 'WebhookEventQuoteFailed',
  'file.uploaded': 'WebhookEventFileUploaded',
  'file.deleted': 'WebhookEventFileDeleted',
  'job.status_changed': 'WebhookEventJobStatusChanged',
  'widget.added_to_cart': 'WebhookEventWidgetAddedToCart',
  'usage.alert': 'WebhookEventUsageAlert',
  'quote_request.created': 'WebhookEventQuoteRequestCreated',
  'quote_request.priced': 'WebhookEventQuoteRequestPriced',
};

const deliveryHeaderParams = [
  ['X-Webhook-Signature', 'sha256=<hex HMAC-SHA256 of the raw body, keyed with the webhook secret>'],
  ['X-Webhook-Event', 'The event name'],
  ['X-Webhook-Delivery', 'The delivery id (dlv_...), the same on every attempt'],
  ['X-Webhook-Timestamp', 'When this attempt was sent (not signed)'],
].map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } }));

/**
 * The requests we send, as the OpenAPI 3.1 top-level `webhooks` object (document.ts may include it as
 * `webhooks: webhookEvents`); keyed by event name.
 */
export const webhookEvents = Object.fromEntries(
  Object.entries({ ...SCHEMA_OF_EVENT, ping: 'WebhookEventPing' }).map(([event, schema]) => [
    event,
    {
      post: {
        operationId: `webhook_${event.replace('.', '_')}`,
        tags,
        summary: `The ${event} notification`,
        description:
          `${EVENT_WHEN[event] ?? ''} Sent by slicequote to the webhook URL; authenticated by X-Webhook-Signature, not by a token.`.trim(),
        security: [],
        parameters: deliveryHeaderParams,
        requestBody: jsonBody(schema),
        responses: {
          '200': { description: 'Any 2xx answer marks the delivery delivered; anything else fails the attempt' },
        },
      },
    },
  ]),
);

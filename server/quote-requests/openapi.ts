// Quote requests' part of the OpenAPI document (docs/widget.md, "Request a quote"; docs/dashboard.md, "Orders").
import {
  errors,
  idempotencyKey,
  jsonBody,
  ok,
  pageParams,
  pathParam,
  ref,
  shopperToken,
  timestamp,
} from '../openapi/index.ts';
import { REQUEST_LIMITS } from './limits.ts';

const tags = ['quotes'];
const requestId = pathParam('request_id', 'A quote request (rq_…)');
const nullableTime = { oneOf: [timestamp, { type: 'null' }] };
/** Printable text on one line: no control characters (the name and e-mail go into an e-mail's headers). */
const ONE_LINE = '^[^\\x00-\\x1f\\x7f]+$';

export const REASONS = ['no_cart', 'not_priceable', 'merchant_rule'] as const;
export const STATUSES = ['requested', 'priced', 'ordered'] as const;

export const quoteRequestPaths = {
  '/v2/quote-requests': {
    post: {
      operationId: 'createQuoteRequest',
      tags,
      summary: 'Ask the shop to price a part by hand (the widget’s “Request a quote”)',
      security: [{ bearerAuth: [] }, { widgetKey: [] }],
      description: `Extension. A shopper whose part the widget cannot sell at once sends their name, e-mail and a note: no cart on the page took the line (\`no_cart\`), the part could not be priced automatically (\`not_priceable\`, with the error's code in \`reason_code\`: a failed slice, a part over the shop's limits, too thin to print or multi-colour: \`multi_material\`), or the offer's \`request_quote_above\` asks for it (\`merchant_rule\`). The request names one of the shopper's own uploads (another's answers 404 as any file not theirs) and, when there is one, the quote it concerns (one of the shopper's own); or, instead, a kept quote link (\`link\`), when a shopper ordered a kept quote on a page where no cart took it: the request is then about the link's quote at the link's quantity, whichever browser priced it. It is listed in the shop's Orders with status \`requested\` and sent as the \`quote_request.created\` webhook event. The shopper never sets a price: the merchant prices it (POST /v2/quote-requests/{request_id}/price). A widget needs its shopper token; one shopper session may send ${REQUEST_LIMITS.perSession} requests an hour (then 429 \`rate_limited\`); a second request for the same upload while the first is unpriced replaces it.`,
      parameters: [shopperToken, idempotencyKey],
      requestBody: jsonBody('QuoteRequestCreate'),
      responses: {
        '201': ok('QuoteRequestReceipt', 'The request, as the shop received it'),
        ...errors(400, 401, 403, 404),
      },
    },
    get: {
      operationId: 'listQuoteRequests',
      tags,
      summary: "The shop's quote requests, newest first",
      security: [{ bearerAuth: [] }],
      parameters: [
        ...pageParams,
        {
          name: 'status',
          in: 'query',
          required: false,
          description: 'Only requests in this state',
          schema: { type: 'string', enum: [...STATUSES] },
        },
      ],
      responses: { '200': ok('QuoteRequestList', 'A page of requests'), ...errors(400, 401) },
    },
  },
  '/v2/quote-requests/{request_id}': {
    get: {
      operationId: 'getQuoteRequest',
      tags,
      summary: 'One quote request',
      security: [{ bearerAuth: [] }],
      parameters: [requestId],
      responses: { '200': ok('QuoteRequestRecord', 'The request'), ...errors(401, 404) },
    },
  },
  '/v2/quote-requests/{request_id}/price': {
    post: {
      operationId: 'priceQuoteRequest',
      tags,
      summary: 'Price a request by hand and make the link the shopper orders it from',
      security: [{ bearerAuth: [] }],
      description:
        "The merchant's price of one part (`unit_price`, in the shop currency, tax included as every quote's `total_price`): it becomes a quote of the part at the request's choices, signed like every quote (docs/quote-signatures.md; `manual: true`), valid `valid_days` (default the account's quote validity), and a kept link at the request's quantity (POST /v2/kept-quotes/{token}/cart orders it). The line is the unit price × quantity: no quantity break, delivery surcharge or minimum line price is added to a price set by hand. When SMTP is configured (SMTP_URL) the link is e-mailed to the shopper at once; `email` says whether it was sent. Pricing again replaces the price and the link (the earlier link stays valid until its quote expires or is deleted); an ordered request is 409 `quote_request_ordered`.",
      parameters: [requestId, idempotencyKey],
      requestBody: jsonBody('QuoteRequestPrice'),
      responses: {
        '200': ok('QuoteRequestRecord', 'The priced request, with its link'),
        ...errors(400, 401, 404, 409),
      },
    },
  },
};

const choiceText = { type: 'string', minLength: 1, maxLength: 100 };

export const quoteRequestSchemas = {
  QuoteRequestCreate: {
    type: 'object',
    required: ['reason', 'name', 'email'],
    additionalProperties: false,
    properties: {
      file_id: {
        type: 'string',
        minLength: 1,
        maxLength: 64,
        description: 'One of the shopper’s uploads (required unless `link` names the part)',
      },
      link: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        description:
          'Instead of `file_id`: a kept quote link (as POST /v2/quotes/{quote_id}/link answered it), whose quote and quantity the request is about, whoever priced it: the shopper who ordered a kept quote on a page where no cart took it (`no_cart`). Without `quote_id`, `choices` or `quantity`, which are the link’s.',
      },
      quote_id: {
        type: ['string', 'null'],
        maxLength: 64,
        description: 'The quote the request concerns (one of the shopper’s); its choices are the request’s',
      },
      choices: {
        type: 'object',
        additionalProperties: false,
        description: "Without a quote: the shopper's choices from the offer (defaults as for a quote)",
        properties: {
          material: choiceText,
          color: choiceText,
          quality: choiceText,
          infill: { type: 'number', minimum: 0, maximum: 100 },
          lead_time: choiceText,
        },
      },
      quantity: { type: 'integer', minimum: 1, maximum: 100000, description: "Default the offer's smallest" },
      reason: { type: 'string', enum: [...REASONS] },
      reason_code: {
        type: ['string', 'null'],
        pattern: '^[a-z0-9_]{1,64}$',
        description: 'With `not_priceable`: the error code the part failed with (e.g. `slice_failed`)',
      },
      name: { type: 'string', minLength: 1, maxLength: REQUEST_LIMITS.name, pattern: ONE_LINE },
      email: {
        type: 'string',
        minLength: 3,
        maxLength: REQUEST_LIMITS.email,
        pattern:
          "^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$",
        description: 'Where the shop sends the link to order the part',
      },
      note: {
        type: 'string',
        maxLength: REQUEST_LIMITS.note,
        pattern: '^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f]*$',
        description: 'What the shopper wants the shop to know (line breaks allowed)',
      },
      page: {
        type: 'string',
        maxLength: 2000,
        description:
          'The shop page the widget runs on: the order link opens the priced quote there (`sq-quote`). A widget may name only a page of the origin it calls from.',
      },
    },
  },
  QuoteRequestReceipt: {
    type: 'object',
    required: ['request_id', 'status', 'created_at'],
    additionalProperties: false,
    properties: {
      request_id: { type: 'string', pattern: '^rq_' },
      status: { const: 'requested' },
      created_at: timestamp,
    },
  },
  QuoteRequestPrice: {
    type: 'object',
    required: ['unit_price'],
    additionalProperties: false,
    properties: {
      unit_price: {
        type: 'number',
        exclusiveMinimum: 0,
        maximum: 1e11,
        description: 'The price of one part in the shop currency, tax included, in whole minor units (12.5 or 12.50)',
      },
      valid_days: {
        type: 'integer',
        minimum: 1,
        maximum: 365,
        description: "How long the price holds; default the account's quote validity (quote_validity_days)",
      },
    },
  },
  QuoteRequestRecord: {
    type: 'object',
    required: [
      'request_id',
      'status',
      'reason',
      'reason_code',
      'file_id',
      'file_name',
      'file_url',
      'quote_id',
      'choices',
      'quantity',
      'name',
      'email',
      'note',
      'origin',
      'page',
      'widget_key_id',
      'created_at',
      'price',
      'email_delivery',
    ],
    additionalProperties: false,
    properties: {
      request_id: { type: 'string', pattern: '^rq_' },
      status: {
        type: 'string',
        enum: [...STATUSES],
        description:
          'requested: waiting for your price; priced: the link is out; ordered: the priced quote was added to a cart',
      },
      reason: { type: 'string', enum: [...REASONS] },
      reason_code: { type: ['string', 'null'] },
      file_id: { type: 'string' },
      file_name: { type: 'string' },
      file_url: { type: 'string', description: 'GET: download the model' },
      quote_id: { type: ['string', 'null'], description: 'The automatic quote it concerns, if any' },
      choices: ref('ResolvedChoices'),
      quantity: { type: 'integer', minimum: 1 },
      name: { type: 'string' },
      email: { type: 'string' },
      note: { type: 'string' },
      origin: { type: ['string', 'null'], description: 'Origin of the shop page' },
      page: { type: ['string', 'null'], description: 'The shop page it was sent from' },
      widget_key_id: { type: ['string', 'null'] },
      created_at: timestamp,
      price: {
        oneOf: [{ type: 'null' }, ref('QuoteRequestPriceSet')],
        description: 'null until you price it',
      },
      email_delivery: {
        type: 'object',
        required: ['configured', 'sent_at', 'error'],
        additionalProperties: false,
        description: 'Whether the link was e-mailed to the shopper',
        properties: {
          configured: { type: 'boolean', description: 'SMTP is configured: links are e-mailed when priced' },
          sent_at: { ...nullableTime, description: 'When the SMTP server took the e-mail with the latest link' },
          error: { type: ['string', 'null'], description: 'Why the latest e-mail was not sent' },
        },
      },
    },
  },
  QuoteRequestPriceSet: {
    type: 'object',
    required: [
      'quote_id',
      'unit_price',
      'total_price',
      'currency',
      'priced_at',
      'expires_at',
      'token',
      'order_url',
      'link_expires_at',
    ],
    additionalProperties: false,
    properties: {
      quote_id: { type: 'string', description: 'The quote priced by hand (signed; `manual: true`)' },
      unit_price: { type: 'number', minimum: 0 },
      total_price: { type: 'number', minimum: 0, description: 'unit_price × quantity' },
      currency: { type: 'string' },
      priced_at: timestamp,
      expires_at: { ...timestamp, description: 'Until when the price holds and can be ordered' },
      token: { type: 'string', description: 'The kept link (GET /v2/kept-quotes/{token})' },
      order_url: {
        type: ['string', 'null'],
        description:
          'The shop page with the link in it (`sq-quote`): what the shopper opens to order; null when the request named no page',
      },
      link_expires_at: timestamp,
    },
  },
  QuoteRequestList: {
    allOf: [ref('ListMeta')],
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: ref('QuoteRequestRecord') } },
  },
};

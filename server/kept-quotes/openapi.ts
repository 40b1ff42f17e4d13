// Kept quotes' part of the OpenAPI document (docs/widget.md, "Quotes shoppers can keep").
import {
  errorSchema,
  errors,
  idempotencyKey,
  jsonBody,
  ok,
  pathParam,
  ref,
  shopperToken,
  timestamp,
} from '../openapi/index.ts';

const widgetOrToken = [{ bearerAuth: [] }, { widgetKey: [] }];
const tokenParam = pathParam(
  'token',
  'A kept quote link: `<quote id>.<expiry, Unix seconds>.<quantity>.<HMAC-SHA256, base64url>`, as POST /v2/quotes/{quote_id}/link answered it (links made before they kept a quantity: `<quote id>.<expiry>.<HMAC-SHA256>`)',
);
const refusals = {
  '400': {
    description: 'The link was altered or not made by this server (`quote_link_invalid`)',
    content: { 'application/json': { schema: ref('QuoteLinkInvalidError') } },
  },
  '410': {
    description: 'The link expired (`quote_link_expired`)',
    content: { 'application/json': { schema: ref('QuoteLinkExpiredError') } },
  },
};

export const keptQuotePaths = {
  '/v2/quotes/{quote_id}/link': {
    post: {
      operationId: 'keepQuote',
      tags: ['quotes'],
      summary: 'A signed link to a completed quote, to keep, share or download as PDF',
      security: widgetOrToken,
      description:
        "The link (`token`) keeps the quote at a quantity (the body's, default the offer's smallest; one the offer does not sell is a 400 naming `quantity`), is signed by the server and expires after QUOTE_LINK_DAYS (default 30) days, or sooner when the retention sweep may delete the part's upload before then (a shopper's upload: its retention period, at the least while the price holds; never less than a day), so a link never outlives its file. The price it shows holds until `price_expires_at` (the quote's own `expires_at`), usually sooner than the link: after that the link still opens the quote, marked expired, and cannot order it. It opens the quote with the same shop's widget key or API token only; anyone holding it may, so it is as private as the shopper keeps it. A shopper links only their own quotes. Nothing is stored: the link cannot be revoked before it expires, but deleting the quote closes it.",
      parameters: [pathParam('quote_id', 'A completed quote'), shopperToken],
      requestBody: jsonBody('KeepQuoteRequest', 'The quantity to keep', false),
      responses: {
        '201': ok('KeptQuoteLink', 'The link'),
        ...errors(400, 401, 403, 404),
        '409': {
          description: 'The quote is not priced yet, or failed (`quote_not_completed`)',
          content: { 'application/json': { schema: ref('Error') } },
        },
      },
    },
  },
  '/v2/kept-quotes/{token}': {
    get: {
      operationId: 'openKeptQuote',
      tags: ['quotes'],
      summary: 'The quote a kept link stands for, with the part’s picture',
      security: widgetOrToken,
      parameters: [tokenParam],
      responses: { '200': ok('KeptQuote', 'The kept quote'), ...errors(401, 403, 404), ...refusals },
    },
  },
  '/v2/kept-quotes/{token}/cart': {
    post: {
      operationId: 'orderKeptQuote',
      tags: ['quotes'],
      summary: 'Order a kept quote: add it to the cart at the link’s quantity',
      security: widgetOrToken,
      description:
        "Extension. The link's holder adds its quote to the cart at the link's quantity, priced as `line` of GET /v2/kept-quotes/{token} shows it: the same add as POST /v2/widget/cart (recorded in the shop's orders, `widget.added_to_cart` sent once per add, the same replay rule per shopper session, the same 30 adds per 10 minutes), answered with the same CartLine. The link stands for the quote, so a shopper may order a quote another browser priced. An expired price is `410 quote_expired` (price the part again); a link that expired or was altered is refused as when opening it; a part rescaled since is `409 quote_stale`; a quantity the offer no longer sells is a 400 naming `quantity`.",
      parameters: [tokenParam, shopperToken, idempotencyKey],
      responses: {
        '201': ok('CartLine', 'The cart line as priced by the server'),
        ...errors(401, 403, 404, 409, 422),
        '400': {
          description:
            'The link was altered or not made by this server (`quote_link_invalid`), or the offer no longer sells its quantity (`validation_failed` naming `quantity`)',
          content: { 'application/json': { schema: ref('Error') } },
        },
        '410': {
          description: 'The link expired (`quote_link_expired`), or the price did (`quote_expired`)',
          content: { 'application/json': { schema: ref('Error') } },
        },
      },
    },
  },
  '/v2/kept-quotes/{token}/pdf': {
    get: {
      operationId: 'keptQuotePdf',
      tags: ['quotes'],
      summary: 'The kept quote as a PDF',
      security: widgetOrToken,
      description:
        "A quotation on one A4 page: the shop's name and contact (the offer's `contact`, when it has one), the quote number and date, the part's name, picture and dimensions, the material and options, weight, print time, the delivery option and the day it ships when ordered today, the line at the link's quantity (unit price, quantity, the quantity break and delivery surcharge applied, the minimum line price where it applies, the total; priced as the cart prices it), until when the price holds, and a link back to the shop page (`page`). The price lines of one part (material, support, machine time, energy, fee) only when the offer's `show_cost_breakdown` is true, whoever asks.",
      parameters: [
        tokenParam,
        {
          name: 'page',
          in: 'query',
          required: false,
          description:
            'The shop page to link back to (the kept link is added to it as `sq-quote`): an http(s) address of at most 2000 characters; a widget key may name only a page of the origin it calls from. Without it the PDF has no link.',
          schema: { type: 'string', maxLength: 2000 },
        },
      ],
      responses: {
        '200': {
          description: 'The PDF, as an attachment',
          content: { 'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } } },
        },
        ...errors(401, 403, 404),
        ...refusals,
        '400': {
          description:
            'The link was altered or not made by this server (`quote_link_invalid`), or `page` is not a page the caller may link to (`validation_failed` naming `page`)',
          content: { 'application/json': { schema: ref('Error') } },
        },
      },
    },
  },
};

export const keptQuoteSchemas = {
  KeepQuoteRequest: {
    type: 'object',
    additionalProperties: false,
    properties: {
      quantity: {
        type: 'integer',
        minimum: 1,
        maximum: 100000,
        description: "Pieces to keep the quote at; default the offer's smallest quantity",
      },
    },
  },
  KeptQuoteLink: {
    type: 'object',
    required: ['quote_id', 'token', 'quantity', 'expires_at', 'price_expires_at', 'url', 'pdf_url', 'cart_url'],
    additionalProperties: false,
    properties: {
      quote_id: { type: 'string' },
      token: { type: 'string', description: 'Put it in the shop page’s address as `sq-quote=<token>` to reopen it' },
      quantity: { type: 'integer', minimum: 1, description: 'The quantity the link keeps' },
      expires_at: { ...timestamp, description: 'When the link stops opening the quote' },
      price_expires_at: {
        ...timestamp,
        description:
          'Until when the price holds and the link can order it (the quote’s `expires_at`): what to tell the shopper',
      },
      url: { type: 'string', description: 'GET: the kept quote' },
      pdf_url: { type: 'string', description: 'GET: its PDF' },
      cart_url: { type: 'string', description: 'POST: order it (add it to the cart at the link’s quantity)' },
    },
  },
  KeptLine: {
    type: 'object',
    required: [
      'quantity',
      'unit_price',
      'subtotal',
      'discount_percent',
      'quantity_discount',
      'lead_time_surcharge',
      'minimum_line_adjustment',
      'total_price',
      'currency',
      'lead_time',
    ],
    additionalProperties: false,
    description:
      'The kept quote at its quantity, priced as the cart prices it today (the offer’s quantity breaks and minimum line price, the quote’s delivery option): ordering it adds this line',
    properties: {
      quantity: { type: 'integer', minimum: 1 },
      unit_price: { type: 'number', minimum: 0 },
      subtotal: { type: 'number', minimum: 0, description: 'unit_price × quantity' },
      discount_percent: { type: 'number', minimum: 0, description: 'The quantity break applied; 0: none' },
      quantity_discount: { type: 'number', minimum: 0 },
      lead_time_surcharge: { type: 'number', minimum: 0 },
      minimum_line_adjustment: { type: 'number', minimum: 0 },
      total_price: { type: 'number', minimum: 0 },
      currency: { type: 'string' },
      lead_time: {
        oneOf: [
          { type: 'null' },
          {
            type: 'object',
            required: ['id', 'label', 'business_days', 'ships_by'],
            additionalProperties: false,
            properties: {
              id: { type: 'string' },
              label: { type: 'string' },
              business_days: { type: 'integer', minimum: 0 },
              ships_by: { type: 'string', format: 'date', description: 'The day it ships when ordered today (UTC)' },
            },
          },
        ],
        description: 'The delivery option the quote was made with; null: none offered',
      },
    },
  },
  KeptQuote: {
    type: 'object',
    required: ['token', 'link_expires_at', 'quantity', 'line', 'lead_time', 'picture', 'pdf_url', 'cart_url', 'quote'],
    additionalProperties: false,
    properties: {
      token: { type: 'string' },
      link_expires_at: {
        ...timestamp,
        description: 'When the link stops opening; the price holds until `quote.expires_at`',
      },
      quantity: {
        type: 'integer',
        minimum: 1,
        description: "The quantity the link keeps (a link made before links kept one: the offer's smallest)",
      },
      line: ref('KeptLine'),
      lead_time: {
        type: ['string', 'null'],
        description:
          "The delivery option the shopper chose (label and business days), else the shop's lead time from its offer; null: none stated",
      },
      picture: {
        type: ['string', 'null'],
        description:
          'The part drawn from its mesh, a `data:image/png;base64,…` URL; its bounding box in grey when the mesh is over 16 MiB or costs more to draw than a picture may (docs/security.md); null when none can be drawn (a 3MF project, a deleted file)',
      },
      pdf_url: { type: 'string' },
      cart_url: { type: 'string', description: 'POST: order it' },
      quote: {
        ...ref('Quote'),
        description:
          'The quote as GET /v2/quotes/{quote_id} answers it to this caller (a widget key: without the cost breakdown unless the offer shows it); `expired` says whether its price still holds, and so whether it can be ordered',
      },
    },
  },
  QuoteLinkInvalidError: errorSchema('quote_link_invalid', { field: { const: 'token' } }),
  QuoteLinkExpiredError: errorSchema('quote_link_expired', { expired_at: timestamp }),
};

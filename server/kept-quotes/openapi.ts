// Kept quotes' part of the OpenAPI document (docs/widget.md, "Quotes shoppers can keep").
import { errorSchema, errors, ok, pathParam, ref, shopperToken, timestamp } from '../openapi/index.ts';

const widgetOrToken = [{ bearerAuth: [] }, { widgetKey: [] }];
const tokenParam = pathParam(
  'token',
  'A kept quote link: `<quote id>.<expiry, Unix seconds>.<HMAC-SHA256, base64url>`, as POST /v2/quotes/{quote_id}/link answered it',
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
        "The link (`token`) is signed by the server and expires after QUOTE_LINK_DAYS (default 30) days, or sooner when the retention sweep may delete the part's upload before then (a shopper's upload: its retention period, at the least while the price holds; never less than a day), so a link never outlives its file. It opens the quote with the same shop's widget key or API token only; anyone holding it may, so it is as private as the shopper keeps it. A shopper links only their own quotes. Nothing is stored: the link cannot be revoked before it expires, but deleting the quote closes it.",
      parameters: [pathParam('quote_id', 'A completed quote'), shopperToken],
      responses: {
        '201': ok('KeptQuoteLink', 'The link'),
        ...errors(401, 403, 404),
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
  '/v2/kept-quotes/{token}/pdf': {
    get: {
      operationId: 'keptQuotePdf',
      tags: ['quotes'],
      summary: 'The kept quote as a PDF',
      security: widgetOrToken,
      description:
        "One A4 page: the shop's name, the part's name and picture, the choices, weight, print time, lead time, the price lines of one part and until when the price holds.",
      parameters: [tokenParam],
      responses: {
        '200': {
          description: 'The PDF, as an attachment',
          content: { 'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } } },
        },
        ...errors(401, 403, 404),
        ...refusals,
      },
    },
  },
};

export const keptQuoteSchemas = {
  KeptQuoteLink: {
    type: 'object',
    required: ['quote_id', 'token', 'expires_at', 'url', 'pdf_url'],
    additionalProperties: false,
    properties: {
      quote_id: { type: 'string' },
      token: { type: 'string', description: 'Put it in the shop page’s address as `sq-quote=<token>` to reopen it' },
      expires_at: { ...timestamp, description: 'When the link stops opening the quote' },
      url: { type: 'string', description: 'GET: the kept quote' },
      pdf_url: { type: 'string', description: 'GET: its PDF' },
    },
  },
  KeptQuote: {
    type: 'object',
    required: ['token', 'link_expires_at', 'lead_time', 'picture', 'pdf_url', 'quote'],
    additionalProperties: false,
    properties: {
      token: { type: 'string' },
      link_expires_at: timestamp,
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
      quote: {
        ...ref('Quote'),
        description: 'The quote as GET /v2/quotes/{quote_id} answers it; `expired` says whether its price still holds',
      },
    },
  },
  QuoteLinkInvalidError: errorSchema('quote_link_invalid', { field: { const: 'token' } }),
  QuoteLinkExpiredError: errorSchema('quote_link_expired', { expired_at: timestamp }),
};

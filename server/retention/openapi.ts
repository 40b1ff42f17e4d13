// The retention settings' part of the OpenAPI document (docs/limits.md, "Retention").
import { errors, jsonBody, ok } from '../openapi/index.ts';

const bearerOrSession = [{ bearerAuth: [] }, { sessionCookie: [] }];
const cartedDays = {
  type: ['integer', 'null'],
  minimum: 1,
  maximum: 36_500,
  description:
    'Days a shopper upload that was added to a cart is kept (counted from the upload, and never while a quote of it can still be bought); null: kept until you delete it.',
};

export const retentionSchemas = {
  Retention: {
    type: 'object',
    required: ['carted_upload_days', 'uncarted_upload_days'],
    additionalProperties: false,
    properties: {
      carted_upload_days: cartedDays,
      uncarted_upload_days: {
        type: 'integer',
        minimum: 1,
        description:
          "Days a shopper upload that was not added to a cart is kept: the quote validity of the account's global settings, unless the operator set SHOPPER_UPLOAD_RETENTION_DAYS. Read-only.",
      },
    },
  },
  RetentionInput: {
    type: 'object',
    required: ['carted_upload_days'],
    additionalProperties: false,
    properties: { carted_upload_days: cartedDays },
  },
};

export const retentionPaths = {
  '/v2/retention': {
    get: {
      operationId: 'getRetention',
      tags: ['account'],
      summary: "How long the account's shopper uploads are kept",
      security: bearerOrSession,
      responses: { '200': ok('Retention', 'The retention periods in effect'), ...errors(401, 403) },
    },
    put: {
      operationId: 'setRetention',
      tags: ['account'],
      summary: 'Set how long shopper uploads that were added to a cart are kept',
      description:
        'A shopper upload nobody added to a cart is deleted after `uncarted_upload_days`; one that was added to a cart is kept for `carted_upload_days`, or until you delete it when that is null (the default). Uploads made with an API token or the dashboard are never deleted by retention.',
      security: bearerOrSession,
      requestBody: jsonBody('RetentionInput'),
      responses: { '200': ok('Retention', 'The retention periods now in effect'), ...errors(400, 401, 403) },
    },
  },
};

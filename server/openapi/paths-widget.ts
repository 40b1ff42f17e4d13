// Paths and schemas of the storefront widget: its configuration, add-to-cart, widget keys, the bundle.
import { jsonBody, ok, errors, pathParam, session, csrfHeader, timestamp } from './helpers.ts';

const widgetOrToken = [{ widgetKey: [] }, { bearerAuth: [] }];

export const widgetSchemas = {
  WidgetConfig: {
    type: 'object',
    required: ['shop_name', 'currency', 'max_upload_bytes', 'build_volume', 'default_material', 'materials', 'layer_heights', 'default_layer_height', 'infill_options', 'default_infill'],
    additionalProperties: false,
    properties: {
      shop_name: { type: 'string' },
      currency: { type: 'string' },
      max_upload_bytes: { type: 'integer' },
      build_volume: { type: 'object', required: ['x', 'y', 'z'], properties: { x: { type: 'number' }, y: { type: 'number' }, z: { type: 'number' } } },
      default_material: { type: 'string' },
      materials: {
        type: 'array',
        items: {
          type: 'object', required: ['name', 'colors', 'density', 'price_per_kg'], additionalProperties: false,
          properties: { name: { type: 'string' }, colors: { type: 'array', items: { type: 'string' } }, density: { type: ['number', 'null'] }, price_per_kg: { type: ['number', 'null'] } },
        },
      },
      layer_heights: { type: 'array', items: { type: 'number' }, description: 'Quality choices (mm) the printer supports' },
      default_layer_height: { type: 'number' },
      infill_options: { type: 'array', items: { type: 'number' } },
      default_infill: { type: 'number' },
    },
  },
  CartRequest: {
    type: 'object', required: ['quote_id'], additionalProperties: false,
    properties: { quote_id: { type: 'string', minLength: 1, maxLength: 64 }, quantity: { type: 'integer', minimum: 1, maximum: 10000, default: 1 } },
  },
  CartLine: {
    type: 'object', required: ['quote_id', 'quantity', 'unit_price', 'total_price', 'currency'], additionalProperties: false,
    properties: { quote_id: { type: 'string' }, quantity: { type: 'integer' }, unit_price: { type: 'number' }, total_price: { type: 'number' }, currency: { type: 'string' } },
  },
  WidgetKeyRequest: {
    type: 'object', required: ['name', 'allowed_origins'], additionalProperties: false,
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100 },
      allowed_origins: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', maxLength: 300 }, description: 'Origins (scheme://host[:port]) of the shop pages allowed to use the key' },
    },
  },
  WidgetKey: {
    type: 'object', required: ['widget_key_id', 'name', 'key', 'allowed_origins', 'created_at'], additionalProperties: false,
    properties: {
      widget_key_id: { type: 'string' }, name: { type: 'string' },
      key: { type: 'string', pattern: '^pk_', description: 'Publishable: safe in a page, limited to the widget routes and the allowed origins' },
      allowed_origins: { type: 'array', items: { type: 'string' } }, created_at: timestamp,
    },
  },
  WidgetKeyList: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: { $ref: '#/components/schemas/WidgetKey' } } } },
};

export const widgetPaths = {
  '/v2/widget/config': {
    get: {
      operationId: 'getWidgetConfig', tags: ['widget'], summary: 'What the storefront widget offers', security: widgetOrToken,
      responses: { '200': ok('WidgetConfig', 'Materials, colours, build volume, currency, shop name'), ...errors(401, 403) },
    },
  },
  '/v2/widget/cart': {
    post: {
      operationId: 'addToCart', tags: ['widget'], summary: 'Report an add-to-cart (fires widget.added_to_cart)', security: widgetOrToken,
      description: 'The merchant\'s webhooks receive the authoritative quote from the database; prices in the browser are informational.',
      requestBody: jsonBody('CartRequest'), responses: { '201': ok('CartLine', 'The cart line as priced by the server'), ...errors(400, 401, 403, 404, 409) },
    },
  },
  '/widget/{file}': {
    get: {
      operationId: 'getWidgetBundle', tags: ['widget'], summary: 'The widget bundle (slice-quote.js)', security: [], parameters: [pathParam('file', 'slice-quote.js')],
      responses: { '200': { description: 'JavaScript module', content: { 'application/javascript': { schema: { type: 'string' } } } }, ...errors(404) },
    },
  },
  '/dashboard/api/widget-keys': {
    get: { operationId: 'listWidgetKeys', tags: ['dashboard'], summary: 'Live widget keys', security: session, responses: { '200': ok('WidgetKeyList', 'Widget keys'), ...errors(401) } },
    post: {
      operationId: 'createWidgetKey', tags: ['dashboard'], summary: 'Create a widget key', security: session, parameters: [csrfHeader],
      requestBody: jsonBody('WidgetKeyRequest'), responses: { '201': ok('WidgetKey', 'The new key'), ...errors(400, 401, 403) },
    },
  },
  '/dashboard/api/widget-keys/{widget_key_id}': {
    delete: {
      operationId: 'revokeWidgetKey', tags: ['dashboard'], summary: 'Revoke a widget key', security: session,
      parameters: [pathParam('widget_key_id', 'A widget key id (wk_...)'), csrfHeader], responses: { '204': { description: 'Revoked' }, ...errors(401, 403, 404) },
    },
  },
};

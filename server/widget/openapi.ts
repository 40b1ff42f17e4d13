// Paths and schemas of the storefront widget: its configuration, add-to-cart, widget keys, the bundle.
import { REFUSED_ORIGINS_PER_KEY } from '../accounts/index.ts';
import {
  csrfHeader,
  deletedSchema,
  errors,
  idempotencyKey,
  jsonBody,
  ok,
  pageParams,
  pathParam,
  ref,
  session,
  shopperToken,
  timestamp,
} from '../openapi/index.ts';

const widgetOrToken = [{ widgetKey: [] }, { bearerAuth: [] }];
const bearerOrSession = [{ bearerAuth: [] }, { sessionCookie: [] }];

/** One add to a cart, as POST /v2/widget/cart answers it. */
const cartLine = {
  type: 'object',
  required: [
    'cart_line_id',
    'quote_id',
    'file_id',
    'file_revision',
    'placement',
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
    'choices',
    'expires_at',
    'signature',
  ],
  additionalProperties: false,
  description:
    "In exact minor units (docs/pricing.md, \"A cart line\"): subtotal = unit_price × quantity; quantity_discount = subtotal × discount_percent (the offer's quantity break for this quantity, half up), at most subtotal − minimum_unit_price × quantity (a break never takes a part below its minimum price); lead_time_surcharge = (subtotal − quantity_discount) × the lead time's surcharge_percent (half up) + its surcharge_amount; total_price = subtotal − quantity_discount + lead_time_surcharge + minimum_line_adjustment (which raises the line to the offer's minimum_line_price).",
  properties: {
    cart_line_id: {
      type: 'string',
      pattern: '^cl_',
      description: 'This add to the cart; a replay of the add answers the same id',
    },
    quote_id: { type: 'string' },
    file_id: { type: 'string', description: 'The part that was priced' },
    file_revision: {
      type: 'integer',
      minimum: 1,
      description: "The file's revision the quote priced (every rescale makes a new one); also in the signature",
    },
    placement: {
      oneOf: [ref('Placement'), { type: 'null' }],
      description:
        'The unit, scale and orientation the quote priced (also in the signature); null only for quotes made before placements were kept',
    },
    quantity: { type: 'integer' },
    unit_price: { type: 'number' },
    minimum_unit_price: {
      type: ['number', 'null'],
      minimum: 0,
      description:
        "The part's minimum price with its tax (the quote's minimum_unit_price), where the quantity break stops; null: no minimum. Absent from lines added before it was recorded.",
    },
    subtotal: { type: 'number' },
    discount_percent: {
      type: 'number',
      minimum: 0,
      description: 'The quantity break applied (percent off every piece); 0: none',
    },
    quantity_discount: { type: 'number', minimum: 0 },
    lead_time_surcharge: { type: 'number', minimum: 0 },
    minimum_line_adjustment: { type: 'number', minimum: 0 },
    total_price: { type: 'number' },
    currency: { type: 'string' },
    lead_time: {
      type: ['object', 'null'],
      required: ['id', 'label', 'business_days', 'ships_by'],
      additionalProperties: false,
      description:
        'The lead time the quote was made with (also in its signature); null when the offer has none. ships_by: business days (Monday to Friday) from the day of the add, UTC',
      properties: {
        id: { type: 'string' },
        label: { type: 'string' },
        business_days: { type: 'integer', minimum: 0 },
        ships_by: { type: 'string', format: 'date' },
      },
    },
    choices: ref('ResolvedChoices'),
    expires_at: timestamp,
    signature: ref('QuoteSignature'),
  },
};

/** An add to a cart as the shop's orders list it: the line, and what the shop needs to act on it. */
const order = {
  ...cartLine,
  required: [
    ...cartLine.required,
    'minimum_unit_price',
    'file_name',
    'file_url',
    'added_by',
    'widget_key_id',
    'origin',
    'status',
    'acknowledged_at',
    'created_at',
  ],
  description:
    "Every add to a cart: the line as it was answered, and whether the shop's cart acknowledged it (`status`). An `unacknowledged` line reached no cart on the shop page: the shopper was told the shop will contact them.",
  properties: {
    ...cartLine.properties,
    file_name: { type: ['string', 'null'] },
    file_url: {
      type: 'string',
      description: 'Download of the model file (GET, with an API token or a dashboard session)',
    },
    added_by: {
      type: 'string',
      enum: ['shopper', 'token', 'session'],
      description: 'A shopper through the widget, an API token, or the dashboard',
    },
    widget_key_id: { type: ['string', 'null'] },
    origin: { type: ['string', 'null'], description: 'Origin of the shop page the widget was on' },
    status: {
      type: 'string',
      enum: ['acknowledged', 'unacknowledged'],
      description: "acknowledged: the shop page's cart took the line (POST /v2/widget/cart/acknowledge)",
    },
    acknowledged_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: timestamp,
  },
};

const materialPrices = {
  type: 'object',
  required: ['file_id', 'currency', 'quality', 'infill', 'prices'],
  additionalProperties: false,
  properties: {
    file_id: { type: 'string' },
    currency: { type: ['string', 'null'], description: 'null only when no material could be resolved' },
    quality: { type: 'string', description: 'The quality preset priced' },
    infill: { type: 'number', description: 'The infill priced' },
    prices: {
      type: 'array',
      description: 'Every offered material, cheapest first (materials without a price last)',
      items: {
        type: 'object',
        required: ['material', 'description', 'total_price', 'basis'],
        additionalProperties: false,
        properties: {
          material: { type: 'string' },
          description: { type: ['string', 'null'] },
          total_price: { type: ['number', 'null'], description: 'One part; null: quote this material to price it' },
          basis: {
            type: ['string', 'null'],
            enum: ['exact', 'estimate', null],
            description:
              'exact: from a real slice already made (a quote for it answers at this price); estimate: the instant estimate scaled by an exact price of this part (exact(A) × estimate(B) / estimate(A)), shown as ≈ and never added to a cart: quote the material first',
          },
        },
      },
    },
  },
};

export const widgetSchemas = {
  WidgetConfig: {
    type: 'object',
    required: [
      'shop_name',
      'currency',
      'max_upload_bytes',
      'build_volume',
      'materials',
      'default_material',
      'qualities',
      'default_quality',
      'infill_options',
      'default_infill',
      'quantity',
      'minimum_price',
      'minimum_line_price',
      'lead_time',
      'quantity_breaks',
      'lead_times',
      'default_lead_time',
      'slice_settings',
      'request_quote_above',
    ],
    additionalProperties: false,
    description:
      "The offer this widget key quotes from (the key's own, else the account's, else the default derived from the profiles).",
    properties: {
      shop_name: { type: 'string' },
      currency: { type: 'string' },
      max_upload_bytes: { type: 'integer' },
      build_volume: {
        type: 'object',
        required: ['x', 'y', 'z'],
        properties: { x: { type: 'number' }, y: { type: 'number' }, z: { type: 'number' } },
      },
      materials: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'colors', 'description', 'swatches'],
          additionalProperties: false,
          properties: {
            name: { type: 'string' },
            colors: { type: 'array', items: { type: 'string' } },
            description: { type: ['string', 'null'] },
            swatches: {
              type: 'object',
              additionalProperties: { type: 'string', pattern: '^#[0-9a-f]{6}$' },
              description:
                'How each colour is drawn, by colour name (#rrggbb); colours without one are drawn from their name',
            },
          },
        },
      },
      default_material: { type: 'string' },
      qualities: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'label', 'layer_height', 'slice_settings'],
          additionalProperties: false,
          properties: {
            id: { type: 'string' },
            label: { type: 'string' },
            layer_height: { type: 'number', description: 'mm, as sliced' },
            slice_settings: {
              oneOf: [ref('PublishedSliceSettings'), { type: 'null' }],
              description:
                "What this quality slices with (the offer's default material and infill): the widget measures a changed choice's estimate features with it, `fill_density` set to the infill chosen (POST /v2/widget/estimate); null when it cannot be resolved",
            },
          },
        },
      },
      default_quality: { type: 'string' },
      infill_options: { type: 'array', items: { type: 'number' } },
      default_infill: { type: 'number' },
      quantity: {
        type: 'object',
        required: ['min', 'max'],
        properties: { min: { type: 'integer' }, max: { type: 'integer' } },
      },
      minimum_price: { type: ['number', 'null'] },
      minimum_line_price: { type: ['number', 'null'] },
      lead_time: { type: ['string', 'null'] },
      quantity_breaks: ref('QuantityBreaks'),
      lead_times: ref('LeadTimes'),
      default_lead_time: { type: ['string', 'null'] },
      request_quote_above: {
        oneOf: [
          { type: 'null' },
          {
            type: 'object',
            required: ['hours', 'amount'],
            additionalProperties: false,
            properties: { hours: { type: ['number', 'null'] }, amount: { type: ['number', 'null'] } },
          },
        ],
        description:
          "The offer's rule (docs/offer.md): above `hours` of print time per part, or a line total above `amount` (shop currency), the widget offers Request a quote instead of Add to cart; null: none",
      },
      slice_settings: {
        oneOf: [ref('PublishedSliceSettings'), { type: 'null' }],
        description:
          "What the offer's default choices slice with: the widget measures a dropped model's estimate features with it (POST /v2/widget/estimate); null when the default choices cannot be resolved",
      },
    },
  },
  CartRequest: {
    type: 'object',
    required: ['quote_id'],
    additionalProperties: false,
    properties: {
      quote_id: { type: 'string', minLength: 1, maxLength: 64 },
      quantity: {
        type: 'integer',
        minimum: 1,
        maximum: 100000,
        default: 1,
        description: "Must lie within the offer's quantity range",
      },
    },
  },
  CartBatchRequest: {
    type: 'object',
    required: ['lines'],
    additionalProperties: false,
    description:
      'Several lines at once, all or nothing: every line is checked as a single add-to-cart would be before any is recorded. A refused line answers its error with `details.line`, its index.',
    properties: {
      lines: {
        type: 'array',
        minItems: 1,
        maxItems: 25,
        description: 'Each line as the single form takes it; each quote at most once.',
        items: ref('CartRequest'),
      },
    },
  },
  CartLines: {
    type: 'object',
    required: ['lines'],
    additionalProperties: false,
    properties: {
      lines: { type: 'array', items: ref('CartLine'), description: 'In the order of the request' },
    },
  },
  CartLine: cartLine,
  Order: order,
  OrderList: {
    allOf: [ref('ListMeta')],
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: ref('Order') } },
  },
  CartAcknowledgement: {
    type: 'object',
    required: ['cart_line_ids'],
    additionalProperties: false,
    properties: {
      cart_line_ids: {
        type: 'array',
        minItems: 1,
        maxItems: 25,
        items: { type: 'string', minLength: 1, maxLength: 64 },
        description: 'The `cart_line_id` of each line the cart took',
      },
    },
  },
  CartAcknowledged: {
    type: 'object',
    required: ['acknowledged'],
    additionalProperties: false,
    properties: { acknowledged: { type: 'array', items: { type: 'string' } } },
  },
  WidgetKeyRequest: {
    type: 'object',
    required: ['name', 'allowed_origins'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100 },
      allowed_origins: {
        type: 'array',
        minItems: 1,
        maxItems: 50,
        items: { type: 'string', maxLength: 300 },
        description: 'Origins (scheme://host[:port]) of the shop pages allowed to use the key',
      },
    },
  },
  WidgetKey: {
    type: 'object',
    required: ['widget_key_id', 'name', 'key', 'allowed_origins', 'created_at', 'refused_origins'],
    additionalProperties: false,
    properties: {
      widget_key_id: { type: 'string' },
      name: { type: 'string' },
      key: {
        type: 'string',
        pattern: '^pk_',
        description: 'Publishable: safe in a page, limited to the widget routes and the allowed origins',
      },
      allowed_origins: { type: 'array', items: { type: 'string' } },
      created_at: timestamp,
      refused_origins: {
        type: 'array',
        maxItems: REFUSED_ORIGINS_PER_KEY,
        description:
          "Origins this key was recently refused from (403 origin_not_allowed), the most recent first: a page whose origin is not among allowed_origins, e.g. http://localhost:5173 while only http://127.0.0.1:5173 is allowed. The last 20 origins per key, kept in the server's memory since it started ('no origin' when the request carried none).",
        items: {
          type: 'object',
          required: ['origin', 'count', 'last_refused_at'],
          additionalProperties: false,
          properties: {
            origin: { type: 'string', maxLength: 300 },
            count: { type: 'integer', minimum: 1, description: 'Refused requests from this origin' },
            last_refused_at: timestamp,
          },
        },
      },
    },
  },
  MaterialPrices: materialPrices,
  WidgetKeyDeleted: deletedSchema('widget_key_id', 'The revoked widget key'),
  WidgetKeyList: {
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: { $ref: '#/components/schemas/WidgetKey' } } },
  },
};

export const widgetPaths = {
  '/v2/widget/files/{file_id}/prices': {
    get: {
      operationId: 'listMaterialPrices',
      tags: ['widget'],
      summary: 'Every offered material priced for this part, side by side',
      description:
        "The price of one part in each of the offer's materials, for the other choices given (quality, infill; each left out takes the offer's default). Read from slices already made (the upload's prefetch, earlier quotes) and from the instant estimator: it never slices, queues or counts a quote. A shopper's widget key sees only its own uploads (404 otherwise).",
      security: widgetOrToken,
      parameters: [
        pathParam('file_id', 'The part (file_...)'),
        shopperToken,
        { name: 'quality', in: 'query', required: false, schema: { type: 'string', maxLength: 40 } },
        { name: 'infill', in: 'query', required: false, schema: { type: 'number', minimum: 0, maximum: 100 } },
      ],
      responses: { '200': ok('MaterialPrices', 'One row per offered material'), ...errors(400, 401, 403, 404) },
    },
  },
  '/v2/widget/config': {
    get: {
      operationId: 'getWidgetConfig',
      tags: ['widget'],
      summary: 'What the storefront widget offers',
      security: widgetOrToken,
      responses: {
        '200': ok('WidgetConfig', 'Materials, colours, build volume, currency, shop name'),
        ...errors(401, 403),
      },
    },
  },
  '/v2/widget/cart': {
    get: {
      operationId: 'listOrders',
      tags: ['widget'],
      summary: "The shop's orders: every add to a cart, newest first",
      security: bearerOrSession,
      parameters: [
        ...pageParams,
        {
          name: 'quote_id',
          in: 'query',
          required: false,
          description: 'Only the lines of these quotes: 1 to 100 quote ids separated by commas',
          schema: { type: 'string', maxLength: 6600 },
        },
      ],
      responses: { '200': ok('OrderList', 'A page of orders'), ...errors(400, 401) },
    },
    post: {
      operationId: 'addToCart',
      tags: ['widget'],
      summary: 'Report an add-to-cart (fires widget.added_to_cart once per add)',
      security: widgetOrToken,
      description:
        "The merchant's webhooks receive the authoritative quote from the database; prices in the browser are informational. One line (`CartRequest`, answered with its `CartLine`) or up to 25 at once (`CartBatchRequest`, answered with `{lines}`): a batch is all or nothing, and a refused line's error carries its index in `details.line`. Each add is recorded (the dashboard's Orders) and sent once: a line whose quote the same shopper session (or API token) last added with the same quantity is a replay, answered with that add's line (same `cart_line_id`) and sending no second event; another quantity changes that order: the same `cart_line_id` priced for the new quantity (the latest wins), its acknowledgement cleared, and one event sent with the new quantity. A quote priced before its file was rescaled is `409 quote_stale`; re-quote it. A line priced at 0 is `422 zero_price`. A shopper session may make 30 add-to-cart calls in 10 minutes (`429 rate_limited`).",
      parameters: [shopperToken, idempotencyKey],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: { oneOf: [ref('CartRequest'), ref('CartBatchRequest')] } },
        },
      },
      responses: {
        '201': {
          description: 'The cart line as priced by the server, or for a batch every line, in order',
          content: { 'application/json': { schema: { oneOf: [ref('CartLine'), ref('CartLines')] } } },
        },
        ...errors(400, 401, 403, 404, 409, 410, 422),
      },
    },
  },
  '/v2/widget/cart/acknowledge': {
    post: {
      operationId: 'acknowledgeCartLines',
      tags: ['widget'],
      summary: "The shop's cart took these lines",
      security: widgetOrToken,
      description:
        "The widget calls it when the page acknowledged `sq-add-to-cart` (docs/widget.md); a merchant's backend may call it with its API token for lines it received otherwise (a `cart-url` form post, the webhook). A shopper acknowledges only their own lines; the merchant any of the shop's. Acknowledging twice keeps the first time. An id not found answers 404 naming it, and nothing is acknowledged.",
      parameters: [shopperToken],
      requestBody: jsonBody('CartAcknowledgement'),
      responses: { '200': ok('CartAcknowledged', 'The lines now acknowledged'), ...errors(400, 401, 403, 404) },
    },
  },
  '/v2/widget/cart/export': {
    get: {
      operationId: 'exportOrders',
      tags: ['widget'],
      summary: "The shop's orders as CSV",
      security: bearerOrSession,
      description:
        'Every add to a cart, oldest first, one row each: the line, the choices, the placement, the signed quote and its status. RFC 4180 (header row, CRLF); text cells starting with `=`, `+`, `-` or `@` get a leading apostrophe.',
      responses: {
        '200': {
          description: 'The orders, as an attachment',
          content: { 'text/csv': { schema: { type: 'string' } } },
        },
        ...errors(401),
      },
    },
  },
  '/widget/{file}': {
    get: {
      operationId: 'getWidgetBundle',
      tags: ['widget'],
      summary: 'The widget bundle (slice-quote.js and its worker)',
      description:
        "`slice-quote.js` is the script a shop's page loads; `slice-quote-worker.js` is its model parser and estimator, which the script fetches from beside itself once the page is idle and runs in a Web Worker. Both go to any origin (CORS), cached for 5 minutes, Brotli or gzip when the browser accepts it.",
      security: [],
      parameters: [pathParam('file', '`slice-quote.js` or `slice-quote-worker.js`')],
      responses: {
        '200': {
          description: 'JavaScript module',
          content: { 'application/javascript': { schema: { type: 'string' } } },
        },
        ...errors(404),
      },
    },
  },
  '/dashboard/api/widget-keys': {
    get: {
      operationId: 'listWidgetKeys',
      tags: ['dashboard'],
      summary: 'Live widget keys',
      security: session,
      responses: { '200': ok('WidgetKeyList', 'Widget keys'), ...errors(401) },
    },
    post: {
      operationId: 'createWidgetKey',
      tags: ['dashboard'],
      summary: 'Create a widget key',
      security: session,
      parameters: [csrfHeader],
      requestBody: jsonBody('WidgetKeyRequest'),
      responses: { '201': ok('WidgetKey', 'The new key'), ...errors(400, 401, 403) },
    },
  },
  '/dashboard/api/widget-keys/{widget_key_id}': {
    delete: {
      operationId: 'revokeWidgetKey',
      tags: ['dashboard'],
      summary: 'Revoke a widget key',
      security: session,
      parameters: [pathParam('widget_key_id', 'A widget key id (wk_...)'), csrfHeader],
      responses: { '200': ok('WidgetKeyDeleted', 'Revoked: the key no longer quotes'), ...errors(401, 403, 404) },
    },
  },
};

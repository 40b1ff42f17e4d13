// The offer's part of the OpenAPI document: schemas of the offer and of a shopper's choices, and its paths.
import {
  DEFAULT_MAX_SLICE_SECONDS,
  MAX_SLICE_SECONDS_LIMIT,
  OFFER_FIELDS,
  OFFER_LIMITS,
  OFFER_REQUIRED_FIELDS,
  type OfferField,
  PRESET_FIELDS,
} from '../../shared/offer.ts';
import { TERMS_LIMITS } from '../../shared/offer-terms.ts';
import { widgetBudgetSchema } from '../limits/index.ts';
import { csrfHeader, errors, jsonBody, ok, pathParam, session } from '../openapi/index.ts';
import { sectionSchema } from '../profiles/index.ts';

const printer = sectionSchema('printer_config');
const presetSettings = {
  type: 'object',
  additionalProperties: false,
  description: 'Slicing settings of the preset, laid over the printer profile',
  properties: Object.fromEntries(PRESET_FIELDS.map((f) => [f, (printer.properties as Record<string, unknown>)[f]])),
};
const amount = (description: string) => ({ type: ['number', 'null'], minimum: 0, maximum: 1_000_000, description });

const offerProperties = {
  materials: {
    type: 'array',
    minItems: 1,
    maxItems: OFFER_LIMITS.materials,
    items: {
      type: 'object',
      required: ['material'],
      additionalProperties: false,
      properties: {
        material: { type: 'string', minLength: 1, maxLength: 64, description: 'A material profile name' },
        colors: {
          type: 'array',
          maxItems: OFFER_LIMITS.colors,
          items: { type: 'string', minLength: 1, maxLength: 40 },
          description: 'Colours a shopper may pick (empty: no choice)',
        },
        description: {
          type: ['string', 'null'],
          maxLength: OFFER_LIMITS.description,
          description: 'A short text the widget shows with the material, e.g. "Tough and heat resistant (80 °C)"',
        },
        swatches: {
          type: 'object',
          maxProperties: OFFER_LIMITS.colors,
          additionalProperties: { type: 'string', pattern: '^#[0-9a-fA-F]{6}$' },
          description:
            'How the widget draws each colour, by colour name as spelt in colors: {"Galaxy Purple": "#5b2a86"}. A colour without one is drawn from its name when that is a CSS colour name.',
        },
      },
    },
  },
  default_material: { type: 'string' },
  qualities: {
    type: 'array',
    minItems: 1,
    maxItems: OFFER_LIMITS.qualities,
    items: { $ref: '#/components/schemas/QualityPreset' },
  },
  default_quality: { type: 'string' },
  infill_options: {
    type: 'array',
    minItems: 1,
    maxItems: OFFER_LIMITS.infill,
    items: { type: 'number', minimum: 0, maximum: 100 },
    description: 'Infill densities, percent',
  },
  default_infill: { type: 'number' },
  quantity: {
    type: 'object',
    required: ['min', 'max'],
    additionalProperties: false,
    properties: {
      min: { type: 'integer', minimum: 1, maximum: OFFER_LIMITS.maxQuantity },
      max: { type: 'integer', minimum: 1, maximum: OFFER_LIMITS.maxQuantity },
    },
  },
  minimum_price: amount(
    "Floor of one part's price in the merchant's currency; null: the global settings' minimum applies",
  ),
  minimum_line_price: amount('Floor of a cart line (unit price × quantity); null: none'),
  lead_time: {
    type: ['string', 'null'],
    maxLength: OFFER_LIMITS.text,
    description: 'Shown to shoppers, e.g. "Ships in 3–5 business days"',
  },
  quantity_breaks: { $ref: '#/components/schemas/QuantityBreaks' },
  lead_times: { $ref: '#/components/schemas/LeadTimes' },
  default_lead_time: {
    type: ['string', 'null'],
    description: 'The id of the lead time the widget preselects; required with lead_times, null without',
  },
  widget_budget: widgetBudgetSchema,
  max_slice_seconds: {
    type: ['integer', 'null'],
    minimum: 5,
    maximum: MAX_SLICE_SECONDS_LIMIT,
    description: `Slicer CPU seconds a shopper's part may be predicted to take on this server (what it costs with the cores to itself, whatever the load) before the widget refuses it (422 model_too_complex, before any slicing); null: ${DEFAULT_MAX_SLICE_SECONDS} s. API quotes are not bound by it.`,
  },
  show_cost_breakdown: {
    type: 'boolean',
    default: false,
    description:
      "Extension. Whether shoppers see how a part's price is made: the price breakdown's material, support, machine, energy and fee lines, price_per_gram and the resolved settings, in every answer to a widget key (quotes, jobs, kept quotes) and on a kept quote's PDF. false (the default): a widget key's quotes carry ShopperPriceBreakdown (subtotal, tax, total) and no settings; the PDF prints the line's price only. Answers to your API token always carry the whole breakdown.",
  },
  contact: {
    type: ['string', 'null'],
    maxLength: OFFER_LIMITS.text,
    description:
      'Extension. How shoppers reach the shop, printed on a kept quote and its PDF, e.g. "orders@shop.example · +1 555 0100"; null: the e-mail of the account',
  },
  request_quote_above: {
    oneOf: [
      { type: 'null' },
      {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: {
          hours: { type: ['number', 'null'], exclusiveMinimum: 0, maximum: 720 },
          amount: { type: ['number', 'null'], exclusiveMinimum: 0 },
        },
      },
    ],
    description:
      'Extension. Above these the widget offers "Request a quote" (name, e-mail, note: docs/widget.md) instead of Add to cart: a part whose print time is over `hours`, or a line (at the chosen quantity) whose total is over `amount` in the shop currency; either may be null, not both. null (the default): every priced part is sold.',
  },
} satisfies Record<OfferField, unknown>;

const leadTime = {
  type: 'object',
  required: ['id', 'label', 'business_days'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,39}$', examples: ['express'] },
    label: { type: 'string', minLength: 1, maxLength: 60, examples: ['Express'] },
    business_days: {
      type: 'integer',
      minimum: 0,
      maximum: TERMS_LIMITS.maxDays,
      description: 'Business days (Monday to Friday) until the part ships',
    },
    surcharge_percent: {
      type: 'number',
      minimum: 0,
      maximum: 1000,
      default: 0,
      description: 'Percent added to the line after quantity breaks (at most 2 decimals)',
    },
    surcharge_amount: {
      type: 'number',
      minimum: 0,
      maximum: 1_000_000,
      default: 0,
      description: "Amount added to the line, in the merchant's currency",
    },
  },
};

const qualityPreset = {
  type: 'object',
  required: ['id', 'label'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,39}$' },
    label: { type: 'string', minLength: 1, maxLength: 60, examples: ['Fine · 0.1 mm'] },
    printer_config: presetSettings,
    printer_profile: {
      type: 'string',
      pattern: '^prof_[a-z0-9_]{1,60}$',
      description:
        "The id of one of your printer profiles this quality slices with instead of your default printer profile (an imported PrusaSlicer print preset, docs/profiles.md), with printer_config laid over it. Absent: the default printer profile. A profile an offer's quality uses cannot be deleted (409 profile_in_use).",
    },
  },
};

export const offerSchemas = {
  QualityPreset: qualityPreset,
  QuantityBreaks: {
    type: 'array',
    maxItems: TERMS_LIMITS.breaks,
    description:
      'Price breaks by quantity, rising min_quantity: a line of at least min_quantity pieces costs discount_percent less (the largest break reached applies). Empty: none.',
    items: {
      type: 'object',
      required: ['min_quantity', 'discount_percent'],
      additionalProperties: false,
      properties: {
        min_quantity: { type: 'integer', minimum: 2, maximum: 100000 },
        discount_percent: {
          type: 'number',
          exclusiveMinimum: 0,
          maximum: TERMS_LIMITS.maxDiscount,
          description: 'Percent off every piece, at most 2 decimals',
        },
      },
    },
  },
  LeadTimes: {
    type: 'array',
    maxItems: TERMS_LIMITS.leadTimes,
    items: leadTime,
    description: 'Delivery options the shopper picks from (e.g. standard and express); empty: no choice',
  },
  OfferInput: {
    type: 'object',
    required: [...OFFER_REQUIRED_FIELDS],
    additionalProperties: false,
    properties: offerProperties,
    description:
      'What storefront shoppers may choose and the price floors. Checked against your profiles: every material must exist and be priced, every quality must resolve to valid settings.',
  },
  Offer: {
    type: 'object',
    // An offer read back always carries every field, its defaults filled in.
    required: [...OFFER_FIELDS, 'source'],
    additionalProperties: false,
    properties: {
      ...offerProperties,
      widget_budget: { ...widgetBudgetSchema, required: Object.keys(widgetBudgetSchema.properties) },
      source: {
        type: 'string',
        enum: ['widget_key', 'account', 'default'],
        description: "widget_key: the key's own offer; account: yours; default: derived from your profiles",
      },
    },
  },
  OfferChoices: {
    type: 'object',
    additionalProperties: false,
    description:
      "A shopper's choices from the offer; each one left out takes the offer's default. A choice outside the offer is a 400 naming choices.<field>.",
    properties: {
      material: { type: 'string', maxLength: 64 },
      color: { type: 'string', maxLength: 40 },
      quality: { type: 'string', maxLength: 40 },
      infill: { type: 'number' },
      quantity: { type: 'integer' },
      lead_time: { type: 'string', maxLength: 40, description: 'The id of one of the offer’s lead_times' },
    },
  },
  ResolvedChoices: {
    type: ['object', 'null'],
    required: ['material', 'color', 'quality', 'quality_label', 'infill', 'quantity'],
    additionalProperties: false,
    description: 'The choices a quote was made with (null for a quote from raw settings)',
    properties: {
      material: { type: 'string' },
      color: { type: ['string', 'null'] },
      quality: { type: 'string' },
      quality_label: { type: 'string' },
      infill: { type: 'number' },
      quantity: { type: 'integer' },
      lead_time: {
        ...leadTime,
        required: ['id', 'label', 'business_days', 'surcharge_percent', 'surcharge_amount'],
        description: 'The lead time chosen (also in the signature); absent when the offer has no lead-time options',
      },
    },
  },
  QuoteSignature: {
    type: 'object',
    required: ['payload', 'hmac_sha256'],
    additionalProperties: false,
    description:
      'Verify offline: HMAC-SHA256(quote signing secret, payload) equals hmac_sha256; then trust only the payload.',
    properties: {
      payload: {
        type: 'string',
        pattern:
          '^(v3:[^:]+:[^:]+:[0-9]+:[a-z]+:[0-9.e+-]+:[a-z_]+:[0-9a-f]{64}:[0-9]+:[A-Z]{3}:[a-z0-9_-]*:[0-9]+:[0-9]+|v2:[^:]+:[^:]+:[0-9]+:[a-z]+:[0-9.e+-]+:[a-z_]+:[0-9a-f]{64}:[0-9]+:[A-Z]{3}:[0-9]+|v1:[^:]+:[^:]+:[0-9a-f]{64}:[0-9]+:[A-Z]{3}:[0-9]+)$',
        description:
          'v3:<quote_id>:<file_id>:<file_revision>:<unit>:<scale>:<orientation>:<settings_digest>:<unit_amount_minor>:<currency>:<lead_time id, empty without one>:<business_days>:<expires_at unix seconds>. Quotes signed before lead times carry v2 (the same without lead_time and business_days); before v2, v1:<quote_id>:<file_id>:<settings_digest>:<unit_amount_minor>:<currency>:<expires_at unix seconds>.',
      },
      hmac_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    },
  },
  SigningSecret: {
    type: 'object',
    required: ['secret'],
    additionalProperties: false,
    properties: { secret: { type: 'string', pattern: '^qss_' } },
  },
};

const bearerOrSession = [{ bearerAuth: [] }, { sessionCookie: [] }];
const keyOffer = "Dashboard: the widget key's own offer (source widget_key) or, without one, the account's";

export const offerPaths = {
  '/v2/offer': {
    get: {
      operationId: 'getOffer',
      tags: ['offer'],
      summary: "The account's offer (what widget shoppers may choose)",
      security: bearerOrSession,
      responses: { '200': ok('Offer', 'The offer; source default when none was saved'), ...errors(401, 403) },
    },
    put: {
      operationId: 'replaceOffer',
      tags: ['offer'],
      summary: "Replace the account's offer",
      security: bearerOrSession,
      requestBody: jsonBody('OfferInput'),
      responses: { '200': ok('Offer', 'The saved offer'), ...errors(400, 401, 403, 422) },
    },
    delete: {
      operationId: 'resetOffer',
      tags: ['offer'],
      summary: 'Go back to the default offer derived from the profiles',
      security: bearerOrSession,
      responses: { '200': ok('Offer', 'The default offer now in effect'), ...errors(401, 403) },
    },
  },
  '/dashboard/api/widget-keys/{widget_key_id}/offer': {
    get: {
      operationId: 'getWidgetKeyOffer',
      tags: ['dashboard'],
      summary: keyOffer,
      security: session,
      parameters: [pathParam('widget_key_id', 'A widget key id (wk_...)')],
      responses: { '200': ok('Offer', 'The offer this key quotes from'), ...errors(401, 404) },
    },
    put: {
      operationId: 'replaceWidgetKeyOffer',
      tags: ['dashboard'],
      summary: 'Give the widget key its own offer',
      security: session,
      parameters: [pathParam('widget_key_id', 'A widget key id (wk_...)'), csrfHeader],
      requestBody: jsonBody('OfferInput'),
      responses: { '200': ok('Offer', "The key's offer"), ...errors(400, 401, 403, 404, 422) },
    },
    delete: {
      operationId: 'resetWidgetKeyOffer',
      tags: ['dashboard'],
      summary: "The widget key uses the account's offer again",
      security: session,
      parameters: [pathParam('widget_key_id', 'A widget key id (wk_...)'), csrfHeader],
      responses: { '200': ok('Offer', 'The offer now in effect for the key'), ...errors(401, 403, 404) },
    },
  },
};

export const offerTag = {
  name: 'offer',
  description: 'What storefront shoppers may choose, and the price floors (docs/offer.md)',
};

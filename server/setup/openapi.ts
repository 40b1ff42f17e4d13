// The first-run checklist's part of the OpenAPI document (docs/dashboard.md, "First-run checklist").
import { bearer, errors, ok, session } from '../openapi/index.ts';

const done = { type: 'boolean', description: 'The step is done, read from what the shop has' };
const count = { type: 'integer', minimum: 0 };
const money = { type: ['number', 'null'], minimum: 0 };
const step = (description: string, properties: Record<string, unknown> = {}) => ({
  type: 'object',
  description,
  required: ['done', ...Object.keys(properties)],
  additionalProperties: false,
  properties: { done, ...properties },
});

export const setupPaths = {
  '/v2/setup': {
    get: {
      operationId: 'getSetup',
      tags: ['account'],
      summary: "The shop's first-run checklist",
      description:
        'Each step says whether it is done, from what the account holds: a live widget key; an offer saved (for the account or a key); its own price for every material a shopper can pick (the effective offer’s and every widget key’s own offer’s: a price from one of the account’s material profiles, not a shipped example price), with the currency and minimums in force; a cart that took a line the widget added (acknowledged `sq-add-to-cart`); a first order. `cart.not_connected`: orders exist but no cart took any.',
      security: [...bearer, ...session],
      responses: { '200': ok('Setup', 'The checklist'), ...errors(401) },
    },
  },
};

export const setupSchemas = {
  Setup: {
    type: 'object',
    required: ['widget_key', 'offer', 'prices', 'cart', 'test_order', 'complete'],
    additionalProperties: false,
    properties: {
      widget_key: step('A live widget key exists', { widget_keys: count }),
      offer: step('An offer was saved for the account or a widget key'),
      prices: step("Every offered material is sold at the shop's own price (from its own material profile)", {
        own_profiles: { ...count, description: 'Material and global-settings profiles the account has' },
        materials: { ...count, description: 'Materials shoppers can pick (the offer and the widget keys’ own offers)' },
        example_priced_materials: {
          type: 'array',
          items: { type: 'string' },
          description:
            'Offered materials still sold at a shipped profile’s example price, in offer order; empty when the step is done',
        },
        currency: { type: 'string', description: 'The shop currency in force' },
        minimum_price: { ...money, description: "The account offer's minimum price per part; null: the profiles'" },
        minimum_line_price: { ...money, description: "The account offer's minimum line price; null: none" },
      }),
      cart: step("The shop page's cart took at least one line", {
        not_connected: { type: 'boolean', description: 'Orders exist, and no cart took any of them' },
        acknowledged: count,
      }),
      test_order: step('At least one order (an add to a cart) exists', { orders: count }),
      complete: { type: 'boolean', description: 'Every step is done' },
    },
  },
};

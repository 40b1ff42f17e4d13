// Paths and schemas of quotes, jobs and quote history, the dashboard's quote signing secret, and the schemas of
// slice profiles (whose paths are in server/profiles/openapi.ts).

import { PRICE_LINES, type PriceLine } from '../../shared/pricing.ts';
import { quoteBudgetResponses } from '../limits/index.ts';
import {
  allowanceRefusal,
  bearer,
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
import { sectionSchema, settingSchema } from '../profiles/index.ts';

// Also open to a storefront's widget key, for the quotes of its own uploads.
const bearerOrWidget = [{ bearerAuth: [] }, { widgetKey: [] }];
const nullableTime = { type: ['string', 'null'], format: 'date-time' };
const fileId = pathParam('file_id', 'A file id (file_...)');
const range = { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 };
/** RFC 7240: a client that would rather poll than hold the connection (the widget asks for a second). */
const preferWait = {
  name: 'Prefer',
  in: 'header',
  required: false,
  description:
    "`wait=<seconds>`: hold the connection at most this long (never longer than the server's QUOTE_SYNC_WAIT_MS) before answering 202 with the job and its estimate (when made in time); `respond-async`: answer 202 at once unless the slice is cached. The answer's `Preference-Applied` says what was applied.",
  schema: { type: 'string', maxLength: 200 },
};
const jobPreferHeader = {
  name: 'Prefer',
  in: 'header',
  required: false,
  description:
    '`wait=<seconds>`: hold the answer until the job has finished, at most this long (capped at 10 s); without it the job is answered at once.',
  schema: { type: 'string', maxLength: 200 },
};
const statusEnum = { type: 'string', enum: ['queued', 'processing', 'completed', 'failed'] };
const problem = {
  type: ['object', 'null'],
  required: ['code', 'message'],
  properties: { code: { type: 'string' }, message: { type: 'string' } },
};
const money = { type: 'number' };
const LINE_NOTES: Record<PriceLine, string> = {
  material: 'a part',
  support: 'a part',
  machine: 'a part',
  energy: 'a part',
  fixed_fee: 'a part',
  minimum_price_adjustment: 'a part: what lifts the subtotal to the minimum price, else 0',
  subtotal: 'the sum of the parts',
  tax: 'of the subtotal',
  total: 'subtotal + tax',
};

export const quoteSchemas = {
  PrinterConfig: sectionSchema('printer_config'),
  MaterialConfig: sectionSchema('material_config'),
  QuoteConfig: sectionSchema('quote_config'),
  QuoteRequest: {
    type: 'object',
    additionalProperties: false,
    description:
      'Every field is optional; omitted ones come from the profiles (request > choices from the offer > the account\'s default profile > the global profile, field by field). `{"material_config": {"filament_type": "PLA"}}` is a valid minimal request. A widget key sends only `choices`; any other field is a 400.',
    properties: {
      choices: ref('OfferChoices'),
      printer_config: ref('PrinterConfig'),
      material_config: ref('MaterialConfig'),
      quote_config: ref('QuoteConfig'),
      color: {
        type: 'string',
        minLength: 1,
        maxLength: 40,
        description: "Colour shown in printInfo (default: the material profile's colour)",
      },
    },
  },
  PrintInfo: {
    type: 'object',
    required: ['technology', 'material', 'color'],
    additionalProperties: false,
    properties: {
      technology: { type: 'string', examples: ['FDM'] },
      material: { type: 'string' },
      color: { type: 'string' },
    },
  },
  PriceBreakdown: {
    type: 'object',
    required: ['currency', 'digits', 'exchange_rate', 'price_per_gram', ...PRICE_LINES, 'minor_units'],
    additionalProperties: false,
    description:
      "The price of one part (docs/pricing.md). Parts: material = model grams × price per gram; support = support grams × price per gram × support_cost_multiplier; machine = hours × hourly_cost; energy = power_watts/1000 × hours × energy_cost_per_kwh; fixed_fee; minimum_price_adjustment raises a cheaper part to quote_config.minimum_price. Each part is computed in the shop currency, multiplied by the exchange rate when the quote is in another currency, and rounded half-up to the currency's minor unit; subtotal is the sum of the rounded parts, tax = subtotal × tax_rate/100 rounded half-up, total = subtotal + tax. The lines always add up exactly: `minor_units` holds them as integers.",
    properties: {
      currency: { type: 'string', description: 'ISO 4217 code of the quote' },
      digits: {
        type: 'integer',
        minimum: 0,
        maximum: 4,
        description: "Decimal places of the currency's minor unit (ISO 4217): JPY 0, USD 2, KWD 3",
      },
      exchange_rate: {
        description:
          'null when the quote is in the shop currency; else the rate every amount was converted with: 1 `from` = `rate` `to`',
        oneOf: [
          { type: 'null' },
          {
            type: 'object',
            required: ['from', 'to', 'rate'],
            additionalProperties: false,
            properties: {
              from: { type: 'string', description: 'The shop currency' },
              to: { type: 'string', description: 'The quote currency' },
              rate: { type: 'number', exclusiveMinimum: 0 },
            },
          },
        ],
      },
      price_per_gram: {
        type: 'number',
        description: 'Material price per gram in the quote currency (a rate: not rounded)',
      },
      ...Object.fromEntries(
        PRICE_LINES.map((line) => [
          line,
          {
            ...money,
            minimum: 0,
            description: `In the quote currency, rounded to \`digits\` decimals (${LINE_NOTES[line]})`,
          },
        ]),
      ),
      minimum_unit_price: {
        type: ['number', 'null'],
        minimum: 0,
        description:
          "The part's price at its minimum: quote_config.minimum_price in the quote currency plus its tax (rounded like the lines). A cart line's quantity break never takes a part below it. null: no minimum (set to 0). Absent from quotes made before it existed.",
      },
      minor_units: {
        type: 'object',
        required: [...PRICE_LINES],
        additionalProperties: false,
        description: 'The same lines as integers of the minor unit (cents for USD, yen for JPY): exact for any client',
        properties: Object.fromEntries(PRICE_LINES.map((line) => [line, { type: 'integer', minimum: 0 }])),
      },
    },
  },
  ShopperPriceBreakdown: {
    type: 'object',
    required: [
      'currency',
      'digits',
      'exchange_rate',
      'subtotal',
      'tax',
      'total',
      'minimum_price_applied',
      'minor_units',
    ],
    additionalProperties: false,
    description:
      "Extension. The price of one part as a shop's shoppers see it when its offer keeps the cost breakdown to itself (`show_cost_breakdown`: false, the default; docs/offer.md): the subtotal, its tax and the total, without the material, support, machine, energy and fee lines or the price per gram. Such a quote carries no `settings` and no `setting_sources` either.",
    properties: {
      currency: { type: 'string', description: 'ISO 4217 code of the quote' },
      digits: { type: 'integer', minimum: 0, maximum: 4 },
      exchange_rate: {
        description: 'As in PriceBreakdown',
        oneOf: [
          { type: 'null' },
          {
            type: 'object',
            required: ['from', 'to', 'rate'],
            additionalProperties: false,
            properties: {
              from: { type: 'string' },
              to: { type: 'string' },
              rate: { type: 'number', exclusiveMinimum: 0 },
            },
          },
        ],
      },
      subtotal: { ...money, minimum: 0, description: 'The price of one part before tax' },
      tax: { ...money, minimum: 0 },
      total: { ...money, minimum: 0, description: 'subtotal + tax: the price of one part' },
      minimum_price_applied: {
        type: 'boolean',
        description: "The part is priced at the shop's minimum price per part",
      },
      minimum_unit_price: {
        type: ['number', 'null'],
        minimum: 0,
        description: 'As in PriceBreakdown: a quantity break never takes a part below it',
      },
      minor_units: {
        type: 'object',
        required: ['subtotal', 'tax', 'total'],
        additionalProperties: false,
        properties: Object.fromEntries(
          ['subtotal', 'tax', 'total'].map((line) => [line, { type: 'integer', minimum: 0 }]),
        ),
      },
    },
  },
  PrintStats: {
    type: 'object',
    required: [
      'filament_length_mm',
      'filament_volume_cm3',
      'filament_weight_g',
      'support_weight_g',
      'print_time_s',
      'layers',
      'support_share',
    ],
    properties: {
      filament_length_mm: { type: 'number' },
      filament_volume_cm3: { type: 'number' },
      filament_weight_g: { type: 'number' },
      support_weight_g: { type: 'number' },
      print_time_s: { type: 'number', description: "PrusaSlicer's estimate (normal mode)" },
      layers: { type: 'integer' },
      support_share: { type: 'number', minimum: 0, maximum: 1, description: 'Support extrusion over all extrusion' },
      max_z_mm: { type: 'number' },
    },
  },
  Quote: {
    type: 'object',
    required: ['quote_id', 'job_id', 'status', 'mode', 'file_id', 'file_name', 'created_at', 'completed_at'],
    description:
      'A quote. When `status` is completed it carries the result fields and the breakdown; when failed, `error`.',
    properties: {
      quote_id: { type: 'string' },
      job_id: { type: 'string', description: 'Equals quote_id' },
      status: statusEnum,
      mode: { type: 'string', enum: ['sync', 'async'] },
      file_id: { type: 'string' },
      file_name: { type: 'string' },
      created_at: timestamp,
      completed_at: nullableTime,
      total_price: money,
      minimum_unit_price: {
        type: ['number', 'null'],
        minimum: 0,
        description:
          "The part's price at the shop's minimum price per part, with its tax, in `currency` (price_breakdown.minimum_unit_price, as a selling term): a cart line's quantity break never takes a part below it (docs/pricing.md, \"A cart line\"). null: no minimum.",
      },
      currency: { type: 'string' },
      estimated_time: { type: 'string', examples: ['2h 15m'] },
      estimated_time_seconds: { type: 'integer' },
      filament_weight: { type: 'number', description: 'Grams' },
      printInfo: ref('PrintInfo'),
      cached: { type: 'boolean', description: 'Statistics reused from an identical earlier slice' },
      processing_time_ms: { type: 'integer' },
      price_breakdown: {
        oneOf: [ref('PriceBreakdown'), ref('ShopperPriceBreakdown')],
        description:
          "PriceBreakdown for your API token and dashboard, and for a widget key when the offer's `show_cost_breakdown` is true; otherwise (a widget key, by default) ShopperPriceBreakdown, the price without the costs it is made from",
      },
      print_stats: ref('PrintStats'),
      infill_pattern: {
        type: 'object',
        required: ['requested', 'used', 'exact'],
        properties: {
          requested: { type: 'string' },
          used: { type: 'string', description: 'PrusaSlicer fill_pattern sliced' },
          exact: { type: 'boolean' },
        },
      },
      support_density: {
        type: 'object',
        required: ['requested', 'used'],
        additionalProperties: false,
        description:
          "Support body density in percent: the request's, and the one sliced (the nearest halving " +
          'of 100 %, 0 = no body lines); applies only when support_material is on',
        properties: { requested: { type: 'number' }, used: { type: 'number' } },
      },
      settings: {
        type: 'object',
        description:
          "The resolved settings that were sliced and priced; absent from a widget key's answers unless the offer's `show_cost_breakdown` is true",
        properties: {
          printer_config: { type: 'object' },
          material_config: { type: 'object' },
          quote_config: { type: 'object' },
        },
      },
      setting_sources: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description:
          'Where each value came from: request, offer, profile:<id>, global:<id> or built-in; with an imported profile, also `slicer.<option>`: the profile and preset each PrusaSlicer option came from. Absent wherever `settings` is',
      },
      slicer: {
        type: 'object',
        required: ['name', 'version'],
        properties: { name: { type: 'string' }, version: { type: 'string' }, slice_time_ms: { type: 'number' } },
      },
      expires_at: {
        ...timestamp,
        description: 'After this the quote cannot be added to a cart and its signature is stale',
      },
      expired: { type: 'boolean' },
      manual: {
        type: 'boolean',
        description:
          'Extension. true: the merchant priced this part by hand (a quote request, POST /v2/quote-requests/{request_id}/price). Signed like every quote; its breakdown states the price before tax as `fixed_fee`, its print figures are those of the automatic quote it replaced (0 when there was none), and its line is unit price × quantity (no quantity break, delivery surcharge or minimum line price). Absent on quotes the slicer priced',
      },
      choices: ref('ResolvedChoices'),
      settings_digest: {
        type: 'string',
        pattern: '^[0-9a-f]{64}$',
        description: 'SHA-256 of the resolved settings, colour and choices',
      },
      signature: ref('QuoteSignature'),
      placement: ref('Placement'),
      warnings: {
        type: 'array',
        items: { oneOf: [ref('UnitSuspectWarning'), ref('ThinWallsWarning')] },
        description:
          'A size that suggests a unit mistake (`unit_suspect`), walls thinner than the nozzle on average (`thin_walls`): the quote was still priced as placed',
      },
      error: problem,
    },
  },
  ThinWallsWarning: {
    type: 'object',
    required: ['code', 'message', 'average_wall_mm', 'nozzle_mm'],
    additionalProperties: false,
    description:
      'The part\'s walls are on average thinner than the nozzle (2 × volume / surface, as printed): thin parts may print weak or not at all (docs/placement.md, "Thin walls and tiny parts")',
    properties: {
      code: { const: 'thin_walls' },
      message: { type: 'string' },
      average_wall_mm: { type: 'number', minimum: 0 },
      nozzle_mm: { type: 'number', exclusiveMinimum: 0 },
    },
  },
  QuoteList: {
    allOf: [ref('ListMeta')],
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: ref('Quote') } },
  },
  QuoteDeleted: {
    type: 'object',
    required: ['quote_id', 'deleted'],
    additionalProperties: false,
    properties: { quote_id: { type: 'string' }, deleted: { const: true } },
  },
  JobAccepted: {
    type: 'object',
    required: ['job_id', 'quote_id', 'status', 'status_url', 'estimate'],
    additionalProperties: false,
    properties: {
      job_id: { type: 'string' },
      quote_id: { type: 'string', description: 'Equals job_id' },
      status: statusEnum,
      status_url: { type: 'string' },
      estimate: {
        oneOf: [ref('Estimate'), { type: 'null' }],
        description:
          "The instant estimate while the slice runs. Null when none can be made for this model (the exact quote decides), or when it was not made within the server's QUOTE_ESTIMATE_WAIT_MS (default 5 s; a loaded host measures a large mesh slower) or before the job finished: the job (`GET /v2/jobs/{job_id}`) shows it once it is made",
      },
    },
  },
  Estimate: {
    type: 'object',
    description:
      'An instant estimate from the mesh (docs/estimate.md), shown while the real slice runs. **Not a price**: it cannot be added to a cart, and the completed quote replaces it. The real figures are expected inside the ranges.',
    required: [
      'total_price',
      'price_range',
      'currency',
      'filament_weight',
      'weight_range',
      'estimated_time_seconds',
      'time_range',
      'method',
      'samples',
      'calibration',
    ],
    additionalProperties: false,
    properties: {
      total_price: { type: 'number', description: 'The price the estimated weight and time come to, in `currency`' },
      price_range: { ...range, description: 'The price at the low and high ends of the weight and time ranges' },
      currency: { type: 'string' },
      filament_weight: { type: 'number', description: 'Grams' },
      weight_range: { ...range, description: 'Grams: the real slice is expected inside' },
      estimated_time_seconds: { type: 'integer' },
      time_range: { ...range, description: 'Seconds: the real print time is expected inside' },
      method: {
        type: 'string',
        enum: ['cross-sections', 'cross-sections+calibration', 'coarse'],
        description:
          "Layer cross-sections of the mesh, with or without a calibration on real slices; `coarse`: the first stage of the widget's estimate (POST /v2/widget/estimate with `coarse_features`), one pass over the mesh's triangles calibrated on real slices, less exact and with wider ranges, replaced by the cross-sections' estimate when the browser has measured it. A quote's own estimate is never coarse",
      },
      samples: { type: 'integer', minimum: 0, description: 'Real slices behind the calibration' },
      calibration: {
        type: 'string',
        enum: ['account', 'shipped'],
        description:
          "`account`: fitted on this account's own real slices of the same printer and material; `shipped`: the calibration the product ships, until the account has enough of its own",
      },
    },
  },
  Job: {
    type: 'object',
    required: [
      'job_id',
      'quote_id',
      'status',
      'progress',
      'estimate',
      'stage',
      'step',
      'expected_remaining_seconds',
      'expected_remaining_reason',
      'slices_ahead',
      'file_id',
      'file_name',
      'attempts',
      'created_at',
      'started_at',
      'finished_at',
      'result',
      'error',
    ],
    additionalProperties: false,
    properties: {
      job_id: { type: 'string' },
      quote_id: { type: 'string' },
      status: statusEnum,
      progress: {
        type: 'integer',
        minimum: 0,
        maximum: 100,
        description:
          "Percent: the slicer's own progress while it slices, at least the share of the expected time that has passed. 100 once the job is finished, `completed` or `failed`",
      },
      estimate: {
        oneOf: [ref('Estimate'), { type: 'null' }],
        description:
          'While the job waits or slices: its instant estimate (not a price) from the moment it is made, also when the 202 answered without it; null before that, when none can be made, and once the job has finished',
      },
      stage: {
        type: ['string', 'null'],
        description: 'While slicing: the stage the slicer reports (e.g. "Generating perimeters"); null otherwise',
      },
      step: {
        type: ['string', 'null'],
        enum: ['queued', 'preparing', 'slicing', 'pricing', null],
        description:
          'Where the job is, in words a shopper understands: `queued` (waiting for the slicer), `preparing` (reading the model), `slicing`, `pricing` (reading the print time and filament off the slice); null once it has finished',
      },
      expected_remaining_seconds: {
        type: ['integer', 'null'],
        minimum: 1,
        description:
          "Until the job finishes, the seconds it is expected to take still (an estimate, at least 1): while queued, the predicted slicer time of the work ahead of it shared over the slicer's slots plus its own (or, when a prefetch or another quote is making the same slice, until that one ends); while slicing, until its predicted end (a slice that reaches that end is given half the time it has taken more, which holds until it is reached). Null once finished, or while queued when its cost is unknown",
      },
      expected_remaining_reason: {
        type: ['string', 'null'],
        enum: ['queue', 'same_slice', 'slower_than_predicted', null],
        description:
          "Why `expected_remaining_seconds` is more than the job's own predicted slice, so that a client can say why a time left grew: `queue` (it waits for the slices ahead of it, `slices_ahead`), `same_slice` (another request is making the same slice; it ends with that one), `slower_than_predicted` (its slice is expected to take longer than predicted: its stages came late, or it outran its expected end). Null: the figure is its own prediction, or it has finished",
      },
      slices_ahead: {
        type: ['integer', 'null'],
        minimum: 0,
        description:
          'While queued: the slices it waits for (running, and queued before it); 0 when a slicer slot is free for it. A number that grows is a queue that grew. Null while slicing or once finished',
      },
      file_id: { type: 'string' },
      file_name: { type: 'string' },
      attempts: {
        type: 'integer',
        description:
          "Slices of the job a worker started: 1 normally, one more each time a worker died mid-slice (or stopped answering for longer than the job's lease) and another took it over. A slice handed back by a stopping worker, or moved from the short lane to a normal slot, is not counted. A job whose slice was interrupted 3 times fails with `worker_lost`",
      },
      created_at: timestamp,
      started_at: nullableTime,
      finished_at: nullableTime,
      result: { oneOf: [ref('Quote'), { type: 'null' }] },
      error: problem,
    },
  },
  ProfileInput: {
    type: 'object',
    required: ['name', 'settings'],
    additionalProperties: false,
    properties: {
      name: {
        type: 'string',
        minLength: 1,
        maxLength: 64,
        description: 'For material profiles: the filament_type requests use to find it',
      },
      is_default: {
        type: 'boolean',
        description: 'At most one default per kind; setting it clears the previous default',
      },
      settings: {
        type: 'object',
        description:
          'printer: printer_config fields (plus power_watts); material: material_config fields plus color and colors; global: quote_config fields plus exchange_rates (schema under Profile.settings) and layer_height, min_layer_height, max_layer_height. Amounts are in the shop currency: the currency of the global settings that apply. price_per_kg and price_per_gram are one setting: a profile may hold both only if they are equal.',
      },
    },
  },
  Profile: {
    type: 'object',
    required: ['profile_id', 'kind', 'name', 'scope', 'is_default', 'settings', 'created_at', 'updated_at'],
    additionalProperties: false,
    properties: {
      profile_id: { type: 'string' },
      kind: { type: 'string', enum: ['printer', 'material', 'global'] },
      name: { type: 'string' },
      scope: {
        type: 'string',
        enum: ['account', 'global'],
        description: 'global profiles ship with the product and are read-only',
      },
      is_default: { type: 'boolean' },
      created_at: timestamp,
      updated_at: timestamp,
      settings: {
        type: 'object',
        description: 'As in ProfileInput',
        properties: { exchange_rates: settingSchema('quote_config', 'exchange_rates') },
      },
      slicer_options: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description:
          'Imported profiles only (POST /v2/profiles/import): the allowlisted PrusaSlicer options this profile slices with, by option name, as PrusaSlicer writes them (docs/profiles.md)',
      },
      slicer_sources: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: 'Imported profiles only: the preset each slicer option came from',
      },
    },
  },
  ProfileDeleted: deletedSchema('profile_id', 'The deleted profile'),
  ProfileList: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: ref('Profile') } } },
};

const quoteBody = jsonBody('QuoteRequest', 'Quote settings; every field optional', false);

export const quotePaths = {
  '/v2/file/quote/{file_id}': {
    post: {
      operationId: 'createQuote',
      'x-rate-limit-class': 'quote',
      tags: ['quotes'],
      summary: 'Quote a file from a real slice',
      security: bearerOrWidget,
      parameters: [fileId, shopperToken, idempotencyKey, preferWait],
      requestBody: quoteBody,
      description:
        "Resolves the settings, places the model on the printer (unit, scale, orientation: stated in `placement`), slices the canonical mesh with PrusaSlicer (or reuses an identical earlier slice), prices it, and saves it to history. If slicing outlasts QUOTE_SYNC_WAIT_MS (or the wait the client prefers: `Prefer: wait=<seconds>`, `Prefer: respond-async`) the answer is 202 with the job to poll and the instant `estimate` (null when not made within QUOTE_ESTIMATE_WAIT_MS: the job shows it once made). A model that fits the printer in no orientation fails at once, without slicing: 422 `exceeds_build_volume` with `details.exceeds`; one thinner at its thinnest side than a layer of the chosen quality fails the same way with 422 `feature_too_small` (`details.thinnest_mm`, `details.layer_height_mm`), and a speck — narrower in two directions than one loop of perimeters, 2.25 × the nozzle — with 422 `part_too_small` (`details.across_mm`, `details.nozzle_mm`, `details.smallest_mm`). A shop's shopper (widget key) whose upload is multi-colour (the file's `multi_material` warning: several colours, materials or extruders, which one filament's slice would misprice) is refused the same way, never sliced: 422 `multi_material` with `details.assignment` (and `details.count`, the extruders, when known); an API caller gets the one-material price with the file's warning. Prices: amounts in the request are in the shop currency; a `quote_config.currency` other than the shop's is converted with the shop's `exchange_rates` or refused with 422 `currency_not_offered` (`details.field` is `quote_config.currency`, `details.available` lists the currencies offered). Other 422 codes of pricing: `material_price_missing`, `price_out_of_range`. A shop's shopper (widget key) whose part is predicted to take more slicer time than the offer's `max_slice_seconds` is refused before any slicing: 422 `model_too_complex` with `details.limit_seconds`, `details.predicted_seconds`, `details.over_limit` (the quality chosen, for offer choices) and `details.within_limit` (the offer's other qualities predicted within the limit with the same other choices, finest first, each `{quality, label, predicted_seconds}`; empty when none is). Slicer seconds are CPU seconds, which the server's load does not change. A slice may use at most 8 times its predicted CPU time (at least 60 s) (capped by SLICER_TIMEOUT_MS) and then fails with `slice_timeout`; its CPU seconds count against the caller's hourly slicer budget like any other slice's. Every 422 refusal is recorded as a failed quote, sends quote.failed and names it in `details.quote_id`; a 400 (malformed request) is not a quote. A synchronous quote sends no job.status_changed events.",
      responses: {
        '200': ok('Quote', 'The completed quote'),
        '202': ok('JobAccepted', 'Still slicing: poll the job'),
        ...allowanceRefusal('QuoteAllowanceExhausted'),
        ...quoteBudgetResponses,
        ...errors(400, 401, 403, 404, 409, 422, 500, 503),
      },
    },
  },
  '/v2/file/quote/{file_id}/async': {
    post: {
      operationId: 'createQuoteAsync',
      'x-rate-limit-class': 'quote',
      tags: ['quotes'],
      summary: 'Start a quote job',
      security: bearerOrWidget,
      parameters: [fileId, shopperToken, idempotencyKey],
      requestBody: quoteBody,
      description:
        'Same body as the synchronous quote. The quote id equals the job id. The 202 carries the instant `estimate` when it is made within QUOTE_ESTIMATE_WAIT_MS, else null (the job shows it once made). Emits job.status_changed on every transition and quote.completed or quote.failed at the end. A request refused with 422 before the job is queued is recorded as a failed quote too, sends quote.failed and names it in `details.quote_id`.',
      responses: {
        '202': ok('JobAccepted', 'Queued'),
        ...allowanceRefusal('QuoteAllowanceExhausted'),
        ...quoteBudgetResponses,
        ...errors(400, 401, 403, 404, 409, 422, 503),
      },
    },
  },
  '/v2/jobs/{job_id}': {
    get: {
      operationId: 'getJob',
      tags: ['quotes'],
      summary: 'Job status, progress and result',
      security: bearerOrWidget,
      description:
        'With `Prefer: wait=<seconds>` (at most 10) the answer waits until the job has finished, or that long if it has not: a client learns of the result the moment it exists, without polling in between. `Preference-Applied` says the wait applied.',
      parameters: [pathParam('job_id', 'A job id'), shopperToken, jobPreferHeader],
      responses: { '200': ok('Job', 'The job'), ...errors(400, 401, 403, 404) },
    },
  },
  '/v2/quotes': {
    get: {
      operationId: 'listQuotes',
      tags: ['quotes'],
      summary: 'Quote history, newest first',
      security: bearer,
      parameters: pageParams,
      responses: { '200': ok('QuoteList', 'A page of quotes'), ...errors(400, 401) },
    },
  },
  '/v2/quotes/{quote_id}': {
    get: {
      operationId: 'getQuote',
      tags: ['quotes'],
      summary: 'One quote',
      security: bearerOrWidget,
      parameters: [pathParam('quote_id', 'A quote id'), shopperToken],
      responses: { '200': ok('Quote', 'The quote'), ...errors(400, 401, 403, 404) },
    },
    delete: {
      operationId: 'deleteQuote',
      tags: ['quotes'],
      summary: 'Remove a quote from history',
      security: bearer,
      parameters: [pathParam('quote_id', 'A quote id')],
      description: "The quote leaves the history; it still counts toward the month's usage.",
      responses: { '200': ok('QuoteDeleted', 'Removed'), ...errors(401, 404) },
    },
  },
  '/dashboard/api/quote-signing-secret': {
    get: {
      operationId: 'getQuoteSigningSecret',
      tags: ['dashboard'],
      summary: 'The secret that signs quotes (for offline verification)',
      security: session,
      responses: { '200': ok('SigningSecret', 'The secret'), ...errors(401) },
    },
  },
  '/dashboard/api/quote-signing-secret/rotate': {
    post: {
      operationId: 'rotateQuoteSigningSecret',
      tags: ['dashboard'],
      summary: 'Replace the signing secret (older signatures stop verifying offline)',
      security: session,
      parameters: [csrfHeader],
      responses: { '200': ok('SigningSecret', 'The new secret'), ...errors(401, 403) },
    },
  },
};

// Path and schemas of the widget's instant estimate (POST /v2/widget/estimate, docs/instant-price.md), and the
// slice settings the widget configuration publishes for it.
import { errors, jsonBody, ok, ref } from '../openapi/index.ts';

/** A feature's value: a number, a flag, null (a setting that is off), a short list or a small record of them. */
const scalar = { type: ['number', 'boolean', 'null'] };
const featureValue = {
  oneOf: [
    scalar,
    { type: 'array', maxItems: 8, items: scalar },
    { type: 'object', maxProperties: 32, propertyNames: { maxLength: 64 }, additionalProperties: scalar },
  ],
};

/** A feature set: a bounded record of feature values (its layout is the estimator's, versioned with it). */
const featureRecord = {
  type: 'object',
  minProperties: 1,
  maxProperties: 64,
  propertyNames: { maxLength: 64 },
  additionalProperties: featureValue,
};

export const estimateSchemas = {
  PublishedSliceSettings: {
    type: 'object',
    required: ['printer', 'material'],
    additionalProperties: false,
    description:
      "What the offer's default choices slice with, for the widget's estimator: the printer settings that change a slice and the material's density and diameter. Never the cost model (hourly cost, power, material prices, fees, taxes).",
    properties: {
      printer: { type: 'object', additionalProperties: { type: ['number', 'integer', 'boolean', 'string'] } },
      material: {
        type: 'object',
        required: ['density', 'diameter'],
        additionalProperties: false,
        properties: {
          density: { type: 'number', description: 'g/cm³' },
          diameter: { type: 'number', description: 'mm' },
        },
      },
      motion: {
        type: 'object',
        additionalProperties: { type: 'number' },
        description:
          "Present when the shop slices with its own imported PrusaSlicer config (docs/profiles.md): the speeds (mm/s) and accelerations (mm/s²) per kind of extrusion the slice runs, and its cooling slowdown (shared/estimate `FeatureMotion`). Absent, the estimator derives them from `printer.print_speed` as the service's own config does.",
      },
    },
  },
  WidgetEstimateRequest: {
    type: 'object',
    additionalProperties: false,
    description: 'Exactly one of `features` (the fine stage) and `coarse_features` (the coarse stage).',
    properties: {
      features: {
        ...featureRecord,
        description:
          "The estimator's features of the mesh (shared/estimate `extractFeatures`), measured in the browser with the configuration's `slice_settings`: a few hundred numbers, never the mesh",
      },
      coarse_features: {
        ...featureRecord,
        description:
          "The coarse stage's features of the mesh (shared/estimate `extractCoarseFeatures`: one pass over its triangles, a few milliseconds), measured with the same settings as `features` would be; the answer's `estimate.method` is then `coarse`, with the coarse stage's wider ranges",
      },
      choices: ref('OfferChoices'),
    },
  },
  WidgetEstimate: {
    type: 'object',
    required: ['estimate', 'choices'],
    additionalProperties: false,
    description:
      'An estimate, **not a price**: no quote id, so it cannot be added to a cart; never in a webhook. The quote of the uploaded file replaces it.',
    properties: { estimate: ref('Estimate'), choices: ref('ResolvedChoices') },
  },
};

export const estimatePaths = {
  '/v2/widget/estimate': {
    post: {
      operationId: 'estimateFromFeatures',
      tags: ['widget'],
      summary: 'An instant estimate from mesh features measured in the browser, before the upload has arrived',
      description:
        "Widget keys only. Send `coarse_features` the moment the file is read (the answer's `method` is `coarse`), then `features` when they are measured: the second estimate replaces the first. The features must have been measured with the settings of the choices priced: the configuration's `slice_settings` for the offer's default choices, or the chosen quality's `qualities[].slice_settings` with `fill_density` set to the infill chosen (the `choices` sent); otherwise 422 naming `features` (or `coarse_features`). Neither or both: 400. Counted in the `write` rate-limit class, per shopper address: it uses no quote allowance and no slicer time, so a shopper's estimates never take the place of their quotes.",
      security: [{ widgetKey: [] }],
      requestBody: jsonBody('WidgetEstimateRequest'),
      responses: {
        '200': ok('WidgetEstimate', "The estimate priced with the shop's calibration and prices"),
        ...errors(400, 401, 403, 422),
      },
    },
  },
};

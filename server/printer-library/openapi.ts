// The printer library's part of the OpenAPI document (docs/profiles.md, "Printer library").
import { bearer, errors, ok, session } from '../openapi/index.ts';

const names = (description: string) => ({ type: 'array', items: { type: 'string' }, description });

export const printerLibraryPaths = {
  '/v2/profiles/library': {
    get: {
      operationId: 'getPrinterLibrary',
      tags: ['profiles'],
      summary: "The printers PrusaSlicer's vendor bundles describe, with their compatible presets",
      description:
        "The vendor bundles shipped with the server's PrusaSlicer, as its configuration wizard offers them: each vendor's FFF printers, one per nozzle variant. With `vendor`, each printer lists the print and filament presets compatible with it (`compatible_printers`, else `compatible_printers_condition`); without it, printers come without those lists, which for all vendors run to megabytes. A pick from here is imported with POST /v2/profiles/import.",
      security: [...bearer, ...session],
      parameters: [
        {
          name: 'vendor',
          in: 'query',
          required: false,
          description: 'A vendor id (`PrusaResearch`) or name (`Prusa Research`), any letter case',
          schema: { type: 'string', maxLength: 200 },
        },
      ],
      responses: { '200': ok('PrinterLibrary', 'The library'), ...errors(400, 401) },
    },
  },
};

export const printerLibrarySchemas = {
  PrinterLibrary: {
    type: 'object',
    required: ['slicer_version', 'vendors'],
    additionalProperties: false,
    properties: {
      slicer_version: {
        type: ['string', 'null'],
        description: "The configured PrusaSlicer's version; null when it cannot be run",
      },
      vendors: { type: 'array', items: { $ref: '#/components/schemas/LibraryVendor' } },
    },
  },
  LibraryVendor: {
    type: 'object',
    required: ['id', 'name', 'config_version', 'printers', 'unsupported_conditions'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', description: 'The bundle file name without .ini, e.g. PrusaResearch' },
      name: { type: 'string', description: 'The `[vendor]` name, e.g. Prusa Research' },
      config_version: { type: 'string', description: "The bundle's config_version" },
      printers: { type: 'array', items: { $ref: '#/components/schemas/LibraryPrinter' } },
      unsupported_conditions: {
        type: 'integer',
        minimum: 0,
        description: 'Presets whose compatibility condition cannot be evaluated; they are offered to no printer',
      },
    },
  },
  LibraryPrinter: {
    type: 'object',
    required: ['name', 'model', 'model_id', 'nozzle_diameter'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', description: "The printer preset's name, e.g. Original Prusa i3 MK3S & MK3S+" },
      model: { type: 'string', description: "The printer model's name" },
      model_id: { type: 'string', description: 'The `[printer_model:ID]` id, e.g. MK3S' },
      nozzle_diameter: { type: 'number', exclusiveMinimum: 0, description: 'Millimetres (the first extruder)' },
      prints: names('Compatible print presets (only with `vendor`)'),
      filaments: names('Compatible filament presets (only with `vendor`)'),
    },
  },
};

// Paths of slice profiles: the account's printer, material and global profiles beside the shipped global ones
// (their schemas are with the quote's, whose settings they supply: server/quotes/openapi.ts).
import { jsonBody, ok, errors, pathParam, bearer } from '../openapi/index.ts';

const kind = {
  name: 'kind',
  in: 'path',
  required: true,
  description: 'Profile kind',
  schema: { type: 'string', enum: ['printer', 'material', 'global'] },
};
const profileId = pathParam('profile_id', 'A profile id (prof_...)');

const note = {
  type: 'object',
  required: ['key', 'reason'],
  additionalProperties: false,
  properties: { key: { type: 'string' }, reason: { type: 'string' } },
};

export const profileSchemas = {
  ProfileLibraryImport: {
    type: 'object',
    required: ['library'],
    additionalProperties: false,
    description:
      "A printer picked from the printer library (GET /v2/profiles/library) with the print presets to offer and its filaments, imported as profiles with the vendor's names (docs/profiles.md)",
    properties: {
      library: {
        type: 'object',
        required: ['vendor', 'printer'],
        additionalProperties: false,
        properties: {
          vendor: { type: 'string', minLength: 1, maxLength: 200, description: "The vendor's id, as listed" },
          printer: { type: 'string', minLength: 1, maxLength: 200, description: 'The printer preset, as listed' },
          prints: {
            type: 'array',
            maxItems: 50,
            items: { type: 'string', minLength: 1, maxLength: 200 },
            description:
              'Print presets compatible with the printer: each becomes a printer profile "<printer> — <print>"',
          },
          filaments: {
            type: 'array',
            maxItems: 100,
            items: { type: 'string', minLength: 1, maxLength: 200 },
            description: 'Filament presets compatible with the printer: each becomes a material profile of that name',
          },
        },
      },
      default: { type: 'boolean', description: "Make the imported printer the account's default printer profile" },
      keep_custom_gcode: {
        type: 'boolean',
        description: "Keep the vendor's custom G-code blocks (start, end, layer change...): they change the print time",
      },
    },
  },
  ProfileImportResult: {
    type: 'object',
    required: ['profiles', 'refused', 'ignored'],
    additionalProperties: false,
    properties: {
      profiles: {
        type: 'array',
        description: 'The profiles made (or replaced, for a preset imported before)',
        items: {
          type: 'object',
          required: ['id', 'kind', 'name'],
          additionalProperties: false,
          properties: {
            id: { type: 'string' },
            kind: { type: 'string', enum: ['printer', 'material'] },
            name: { type: 'string' },
          },
        },
      },
      refused: {
        type: 'array',
        items: note,
        description: 'Options never imported for safety (post_process, print-host credentials, output paths...)',
      },
      ignored: {
        type: 'array',
        items: note,
        description: 'Options left out: not on the allowlist, untranslatable, custom G-code not asked for',
      },
    },
  },
};

const importBody = {
  required: true,
  content: {
    'application/json': { schema: { $ref: '#/components/schemas/ProfileLibraryImport' } },
    'multipart/form-data': {
      schema: {
        type: 'object',
        required: ['file'],
        properties: {
          file: {
            type: 'string',
            format: 'binary',
            description:
              'A PrusaSlicer config (.ini, from Export Config), a PrusaSlicer project (.3mf) or an Orca Slicer / Bambu Studio preset (.json)',
          },
          default: {
            type: 'string',
            enum: ['true', 'false'],
            description: "Make the imported printer the account's default printer profile",
          },
          keep_custom_gcode: {
            type: 'string',
            enum: ['true', 'false'],
            description: 'Keep the custom G-code blocks (start, end, layer change...): they change the print time',
          },
        },
      },
    },
  },
};

export const profilePaths = {
  '/v2/profiles/import': {
    post: {
      operationId: 'importProfiles',
      tags: ['profiles'],
      summary: "Import the shop's own slicer config as profiles",
      description:
        'Makes a printer profile of the printer with each print preset (named `<printer> — <print>`) and a material profile of each filament, carrying the allowlisted PrusaSlicer options the quotes then slice with (docs/profiles.md). Options outside the allowlist are listed in `ignored`, dangerous ones (post_process, print-host credentials, output paths) in `refused`; neither is stored. A value out of range is a 400 whose `details.fields` names the option. A .ini or .json may hold at most 1 MiB and 5000 options (413 `config_too_large`).',
      security: bearer,
      requestBody: importBody,
      responses: { '201': ok('ProfileImportResult', 'Imported'), ...errors(400, 401, 413, 415) },
    },
  },

  '/v2/profiles/{kind}': {
    get: {
      operationId: 'listProfiles',
      tags: ['profiles'],
      summary: "The account's profiles of a kind, then the global ones",
      security: bearer,
      parameters: [kind],
      responses: { '200': ok('ProfileList', 'Profiles'), ...errors(401, 404) },
    },
    post: {
      operationId: 'createProfile',
      tags: ['profiles'],
      summary: 'Create a profile',
      security: bearer,
      parameters: [kind],
      requestBody: jsonBody('ProfileInput'),
      responses: { '201': ok('Profile', 'Created'), ...errors(400, 401, 404, 409) },
    },
  },
  '/v2/profiles/{kind}/{profile_id}': {
    get: {
      operationId: 'getProfile',
      tags: ['profiles'],
      summary: 'One profile',
      security: bearer,
      parameters: [kind, profileId],
      responses: { '200': ok('Profile', 'The profile'), ...errors(401, 404) },
    },
    put: {
      operationId: 'replaceProfile',
      tags: ['profiles'],
      summary: 'Replace a profile',
      security: bearer,
      parameters: [kind, profileId],
      requestBody: jsonBody('ProfileInput'),
      responses: { '200': ok('Profile', 'Replaced'), ...errors(400, 401, 403, 404, 409) },
    },
    delete: {
      operationId: 'deleteProfile',
      tags: ['profiles'],
      summary: 'Delete a profile',
      security: bearer,
      parameters: [kind, profileId],
      responses: { '200': ok('ProfileDeleted', 'Deleted'), ...errors(401, 403, 404) },
    },
  },
};

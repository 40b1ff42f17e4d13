// Component schemas of the OpenAPI document (JSON Schema 2020-12, as OpenAPI 3.1 uses).
import { deletedSchema, ref, timestamp } from './helpers.ts';

const id = (prefix: string) => ({
  type: 'string',
  pattern: `^${prefix}_[a-z0-9]+$`,
  examples: [`${prefix}_3k9x0b2m7q1z8w4v6n5c`],
});
const vec3 = { type: 'array', items: { type: 'number' }, minItems: 3, maxItems: 3 };
const xyz = (description: string) => ({
  type: 'object',
  required: ['x', 'y', 'z'],
  additionalProperties: false,
  description,
  properties: { x: { type: 'number' }, y: { type: 'number' }, z: { type: 'number' } },
});
const unitEnum = { type: 'string', enum: ['mm', 'cm', 'm', 'in', 'ft', 'um'] };

export const coreSchemas = {
  Error: {
    type: 'object',
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: {
          code: { type: 'string', pattern: '^[a-z0-9_]+$', description: 'Stable snake_case code for programs' },
          message: { type: 'string', description: 'A sentence for people' },
          details: {
            type: 'object',
            description: 'Structured detail; validation errors list `fields: [{field, message}]`',
          },
        },
      },
    },
  },
  ListMeta: {
    type: 'object',
    required: ['page', 'limit', 'total', 'has_more'],
    properties: {
      page: { type: 'integer', minimum: 1 },
      limit: { type: 'integer', minimum: 1, maximum: 100 },
      total: { type: 'integer', minimum: 0 },
      has_more: { type: 'boolean' },
    },
  },
  User: {
    type: 'object',
    required: ['user_id', 'email', 'plan', 'quotes_used', 'quotes_limit'],
    additionalProperties: false,
    properties: {
      user_id: id('usr'),
      email: { type: 'string', format: 'email' },
      plan: { type: 'string', examples: ['free'] },
      quotes_used: { type: 'integer', minimum: 0, description: 'Successful quotes this calendar month (UTC)' },
      quotes_limit: { type: 'integer', minimum: 0, description: 'Monthly quote allowance of the plan' },
      created_at: timestamp,
    },
  },
  BoundingBox: {
    type: 'object',
    required: ['min', 'max', 'size'],
    additionalProperties: false,
    properties: { min: vec3, max: vec3, size: vec3 },
    description: 'Millimetres',
  },
  UnitSuspectWarning: {
    type: 'object',
    required: ['code', 'message', 'largest_mm', 'suggested_scale'],
    additionalProperties: false,
    description:
      'The model\'s size suggests its numbers are in another unit (under 5 mm or over 1000 mm across as it would print). Fix it with POST /v2/file/scale/{file_id}: `{"unit": suggested_unit}` when one is given, else `{"scale": current scale × suggested_scale}`.',
    properties: {
      code: { const: 'unit_suspect' },
      message: { type: 'string' },
      largest_mm: { type: 'number', description: 'Largest dimension as it would print now' },
      suggested_scale: {
        type: 'number',
        exclusiveMinimum: 0,
        description: 'Multiply the current size by this (e.g. 25.4 for a model drawn in inches)',
      },
      suggested_unit: { ...unitEnum, description: 'The unit the numbers were probably drawn in' },
    },
  },
  Placement: {
    type: 'object',
    required: ['unit', 'scale', 'orientation', 'rotation', 'dimensions'],
    additionalProperties: false,
    description:
      'How the model is printed: its numbers read in `unit`, sized by `scale`, turned by `rotation`. A model that fits as uploaded keeps its orientation; otherwise it is turned on the plate, else laid down on the side with the most flat area.',
    properties: {
      unit: { ...unitEnum, description: "Unit the model's numbers were read in" },
      scale: {
        type: 'number',
        exclusiveMinimum: 0,
        description: 'Extra uniform scale on top of the unit (1 = true size)',
      },
      orientation: {
        type: 'string',
        enum: ['as_uploaded', 'turned', 'laid_down'],
        description: 'as_uploaded; turned about Z on the plate; laid down on another side',
      },
      rotation: xyz("Degrees about the build plate's X, then Y, then Z axis (counter-clockwise looking down the axis)"),
      dimensions: xyz('Size on the plate after placement, mm'),
    },
  },
  FileScaleRequest: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    description:
      "Each given field replaces the file's current value; an omitted one keeps it. The model must end up between 0.1 mm and 10 m across (else 422 `scale_out_of_range`).",
    properties: {
      unit: { ...unitEnum, description: "Read the model's numbers in this unit (also re-declares a 3MF's own unit)" },
      scale: {
        type: 'number',
        minimum: 0.001,
        maximum: 1000,
        description: 'Extra uniform scale on top of the unit (1 = true size)',
      },
    },
  },
  Measurements: {
    type: 'object',
    required: ['triangles', 'bounding_box', 'volume_mm3', 'surface_area_mm2', 'watertight', 'bodies'],
    additionalProperties: false,
    properties: {
      triangles: { type: 'integer', minimum: 1 },
      bounding_box: ref('BoundingBox'),
      volume_mm3: { type: 'number', minimum: 0 },
      surface_area_mm2: { type: 'number', minimum: 0 },
      watertight: { type: 'boolean' },
      bodies: { type: 'integer', minimum: 1, description: 'Separate connected bodies in the file' },
      source_unit: { type: 'string', description: 'Unit the file declared (3MF), or millimeter' },
    },
    description: 'As the model prints: after its unit and scale',
  },
  File: {
    type: 'object',
    required: [
      'file_id',
      'name',
      'format',
      'content_type',
      'size_bytes',
      'sha256',
      'source',
      'created_at',
      'unit',
      'unit_source',
      'scale',
      'measurements',
      'warnings',
    ],
    additionalProperties: false,
    properties: {
      file_id: id('file'),
      name: { type: 'string' },
      format: { type: 'string', enum: ['stl', 'obj', '3mf'] },
      content_type: { type: 'string', enum: ['model/stl', 'model/obj', 'model/3mf'] },
      size_bytes: { type: 'integer', minimum: 1 },
      sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      source: {
        type: 'string',
        enum: ['api', 'public'],
        description: 'Uploaded with a token, or through a public upload id',
      },
      created_at: timestamp,
      unit: { ...unitEnum, description: "Unit the model's numbers are read in" },
      unit_source: {
        type: 'string',
        enum: ['file', 'stated', 'assumed'],
        description:
          "file: the 3MF's own unit; stated: given at upload or by a rescale; assumed: millimetres (STL and OBJ carry no unit)",
      },
      scale: {
        type: 'number',
        exclusiveMinimum: 0,
        description: 'Extra uniform scale on top of the unit (1 = true size)',
      },
      measurements: ref('Measurements'),
      warnings: {
        type: 'array',
        items: ref('FileWarning'),
        description: 'What the parser noticed; the file is still accepted and quoted',
      },
    },
  },
  FileWarning: {
    type: 'object',
    required: ['code', 'message'],
    additionalProperties: false,
    properties: {
      code: {
        type: 'string',
        enum: [
          'degenerate_triangles_removed',
          'not_watertight',
          'several_bodies',
          'metadata_repeated',
          'volume_ignored',
          'negative_volume_subtracted',
          'settings_ignored',
          'missing_thumbnail',
          'multi_material',
          'unit_suspect',
        ],
      },
      message: { type: 'string', description: 'A sentence for people' },
      count: {
        type: 'integer',
        minimum: 1,
        description: 'How many triangles, bodies or volumes the warning is about (multi_material: extruders)',
      },
      assignment: {
        type: 'string',
        enum: ['materials', 'extruders', 'painting'],
        description:
          'multi_material: how the file gives its parts several colours: Materials extension properties, PrusaSlicer extruders, or painted triangles',
      },
      openness: { type: 'number', minimum: 0, description: 'not_watertight: relative uncertainty of the volume' },
      name: { type: 'string', description: 'metadata_repeated: the metadata name' },
      volume_type: {
        type: 'string',
        enum: ['modifier', 'support_blocker', 'support_enforcer'],
        description: 'volume_ignored: the kind of slicer helper volume that was not printed',
      },
      settings: {
        type: 'array',
        items: { type: 'string' },
        description: 'settings_ignored: the slicer settings found in the file',
      },
      part: { type: 'string', description: 'missing_thumbnail, settings_ignored: the package part concerned' },
      largest_mm: { type: 'number', minimum: 0, description: 'unit_suspect: the largest dimension as it would print' },
      suggested_scale: {
        type: 'number',
        exclusiveMinimum: 0,
        description: 'unit_suspect: the scale that would make the model a plausible size',
      },
      suggested_unit: {
        type: 'string',
        description:
          'unit_suspect: the unit the numbers are probably in (POST /v2/file/scale/{file_id} with {"unit": …})',
      },
    },
  },
  FileList: {
    allOf: [ref('ListMeta')],
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: ref('File') } },
  },
  FileDeleted: {
    type: 'object',
    required: ['file_id', 'deleted'],
    additionalProperties: false,
    properties: { file_id: id('file'), deleted: { const: true } },
  },
  UploadId: {
    type: 'object',
    required: ['upload_id', 'expires_at', 'upload_url'],
    additionalProperties: false,
    properties: {
      upload_id: { ...id('up'), description: 'Single use; expires (15 minutes by default)' },
      expires_at: timestamp,
      upload_url: {
        type: 'string',
        format: 'uri',
        description: 'Where a client POSTs the multipart file, without a token',
      },
      shopper_token: {
        type: 'string',
        pattern: '^st_',
        description:
          "Widget keys only: the shopper's token (the one sent in X-Shopper-Token, else a new one); send it with every later call about this upload and its quotes",
      },
    },
  },
  PrintabilityRequest: {
    type: 'object',
    additionalProperties: false,
    description:
      "Build volume in mm. Each of x, y, z is optional; a missing one comes from the default printer profile (the account's, else the global one).",
    properties: {
      x: { type: 'number', exclusiveMinimum: 0, maximum: 10000 },
      y: { type: 'number', exclusiveMinimum: 0, maximum: 10000 },
      z: { type: 'number', exclusiveMinimum: 0, maximum: 10000 },
    },
  },
  PrintabilityWarning: {
    type: 'object',
    required: ['code', 'message'],
    additionalProperties: false,
    properties: {
      code: { type: 'string', enum: ['not_watertight', 'several_bodies', 'unit_suspect', 'does_not_fit'] },
      message: { type: 'string' },
      largest_mm: { type: 'number' },
      suggested_scale: { type: 'number', description: 'unit_suspect: multiply the current size by this' },
      suggested_unit: unitEnum,
    },
    description: 'unit_suspect carries the fields of UnitSuspectWarning',
  },
  Printability: {
    type: 'object',
    required: [
      'file_id',
      'build_volume',
      'unit',
      'scale',
      'dimensions',
      'bounding_box',
      'volume_mm3',
      'surface_area_mm2',
      'triangles',
      'watertight',
      'bodies',
      'fits',
      'fits_rotated',
      'placement',
      'warnings',
    ],
    additionalProperties: false,
    properties: {
      file_id: id('file'),
      build_volume: {
        type: 'object',
        required: ['x', 'y', 'z'],
        properties: { x: { type: 'number' }, y: { type: 'number' }, z: { type: 'number' } },
      },
      unit: unitEnum,
      scale: { type: 'number' },
      dimensions: {
        type: 'object',
        required: ['x', 'y', 'z'],
        properties: { x: { type: 'number' }, y: { type: 'number' }, z: { type: 'number' } },
        description: 'As uploaded, after unit and scale, mm',
      },
      bounding_box: ref('BoundingBox'),
      volume_mm3: { type: 'number' },
      surface_area_mm2: { type: 'number' },
      triangles: { type: 'integer' },
      watertight: { type: 'boolean' },
      bodies: { type: 'integer' },
      fits: { type: 'boolean', description: 'Fits as oriented in the file' },
      fits_rotated: {
        type: 'object',
        required: ['fits', 'angle_deg'],
        additionalProperties: false,
        description: 'Fits after a rotation about Z (angle in whole degrees; 0 when it fits as is)',
        properties: { fits: { type: 'boolean' }, angle_deg: { type: ['integer', 'null'] } },
      },
      placement: {
        oneOf: [ref('Placement'), { type: 'null' }],
        description: 'Where a quote on this build volume would print it; null: it fits in no orientation',
      },
      warnings: { type: 'array', items: ref('PrintabilityWarning') },
    },
  },
  Health: {
    type: 'object',
    required: ['status'],
    properties: { status: { const: 'ok' }, database: { type: 'string' }, slicer: { type: 'string' } },
  },
  Credentials: {
    type: 'object',
    required: ['email', 'password'],
    additionalProperties: false,
    properties: {
      email: { type: 'string', format: 'email', maxLength: 254 },
      password: { type: 'string', minLength: 10, maxLength: 200, description: 'At least 10 characters' },
      shop_name: { type: 'string', maxLength: 100, description: 'Sign-up only' },
      invite_code: {
        type: 'string',
        maxLength: 200,
        description: 'Sign-up only, needed when the server runs with SIGNUP=invite: a code from `npm run invite`',
      },
    },
  },
  SignupMode: {
    type: 'object',
    required: ['mode'],
    additionalProperties: false,
    properties: {
      mode: {
        type: 'string',
        enum: ['open', 'invite', 'off'],
        description: 'open: anyone may sign up; invite: with an invite code; off: sign-up is closed (SIGNUP)',
      },
    },
  },
  Session: {
    type: 'object',
    required: ['user', 'csrf_token'],
    additionalProperties: false,
    properties: {
      user: ref('User'),
      csrf_token: { type: 'string', description: 'Send back in X-CSRF-Token on state-changing dashboard calls' },
    },
  },
  TokenRequest: {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100 },
      expires_in_days: {
        type: 'integer',
        minimum: 1,
        maximum: 3650,
        description: 'Omit for a token that lives until revoked',
      },
    },
  },
  TokenDeleted: deletedSchema('token_id', 'The revoked token'),
  TokenCreated: {
    type: 'object',
    required: ['token_id', 'token', 'name', 'created_at', 'expires_at'],
    additionalProperties: false,
    properties: {
      token_id: id('tok'),
      token: { type: 'string', description: 'The JWT; shown only in this response' },
      name: { type: 'string' },
      created_at: timestamp,
      expires_at: { oneOf: [timestamp, { type: 'null' }] },
    },
  },
  Token: {
    type: 'object',
    required: ['token_id', 'name', 'created_at', 'expires_at', 'last_used_at'],
    additionalProperties: false,
    properties: {
      token_id: id('tok'),
      name: { type: 'string' },
      created_at: timestamp,
      expires_at: { oneOf: [timestamp, { type: 'null' }] },
      last_used_at: { oneOf: [timestamp, { type: 'null' }] },
    },
  },
  TokenList: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: ref('Token') } } },
};

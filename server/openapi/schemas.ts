// Component schemas of the OpenAPI document (JSON Schema 2020-12, as OpenAPI 3.1 uses).
import { ref, timestamp } from './helpers.ts';

const id = (prefix: string) => ({ type: 'string', pattern: `^${prefix}_[a-z0-9]+$`, examples: [`${prefix}_3k9x0b2m7q1z8w4v6n5c`] });
const vec3 = { type: 'array', items: { type: 'number' }, minItems: 3, maxItems: 3 };

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
          details: { type: 'object', description: 'Structured detail; validation errors list `fields: [{field, message}]`' },
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
  },
  File: {
    type: 'object',
    required: ['file_id', 'name', 'format', 'content_type', 'size_bytes', 'sha256', 'source', 'created_at', 'measurements', 'warnings'],
    additionalProperties: false,
    properties: {
      file_id: id('file'),
      name: { type: 'string' },
      format: { type: 'string', enum: ['stl', 'obj', '3mf'] },
      content_type: { type: 'string', enum: ['model/stl', 'model/obj', 'model/3mf'] },
      size_bytes: { type: 'integer', minimum: 1 },
      sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      source: { type: 'string', enum: ['api', 'public'], description: 'Uploaded with a token, or through a public upload id' },
      created_at: timestamp,
      measurements: ref('Measurements'),
      warnings: { type: 'array', items: { type: 'string' } },
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
      upload_url: { type: 'string', format: 'uri', description: 'Where a client POSTs the multipart file, without a token' },
    },
  },
  PrintabilityRequest: {
    type: 'object',
    additionalProperties: false,
    description: 'Build volume in mm. Each of x, y, z is optional; a missing one comes from the default printer profile (the account\'s, else the global one).',
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
      code: { type: 'string', enum: ['not_watertight', 'several_bodies', 'suspiciously_small', 'suspiciously_large', 'does_not_fit'] },
      message: { type: 'string' },
      suggested_scale: { type: 'number', description: 'Scale factor that would likely fix a unit mistake' },
    },
  },
  Printability: {
    type: 'object',
    required: ['file_id', 'build_volume', 'dimensions', 'bounding_box', 'volume_mm3', 'surface_area_mm2', 'triangles', 'watertight', 'bodies', 'fits', 'fits_rotated', 'warnings'],
    additionalProperties: false,
    properties: {
      file_id: id('file'),
      build_volume: { type: 'object', required: ['x', 'y', 'z'], properties: { x: { type: 'number' }, y: { type: 'number' }, z: { type: 'number' } } },
      dimensions: { type: 'object', required: ['x', 'y', 'z'], properties: { x: { type: 'number' }, y: { type: 'number' }, z: { type: 'number' } } },
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
      warnings: { type: 'array', items: ref('PrintabilityWarning') },
    },
  },
  Health: { type: 'object', required: ['status'], properties: { status: { const: 'ok' }, database: { type: 'string' }, slicer: { type: 'string' } } },
  Credentials: {
    type: 'object',
    required: ['email', 'password'],
    additionalProperties: false,
    properties: {
      email: { type: 'string', format: 'email', maxLength: 254 },
      password: { type: 'string', minLength: 10, maxLength: 200, description: 'At least 10 characters' },
      shop_name: { type: 'string', maxLength: 100, description: 'Sign-up only' },
    },
  },
  Session: {
    type: 'object',
    required: ['user', 'csrf_token'],
    additionalProperties: false,
    properties: { user: ref('User'), csrf_token: { type: 'string', description: 'Send back in X-CSRF-Token on state-changing dashboard calls' } },
  },
  TokenRequest: {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100 },
      expires_in_days: { type: 'integer', minimum: 1, maximum: 3650, description: 'Omit for a token that lives until revoked' },
    },
  },
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

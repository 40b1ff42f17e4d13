// Paths of model files: uploads (with a token or a single-use upload id), upload ids, download, rescaling,
// deletion and printability.

import { publicUploadStorageResponse } from '../limits/index.ts';
import {
  allowanceRefusal,
  bearer,
  errorSchema,
  errors,
  idempotencyKey,
  jsonBody,
  ok,
  pageParams,
  pathParam,
  ref,
  shopperToken,
} from '../openapi/index.ts';

const fileId = pathParam('file_id', 'A file id (file_...)');
const units = ['mm', 'cm', 'm', 'in', 'ft', 'um'];
const unitHelp =
  "The unit the model's numbers are in (STL and OBJ carry none: millimetres are assumed). A 3MF states its own unit, which wins; re-declare it with POST /v2/file/scale/{file_id}.";
const multipartFile = {
  required: true,
  content: {
    'multipart/form-data': {
      schema: {
        type: 'object',
        required: ['file'],
        properties: {
          file: { type: 'string', format: 'binary', description: 'STL (binary or ASCII), OBJ or 3MF' },
          unit: { type: 'string', enum: units, description: unitHelp },
        },
      },
    },
  },
};
const unitQuery = {
  name: 'unit',
  in: 'query',
  required: false,
  description: `${unitHelp} Same as the multipart field \`unit\`; checked before the body is read.`,
  schema: { type: 'string', enum: units },
};
const widgetOrBearer = [{ bearerAuth: [] }, { widgetKey: [] }];

export const fileSchemas = {
  ParseQueueFullError: errorSchema('parse_queue_full', {
    limit: { type: 'integer', minimum: 0, description: 'Uploads one caller may have waiting while its parse runs' },
    retry_after: { type: 'integer', minimum: 1, description: 'The same as the Retry-After header' },
  }),
};

export const fileResponses = {
  ParseQueueFull: {
    description:
      "The caller already has a file being read and as many waiting as one caller may (`parse_queue_full`; a caller is the API token, the dashboard session's account, or for public uploads the client address). Retry after Retry-After seconds: the longest the caller's current parse may take.",
    headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
    content: { 'application/json': { schema: ref('ParseQueueFullError') } },
  },
};
const parseQueueFull = { '503': { $ref: '#/components/responses/ParseQueueFull' } };
const parsing =
  " Each caller has one file read at a time and at most PARSE_QUEUE_PER_CALLER (default 2) waiting, callers taking turns; more answer 503 `parse_queue_full`. Reading may use as much processor time as the file's size justifies, however busy the server is (`model_too_complex`, `details.limit_seconds`), and a 3MF may state at most 50 times its size in uncompressed bytes (at least 16 MiB): more is refused before anything is inflated, 422 `compression_ratio_too_high` with `details.limit` and the file's `details.ratio`.";

export const filePaths = {
  '/v2/user/uploads': {
    get: {
      operationId: 'listUploads',
      tags: ['files'],
      summary: "The account's uploaded files, newest first",
      security: bearer,
      parameters: pageParams,
      responses: { '200': ok('FileList', 'A page of files'), ...errors(400, 401) },
    },
  },
  '/v2/file': {
    post: {
      operationId: 'uploadFile',
      'x-rate-limit-class': 'upload',
      tags: ['files'],
      summary: 'Upload a model (multipart part `file`, optional field `unit`)',
      security: bearer,
      requestBody: multipartFile,
      parameters: [unitQuery, idempotencyKey],
      description:
        "The file is streamed to disk under the size cap, hashed, parsed and measured. Broken or unsupported models, and models over a parse limit (`details.limit` names it), are refused with 422 and a specific code. In PrusaSlicer projects only model parts are printed: modifiers and support blockers/enforcers are dropped, negative volumes are cut away when slicing, and the file's own settings are ignored; `warnings` say so. A size that suggests another unit adds a `unit_suspect` warning. Emits `file.uploaded`." +
        parsing,
      responses: {
        '201': ok('File', 'The stored file with its measurements'),
        ...allowanceRefusal('StorageQuotaExceeded'),
        ...errors(400, 401, 409, 413, 415, 422, 507),
        ...parseQueueFull,
      },
    },
  },
  '/v2/file/upload-id': {
    get: {
      operationId: 'createUploadId',
      tags: ['files'],
      summary: 'A single-use id for a public upload',
      security: [{ bearerAuth: [] }, { widgetKey: [] }],
      parameters: [shopperToken],
      responses: { '200': ok('UploadId', 'The upload id'), ...errors(400, 401, 403) },
    },
  },
  '/v2/file/public/{upload_id}': {
    post: {
      operationId: 'uploadFilePublic',
      'x-rate-limit-class': 'upload',
      tags: ['files'],
      summary: 'Upload without a token, with a single-use upload id',
      security: [],
      description:
        'CORS-enabled. The file lands in the account that created the upload id. Unknown id: 404 `upload_id_not_found`; used: 410 `upload_id_used`; expired: 410 `upload_id_expired`. Refusals leave the upload id unused.' +
        parsing,
      parameters: [pathParam('upload_id', 'From GET /v2/file/upload-id'), unitQuery],
      requestBody: multipartFile,
      responses: {
        '201': ok('File', 'The stored file'),
        ...publicUploadStorageResponse,
        ...errors(400, 404, 410, 413, 415, 422, 507),
        ...parseQueueFull,
      },
    },
    options: {
      operationId: 'uploadFilePublicPreflight',
      tags: ['files'],
      summary: 'CORS preflight',
      security: [],
      parameters: [pathParam('upload_id', 'From GET /v2/file/upload-id')],
      responses: { '204': { description: 'CORS headers' } },
    },
  },
  '/v2/file/{file_id}': {
    get: {
      operationId: 'downloadFile',
      tags: ['files'],
      summary: 'Download the original bytes',
      security: bearer,
      parameters: [fileId],
      responses: {
        '200': {
          description: 'The original file, with its content type and file name (Content-Disposition)',
          content: {
            'model/stl': { schema: { type: 'string', format: 'binary' } },
            'model/obj': { schema: { type: 'string', format: 'binary' } },
            'model/3mf': { schema: { type: 'string', format: 'binary' } },
          },
        },
        ...errors(401, 404),
      },
    },
    delete: {
      operationId: 'deleteFile',
      tags: ['files'],
      summary: 'Delete a file (emits `file.deleted`)',
      description:
        "A widget key may delete its shopper's own upload (X-Shopper-Token), unless it is in a cart (409 `file_in_cart`); another shopper's is 404.",
      security: widgetOrBearer,
      parameters: [fileId, shopperToken],
      responses: { '200': ok('FileDeleted', 'Deleted'), ...errors(401, 404, 409) },
    },
  },
  '/v2/file/scale/{file_id}': {
    post: {
      operationId: 'scaleFile',
      tags: ['files'],
      summary: 'Read the model in another unit, or scale it',
      security: widgetOrBearer,
      parameters: [fileId, shopperToken],
      requestBody: jsonBody('FileScaleRequest'),
      description:
        "Sets the file's unit and/or scale and answers the file with its new measurements and warnings. The stored mesh is unchanged (same file id, no storage used): quotes apply the unit and scale when they slice and state both in `placement`; earlier quotes keep theirs. A widget key may rescale only the uploads of its own shopper (X-Shopper-Token). A result under 0.1 mm or over 10 m across: 422 `scale_out_of_range`.",
      responses: { '200': ok('File', 'The file, rescaled'), ...errors(400, 401, 403, 404, 422) },
    },
  },
  '/v2/printability/{file_id}': {
    post: {
      operationId: 'checkPrintability',
      tags: ['files'],
      summary: 'Measurements and whether (and in which orientation) the model fits a build volume',
      security: bearer,
      parameters: [fileId],
      requestBody: jsonBody('PrintabilityRequest', 'Build volume; every field optional', false),
      responses: { '200': ok('Printability', 'Measurements, fit and warnings'), ...errors(400, 401, 404) },
    },
  },
};

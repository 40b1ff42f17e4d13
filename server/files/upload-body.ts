// Multipart uploads streamed to disk by koa-body/formidable under a size cap; an oversize request is refused
// from its Content-Length before any byte is read, or while streaming when the length is not declared.
// A body that would leave the disk below its floor is refused with 507 (storage/disk-floor.ts), before and after.
// Each request writes into a private folder of its own (storage/tmp-dirs.ts) that is removed on every path:
// success, a refused or broken body, a client abort, a second file part. The file is hashed as it arrives, and a
// large binary STL may be parsed as it arrives too (receive-file.ts).

import { rm } from 'node:fs/promises';
import type { Context, Next } from 'koa';
import type { Deps } from '../deps.ts';
import { ApiError, loadKoaBody, tooLarge } from '../http/index.ts';
import type { UploadStream } from '../mesh/index.ts';
import { checkDiskFloor } from '../storage/index.ts';
import { diskAndParse, type OpenStream, StreamingParse } from './receive-file.ts';

// Room for the multipart envelope (boundaries, part headers) around the file itself.
export const MULTIPART_ENVELOPE_BYTES = 64 * 1024;
const MAX_FIELDS = 10;
const MAX_FIELDS_BYTES = 64 * 1024;

export interface UploadedFile {
  path: string;
  originalName: string | null;
  /** SHA-256 of the file, hex, taken as it arrived. */
  sha256: string;
  /** The parse that read the file as it arrived, if one did. */
  stream: UploadStream | null;
}

/** Who the upload's parse is for (its turn: docs/limits.md, "Fair parsing"); without it, no parse as it arrives. */
export type ParseCaller = (ctx: Context) => string;

// formidable's error codes (formidable/src/FormidableError.js); its own httpCode for them is not what we answer.
const FORMIDABLE = {
  aborted: 1002,
  noParser: 1003,
  maxFieldsSizeExceeded: 1006,
  maxFieldsExceeded: 1007,
  biggerThanTotalMaxFileSize: 1009,
  maxFilesExceeded: 1015,
  biggerThanMaxFileSize: 1016,
  cannotCreateDir: 1018,
} as const;

const malformed = () =>
  new ApiError(
    400,
    'malformed_multipart',
    'The multipart/form-data body is malformed; send the model in one part named "file".',
    { field: 'file' },
  );

/**
 * What the client is told about a body the multipart parser gave up on. Every problem of the body is a 4xx that
 * says what was wrong (413 only for sizes, naming the limit); only our own failures (e.g. a full disk) stay 5xx.
 */
export function multipartError(err: unknown, maxBytes: number, clientGone: boolean): unknown {
  const e = err as { code?: unknown; httpCode?: number; status?: number; message?: string };
  if (typeof e?.code === 'number' && e.code >= 1000 && e.code < 1100) {
    switch (e.code) {
      case FORMIDABLE.aborted:
        return new ApiError(400, 'upload_aborted', 'The client aborted the upload.');
      case FORMIDABLE.biggerThanMaxFileSize:
      case FORMIDABLE.biggerThanTotalMaxFileSize:
        return tooLarge(maxBytes);
      case FORMIDABLE.maxFilesExceeded:
        return new ApiError(
          400,
          'multiple_files',
          'The body has more than one part named "file"; send exactly one model per upload.',
          { field: 'file' },
        );
      case FORMIDABLE.maxFieldsExceeded:
        return new ApiError(400, 'too_many_fields', `The body has more than ${MAX_FIELDS} form fields.`, {
          max_fields: MAX_FIELDS,
        });
      case FORMIDABLE.maxFieldsSizeExceeded:
        return new ApiError(
          413,
          'fields_too_large',
          `The form fields exceed the limit of ${MAX_FIELDS_BYTES / 1024} KB.`,
          { max_bytes: MAX_FIELDS_BYTES },
        );
      case FORMIDABLE.noParser:
        return new ApiError(
          415,
          'multipart_required',
          'Send the model as multipart/form-data with a part named "file".',
        );
      case FORMIDABLE.cannotCreateDir:
        return err; // our disk, not the client's body
      default:
        return malformed();
    }
  }
  if (clientGone || /aborted/i.test(e?.message ?? ''))
    return new ApiError(400, 'upload_aborted', 'The client aborted the upload.');
  const status = e?.httpCode ?? e?.status;
  // Any other HTTP-flavoured error raised while reading the body is about the body.
  if (typeof status === 'number' && status >= 400 && status < 500) return malformed();
  return err;
}

export function uploadBody(deps: Pick<Deps, 'config' | 'storage' | 'disk' | 'parser'>, parseCaller?: ParseCaller) {
  const max = deps.config.maxUploadBytes;
  return async (ctx: Context & { state: { upload?: UploadedFile } }, next: Next) => {
    if (!ctx.is('multipart/form-data')) {
      throw new ApiError(415, 'multipart_required', 'Send the model as multipart/form-data with a part named "file".');
    }
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > max + MULTIPART_ENVELOPE_BYTES) {
      ctx.set('Connection', 'close');
      throw tooLarge(max);
    }
    await checkDiskFloor(deps, declared).catch((err) => {
      ctx.set('Connection', 'close'); // the body is not read
      throw err;
    });
    const dir = await deps.storage.makeWorkDir('upload');
    const parse = new StreamingParse(parseCaller ? streamFor(deps, parseCaller(ctx), declared) : null);
    try {
      await parseInto(ctx, dir, max, parse);
      await checkDiskFloor(deps, 0); // the body is on disk now: a length not declared is counted here
      const files = ctx.request.files?.file;
      const file = Array.isArray(files) ? files[0] : files;
      if (!file)
        throw new ApiError(400, 'file_missing', 'The multipart body has no part named "file".', { field: 'file' });
      ctx.state.upload = {
        path: file.filepath,
        originalName: file.originalFilename,
        sha256: file.hash!, // hashAlgorithm is set
        stream: parse.stream,
      };
      await next();
    } finally {
      parse.stream?.cancel(); // nothing once its parse has answered
      await rm(dir, { recursive: true, force: true });
    }
  };
}

/** A stream needs the body's length (declared) to tell the STL its first bytes state from one that lies. */
function streamFor(deps: Pick<Deps, 'parser'>, caller: string, declared: number): OpenStream | null {
  if (!declared) return null;
  const body = { atLeast: declared - MULTIPART_ENVELOPE_BYTES, atMost: declared };
  return (preamble) => deps.parser.stream(caller, preamble, body);
}

async function parseInto(ctx: Context, uploadDir: string, max: number, received: StreamingParse): Promise<void> {
  const koaBody = await loadKoaBody();
  const parse = koaBody({
    multipart: true,
    json: false,
    urlencoded: false,
    text: false,
    formidable: {
      uploadDir,
      maxFileSize: max,
      maxTotalFileSize: max,
      maxFiles: 1,
      maxFields: MAX_FIELDS,
      maxFieldsSize: MAX_FIELDS_BYTES,
      allowEmptyFiles: true,
      minFileSize: 0,
      hashAlgorithm: 'sha256',
      fileWriteStreamHandler: (file) => diskAndParse((file as unknown as { filepath: string }).filepath, received),
      filter: (part) => part.name === 'file',
    },
  });
  try {
    await parse(ctx, async () => {});
  } catch (err) {
    ctx.set('Connection', 'close');
    throw multipartError(err, max, ctx.req.destroyed);
  }
}

declare module '../deps.ts' {
  interface AppState {
    /** The streamed file, once uploadBody has read it. */
    upload?: UploadedFile;
  }
}

// Multipart uploads streamed to disk by koa-body/formidable under a size cap; an oversize request is refused
// from its Content-Length before any byte is read, or while streaming when the length is not declared.
import type { Context, Next } from 'koa';
import { koaBody } from 'koa-body';
import { rm } from 'node:fs/promises';
import type { Deps } from './deps.ts';
import { ApiError, tooLarge } from './errors.ts';

// Room for the multipart envelope (boundaries, part headers) around the file itself.
export const MULTIPART_ENVELOPE_BYTES = 64 * 1024;

export interface UploadedFile {
  path: string;
  originalName: string | null;
}

export function uploadBody(deps: Deps) {
  const max = deps.config.maxUploadBytes;
  const parse = koaBody({
    multipart: true,
    json: false,
    urlencoded: false,
    text: false,
    formidable: {
      uploadDir: deps.storage.tmpDir,
      maxFileSize: max,
      maxTotalFileSize: max,
      maxFiles: 1,
      maxFields: 10,
      maxFieldsSize: 64 * 1024,
      allowEmptyFiles: true,
      minFileSize: 0,
      hashAlgorithm: false,
      filter: (part) => part.name === 'file',
    },
  });
  return async (ctx: Context & { state: { upload?: UploadedFile } }, next: Next) => {
    if (!ctx.is('multipart/form-data')) {
      throw new ApiError(415, 'multipart_required', 'Send the model as multipart/form-data with a part named "file".');
    }
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > max + MULTIPART_ENVELOPE_BYTES) {
      ctx.set('Connection', 'close');
      throw tooLarge(max);
    }
    try {
      await parse(ctx, async () => {});
    } catch (err) {
      ctx.set('Connection', 'close');
      await cleanup(ctx);
      // A shopper who drops another file mid-upload aborts the request: a client's choice, not a server error.
      if (ctx.req.destroyed || /aborted/i.test((err as Error).message)) throw new ApiError(400, 'upload_aborted', 'The client aborted the upload.');
      throw err;
    }
    const files = ctx.request.files?.file;
    const file = Array.isArray(files) ? files[0] : files;
    if (!file) {
      await cleanup(ctx);
      throw new ApiError(400, 'file_missing', 'The multipart body has no part named "file".', { field: 'file' });
    }
    ctx.state.upload = { path: file.filepath, originalName: file.originalFilename };
    try {
      await next();
    } finally {
      await cleanup(ctx);
    }
  };
}

async function cleanup(ctx: Context) {
  for (const entry of Object.values(ctx.request.files ?? {})) {
    for (const f of Array.isArray(entry) ? entry : [entry]) await rm(f.filepath, { force: true });
  }
}

// One file part of a merchant's multipart body (the import's config, the check's G-code), streamed into `dir`
// under `maxBytes`, with a few small fields beside it. A body past the bound is `tooLarge()`; anything else
// formidable refuses is a 400 naming the part. The caller makes and removes `dir`.
import type { Context } from 'koa';
import { ApiError, loadKoaBody } from '../http/index.ts';

/** Multipart framing and the small fields around the part: the declared length may exceed the part by this. */
export const ENVELOPE_BYTES = 64 * 1024;

export interface SinglePart {
  /** The form field of the file part, e.g. "file". */
  part: string;
  /** What the part holds, for the error message ("the config"). */
  what: string;
  maxBytes: number;
  tooLarge: () => ApiError;
}

export interface ReadPart {
  /** Where the part was streamed to, and the name the client gave it; undefined without the part. */
  file: { filepath: string; originalFilename: string | null } | undefined;
  fields: Record<string, unknown> | undefined;
}

/** Refuses a declared length past the bound before a byte is read (the connection is then closed). */
export function refuseDeclaredTooLarge(ctx: Context, p: SinglePart): void {
  if (Number(ctx.get('content-length') || 0) <= p.maxBytes + ENVELOPE_BYTES) return;
  ctx.set('Connection', 'close');
  throw p.tooLarge();
}

export async function readSinglePart(ctx: Context, dir: string, p: SinglePart): Promise<ReadPart> {
  const koaBody = await loadKoaBody();
  const parse = koaBody({
    multipart: true,
    json: false,
    urlencoded: false,
    text: false,
    formidable: {
      uploadDir: dir,
      maxFileSize: p.maxBytes,
      maxTotalFileSize: p.maxBytes,
      maxFiles: 1,
      maxFields: 10,
      maxFieldsSize: 64 * 1024,
      allowEmptyFiles: true,
      minFileSize: 0,
      hashAlgorithm: false,
      filter: (part) => part.name === p.part,
    },
  });
  await parse(ctx, async () => {}).catch((err: { code?: number }) => {
    ctx.set('Connection', 'close');
    // formidable's codes for a file, or all files, past their size bound
    if (err?.code === 1009 || err?.code === 1016) throw p.tooLarge();
    throw new ApiError(
      400,
      'malformed_multipart',
      `The multipart body is malformed; send ${p.what} in a part named "${p.part}".`,
      { field: p.part },
    );
  });
  const files = ctx.request.files?.[p.part];
  return {
    file: Array.isArray(files) ? files[0] : files,
    fields: ctx.request.body as Record<string, unknown> | undefined,
  };
}

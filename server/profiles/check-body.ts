// The import check's optional multipart body: a part `gcode` (the shop's own G-code of the reference part),
// streamed to a private folder under MAX_GCODE_BYTES, and a field `material` (a material profile's name). No body
// at all is a check without G-code. The caller reads the G-code inside `use`; the folder goes whatever happens.

import { rm } from 'node:fs/promises';
import type { Context } from 'koa';
import type { Deps } from '../deps.ts';
import { ApiError, ValidationError } from '../http/index.ts';
import { MAX_GCODE_BYTES } from './check-gcode.ts';
import { readSinglePart, refuseDeclaredTooLarge } from './single-part.ts';

export interface CheckUpload {
  /** Where the uploaded G-code is, until `use` returns; null without one. */
  gcodePath: string | null;
  material: string | null;
}

const gcodeTooLarge = () =>
  new ApiError(413, 'gcode_too_large', `The G-code may be at most ${MAX_GCODE_BYTES} bytes.`, {
    field: 'gcode',
    max_bytes: MAX_GCODE_BYTES,
  });

function hasBody(ctx: Context): boolean {
  return Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
}

function materialField(fields: Record<string, unknown> | undefined): string | null {
  const raw = fields?.material;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string' || value.length > 200)
    throw new ValidationError([
      { field: 'material', message: 'must be a material profile name of 1 to 200 characters' },
    ]);
  return value;
}

export async function withCheckUpload<T>(
  deps: Pick<Deps, 'storage'>,
  ctx: Context,
  use: (u: CheckUpload) => Promise<T>,
): Promise<T> {
  if (!ctx.is('multipart/form-data')) {
    if (hasBody(ctx)) {
      ctx.set('Connection', 'close');
      throw new ApiError(415, 'multipart_required', 'Send the G-code as multipart/form-data in a part named "gcode".', {
        field: 'gcode',
      });
    }
    return use({ gcodePath: null, material: null });
  }
  const part = { part: 'gcode', what: 'the G-code', maxBytes: MAX_GCODE_BYTES, tooLarge: gcodeTooLarge };
  refuseDeclaredTooLarge(ctx, part);
  const dir = await deps.storage.makeWorkDir('check');
  try {
    const { file, fields } = await readSinglePart(ctx, dir, part);
    const material = materialField(fields);
    return await use({ gcodePath: file?.filepath ?? null, material });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// The import's multipart body: one part named `file` streamed to a private folder under the upload limit (a
// 3MF may be as large as a model upload), and the `default` and `keep_custom_gcode` fields. A .ini or .json
// larger than its own bound is refused from its size on disk, before a byte of it is read.

import { open, readFile, rm, stat } from 'node:fs/promises';
import type { Context } from 'koa';
import type { Deps } from '../deps.ts';
import { tooLarge, ValidationError } from '../http/index.ts';
import { MAX_CONFIG_BYTES } from '../prusa-config/index.ts';
import { readSinglePart, refuseDeclaredTooLarge } from './single-part.ts';

export type ConfigFormat = 'ini' | '3mf' | 'json';

export interface ImportUpload {
  format: ConfigFormat;
  bytes: Uint8Array;
  makeDefault: boolean;
  keepCustomGcode: boolean;
}

function formatOf(name: string | null, head: Uint8Array): ConfigFormat {
  const ext = name?.toLowerCase().match(/\.(ini|config|3mf|json)$/)?.[1];
  if (ext === '3mf') return '3mf';
  if (ext === 'json') return 'json';
  if (ext === 'ini' || ext === 'config') return 'ini';
  if (head[0] === 0x50 && head[1] === 0x4b) return '3mf'; // "PK": a zip
  return String.fromCharCode(...head.slice(0, 64))
    .trimStart()
    .startsWith('{')
    ? 'json'
    : 'ini';
}

function flag(fields: Record<string, unknown> | undefined, name: string): boolean {
  const raw = fields?.[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value === '') return false;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new ValidationError([{ field: name, message: 'must be true or false' }]);
}

/** Reads the upload; the caller's folder is removed whatever happens. */
export async function readImportUpload(deps: Pick<Deps, 'config' | 'storage'>, ctx: Context): Promise<ImportUpload> {
  const max = deps.config.maxUploadBytes;
  const part = { part: 'file', what: 'the config', maxBytes: max, tooLarge: () => tooLarge(max) };
  refuseDeclaredTooLarge(ctx, part);
  const dir = await deps.storage.makeWorkDir('import');
  try {
    const { file, fields } = await readSinglePart(ctx, dir, part);
    if (!file)
      throw new ValidationError([{ field: 'file', message: 'is missing: send the config in a part named "file"' }]);
    const size = (await stat(file.filepath)).size;
    const head = new Uint8Array(await readHead(file.filepath));
    const format = formatOf(file.originalFilename, head);
    if (format !== '3mf' && size > MAX_CONFIG_BYTES)
      throw new ValidationError(
        [{ field: 'file', message: `is ${size} bytes; a .${format} config may hold at most ${MAX_CONFIG_BYTES}` }],
        413,
        'config_too_large',
      );
    return {
      format,
      bytes: await readFile(file.filepath),
      makeDefault: flag(fields, 'default'),
      keepCustomGcode: flag(fields, 'keep_custom_gcode'),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function readHead(path: string): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(64);
    const { bytesRead } = await fh.read(buf, 0, 64, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

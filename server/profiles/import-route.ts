// POST /v2/profiles/import: a shop's PrusaSlicer config (.ini, project .3mf) or Orca/Bambu preset (.json) as its
// profiles. The vendor-library branch (a JSON body naming `library`) is not offered yet and is refused by name.
import type { Context } from 'koa';
import type { Deps } from '../deps.ts';
import { ApiError, ValidationError } from '../http/index.ts';
import { readFlatConfig, readOrcaPreset, readProjectConfig, type ReadConfig } from '../prusa-config/index.ts';
import { asApiError, importConfig, type ImportResult } from './import.ts';
import { readImportUpload, type ImportUpload } from './import-body.ts';

function readConfig(upload: ImportUpload): ReadConfig {
  try {
    if (upload.format === '3mf') return readProjectConfig(upload.bytes);
    const text = Buffer.from(upload.bytes).toString('utf8');
    return upload.format === 'json' ? readOrcaPreset(text) : readFlatConfig(text);
  } catch (e) {
    throw asApiError(e);
  }
}

export async function importFromUpload(deps: Deps, ctx: Context): Promise<ImportResult> {
  if (ctx.is('application/json')) {
    ctx.set('Connection', 'close'); // the body is not read
    throw new ValidationError([
      {
        field: 'library',
        message: 'importing from the vendor library is not available; upload a config file as multipart/form-data',
      },
    ]);
  }
  if (!ctx.is('multipart/form-data')) {
    ctx.set('Connection', 'close');
    throw new ApiError(415, 'multipart_required', 'Send the config as multipart/form-data with a part named "file".');
  }
  const upload = await readImportUpload(deps, ctx);
  const read = readConfig(upload);
  return importConfig(deps, ctx.state.auth.account.id, {
    set: read.set,
    ignored: read.ignored,
    makeDefault: upload.makeDefault,
    keepCustomGcode: upload.keepCustomGcode,
  });
}

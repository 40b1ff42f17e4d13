// POST /v2/profiles/import: a shop's PrusaSlicer config (.ini flat or bundle, project .3mf) or Orca/Bambu preset
// (.json) as its profiles, or a printer picked from the vendor library (a JSON body naming `library`).
import type { Context } from 'koa';
import type { Deps } from '../deps.ts';
import { ApiError, jsonBody } from '../http/index.ts';
import { validateBody } from '../openapi/index.ts';
import { libraryPick, resolveConfigBundle } from '../printer-library/index.ts';
import { type ReadConfig, readFlatConfig, readOrcaPreset, readProjectConfig } from '../prusa-config/index.ts';
import { asApiError, type ImportResult, importConfig } from './import.ts';
import { type ImportUpload, readImportUpload } from './import-body.ts';

/** A config bundle (PrusaSlicer's "Export Config Bundle") has `[printer:…]`-style sections; a flat export has none. */
const BUNDLE_SECTION = /^\s*\[(printer|print|filament|sla_print|sla_material|physical_printer|presets):/m;

async function readConfig(upload: ImportUpload): Promise<ReadConfig> {
  try {
    if (upload.format === '3mf') return readProjectConfig(upload.bytes);
    const text = Buffer.from(upload.bytes).toString('utf8');
    if (upload.format === 'json') return readOrcaPreset(text);
    // A bundle's `inherits` are resolved in the library's worker thread: never a big parse on the event loop.
    if (BUNDLE_SECTION.test(text)) return await resolveConfigBundle(text);
    return readFlatConfig(text);
  } catch (e) {
    throw asApiError(e);
  }
}

/** `{"library": {vendor, printer, prints, filaments}}`: the vendor's presets, flattened, imported like a file. */
async function importFromLibrary(deps: Pick<Deps, 'config' | 'db'>, ctx: Context): Promise<ImportResult> {
  await jsonBody(ctx, async () => {});
  const body = validateBody('ProfileLibraryImport', ctx.request.body);
  const { vendor, printer, prints = [], filaments = [] } = body.library;
  const set = await libraryPick(deps, { vendor, printer, prints, filaments });
  return importConfig(deps, ctx.state.auth.account.id, {
    set,
    ignored: [],
    makeDefault: body.default ?? false,
    keepCustomGcode: body.keep_custom_gcode ?? false,
  });
}

export async function importFromUpload(
  deps: Pick<Deps, 'config' | 'db' | 'storage'>,
  ctx: Context,
): Promise<ImportResult> {
  if (ctx.is('application/json')) return importFromLibrary(deps, ctx);
  if (!ctx.is('multipart/form-data')) {
    ctx.set('Connection', 'close');
    throw new ApiError(
      415,
      'multipart_required',
      'Send the config as multipart/form-data with a part named "file", or a library pick as application/json.',
    );
  }
  const upload = await readImportUpload(deps, ctx);
  const read = await readConfig(upload);
  return importConfig(deps, ctx.state.auth.account.id, {
    set: read.set,
    ignored: read.ignored,
    makeDefault: upload.makeDefault,
    keepCustomGcode: upload.keepCustomGcode,
  });
}

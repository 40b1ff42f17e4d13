// The import check (docs/profiles.md, "Checking the import"): the reference part sliced with one printer profile
// and a material as a quote of it would be, beside the statistics of the shop's own G-code of the same part.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { components } from '../../shared/api/schema.ts';
import type { Auth } from '../accounts/access/index.ts';
import type { Deps } from '../deps.ts';
import { ApiError, notFound } from '../http/index.ts';
import {
  PoolClosedError,
  PoolFullError,
  printStats,
  SliceFailedError,
  type SliceSettings,
  SliceTimeoutError,
} from '../slicer/index.ts';
import type { ShopGcode } from './check-gcode.ts';
import { referencePart } from './reference-part.ts';
import { resolveFromProfiles } from './resolve.ts';
import { materialNames, type ProfileRow, profileById, profilesForResolution } from './sql.ts';

export type ProfileCheck = components['schemas']['ProfileCheck'];

/**
 * The rows a quote would resolve from, with `printer` in the default printer's place: an own printer over the
 * global default (field by field, as in a quote), a global one instead of every other printer.
 */
function withPrinter(rows: ProfileRow[], printer: ProfileRow): ProfileRow[] {
  const own = printer.account_id !== null;
  const others = rows.filter((r) => r.kind !== 'printer' || (own && r.account_id === null && r.id !== printer.id));
  return [...others, { ...printer, is_default: true }];
}

async function resolveFor(deps: Pick<Deps, 'db'>, accountId: string, printer: ProfileRow, material: string | null) {
  const rows = await profilesForResolution(deps.db, accountId, material);
  const named = material && rows.some((r) => r.kind === 'material' && r.name.toLowerCase() === material.toLowerCase());
  if (material && !named) {
    const available = await materialNames(deps.db, accountId);
    throw new ApiError(422, 'unknown_material', `No material profile is named "${material}".`, {
      field: 'material',
      available,
    });
  }
  // The check slices and prices nothing: a material without a price is no reason to refuse it.
  return resolveFromProfiles(withPrinter(rows, printer), {
    material_config: { ...(material ? { filament_type: material } : {}), price_per_gram: 0 },
  });
}

/** Slicer failures as the quote's job errors answer them. */
function sliceProblem(err: unknown): unknown {
  if (err instanceof PoolFullError || err instanceof PoolClosedError)
    return new ApiError(503, 'slicer_busy', 'All slicers are busy; retry shortly.', undefined, { 'Retry-After': '10' });
  if (err instanceof SliceTimeoutError) return new ApiError(422, 'slice_timeout', err.message);
  if (err instanceof SliceFailedError)
    return new ApiError(err.code === 'slicer_unavailable' ? 503 : 422, err.code, err.message);
  return err;
}

async function sliceReference(deps: Pick<Deps, 'storage' | 'jobs'>, auth: Auth, settings: SliceSettings) {
  const dir = await deps.storage.makeWorkDir('reference');
  try {
    const meshPath = join(dir, referencePart.name);
    await writeFile(meshPath, referencePart.bytes());
    return await deps.jobs.sliceAside({ account_id: auth.account.id, caller: auth.caller, meshPath, settings });
  } catch (err) {
    throw sliceProblem(err);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;
const percent = (ours: number, shops: number) => round(((ours - shops) / shops) * 100, 2);

/** A profile check reads the profiles, stores the reference part and slices it as a job. */
export type CheckPorts = Pick<Deps, 'db' | 'storage' | 'jobs'>;

export async function checkPrinterProfile(
  deps: CheckPorts,
  auth: Auth,
  profileId: string,
  input: { material: string | null; shop: ShopGcode | null },
): Promise<ProfileCheck> {
  const printer = await profileById(deps.db, auth.account.id, 'printer', profileId);
  if (!printer) throw notFound('printer profile', profileId);
  const resolution = await resolveFor(deps, auth.account.id, printer, input.material);
  const out = await sliceReference(deps, auth, resolution.settings);
  const stats = printStats(out.stats, resolution.settings.material);
  const slice = {
    filament_weight_g: round(stats.filament_weight_g, 3),
    print_time_s: stats.print_time_s,
    filament_length_mm: round(stats.filament_length_mm, 2),
  };
  const { shop } = input;
  return {
    profile_id: printer.id,
    material: resolution.material.name,
    reference_part: { name: referencePart.name, triangles: referencePart.triangles, size_mm: referencePart.size_mm },
    slicer: { name: out.slicer.name, version: out.slicer.version },
    slice,
    shop_gcode: shop,
    difference: shop && {
      weight_percent: shop.filament_weight_g ? percent(slice.filament_weight_g, shop.filament_weight_g) : null,
      time_percent: percent(slice.print_time_s, shop.print_time_s),
    },
  };
}

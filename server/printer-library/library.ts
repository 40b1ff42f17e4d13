// The printer library as the API answers it: built once in the library's thread, kept here while the profiles
// folder is unchanged, and narrowed to one vendor on request.
import type { components } from '../../shared/api/schema.ts';
import type { Deps } from '../deps.ts';
import { ValidationError } from '../http/index.ts';
import type { LibraryPick, PresetSet, ReadConfig } from '../prusa-config/index.ts';
import { slicerVersionOrNull } from '../slicer/index.ts';
import { bundleFiles } from './bundle-files.ts';
import { runLibraryJob } from './library-thread.ts';
import type { LibraryListing } from './library-worker.ts';

let cached: { signature: string; listing: Promise<LibraryListing> } | null = null;

/** Every vendor's FFF printers and their compatible presets, from the configured profiles folder. */
export function libraryListing(deps: Pick<Deps, 'config' | 'log'>): Promise<LibraryListing> {
  const dir = deps.config.slicerProfilesDir;
  const { signature } = bundleFiles(dir);
  if (cached?.signature !== signature) {
    const listing = runLibraryJob<LibraryListing>({ kind: 'list', dir });
    cached = { signature, listing };
    listing.then(
      (built) => {
        for (const skip of built.skipped) deps.log.error(`printer library: ${skip.id}.ini skipped`, skip.reason);
      },
      () => {
        if (cached?.listing === listing) cached = null; // a later request tries again
      },
    );
  }
  return cached.listing;
}

type LibraryAnswer = components['schemas']['PrinterLibrary'];

/**
 * GET /v2/profiles/library. Without `vendor`, the printers come without their preset lists (the whole library
 * runs to megabytes); with it, that vendor alone (its id or name, any letter case) with every list.
 */
export async function presentLibrary(
  deps: Pick<Deps, 'config' | 'log'>,
  vendor: string | undefined,
): Promise<LibraryAnswer> {
  const [listing, slicerVersion] = await Promise.all([
    libraryListing(deps),
    slicerVersionOrNull(deps.config.slicerBinary),
  ]);
  const wanted = vendor?.trim().toLowerCase();
  const vendors = wanted
    ? listing.vendors.filter((v) => v.id.toLowerCase() === wanted || v.name.toLowerCase() === wanted)
    : listing.vendors;
  if (wanted && vendors.length === 0)
    throw new ValidationError([{ field: 'vendor', message: `no vendor "${vendor}" in the printer library` }]);
  return {
    slicer_version: slicerVersion,
    vendors: vendors.map((v) => ({
      ...v,
      unsupported_conditions: v.unsupported_conditions.length,
      printers: wanted ? v.printers : v.printers.map(({ prints: _p, filaments: _f, ...printer }) => printer),
    })),
  };
}

/**
 * A shop's pick from the library as a PresetSet (each preset flattened, with every value's source). Unknown or
 * incompatible names are a 400 naming `library.<field>`.
 */
export function libraryPick(deps: Pick<Deps, 'config'>, pick: LibraryPick): Promise<PresetSet> {
  return runLibraryJob<PresetSet>({ kind: 'pick', dir: deps.config.slicerProfilesDir, pick });
}

/**
 * A user's config bundle (PrusaSlicer's exported `.ini`) as a PresetSet with what could not be carried over,
 * resolved in the library's thread; a broken or hostile bundle is a 400 naming the preset (docs/profiles.md,
 * "Config bundles are code").
 */
export function resolveConfigBundle(text: string): Promise<ReadConfig> {
  return runLibraryJob<ReadConfig>({ kind: 'bundle', text });
}

// The slice plan: what a quote of a file will be sliced as, computed once in one place for the quote, the
// prefetch and the price list alike: the settings resolved from the request, the offer's choices and the profiles
// (with their sources), the placement on the printer (or why the part fits none), the slicer's version and the
// slicing key. What the slice is predicted to cost is asked of the plan only where a slice will run.
import type { Deps } from '../deps.ts';
import type { FileRow } from '../files/index.ts';
import { ApiError } from '../http/index.ts';
import { placeForQuote } from '../placement/index.ts';
import { type QuoteRequest, type Resolution, resolveSettings } from '../profiles/index.ts';
import { detectSlicer } from '../slicer/index.ts';
import type { StoredResolution } from './model.ts';
import { type SliceCost, sliceCost } from './slice-cost.ts';
import { slicingKey } from './slicing-key.ts';

export interface SlicePlan {
  resolution: Resolution;
  /** What a quote row keeps of it, so that a worker can slice and price it later. */
  resolved: StoredResolution;
  placement: ReturnType<typeof placeForQuote>;
  /** Why the part is never sliced (it fits the printer in no orientation, or is thinner than a layer); null: it is. */
  refusal: ReturnType<typeof placeForQuote>['refusal'];
  key: string;
}

/** The version of the slicer the plans are made for; 503 when there is none. */
export async function slicerVersionOf(deps: Pick<Deps, 'config'>): Promise<string> {
  try {
    return (await detectSlicer(deps.config.slicerBinary)).version;
  } catch {
    throw new ApiError(
      503,
      'slicer_unavailable',
      'The slicer is not available on this server; quotes cannot be computed right now.',
      undefined,
      { 'Retry-After': '60' },
    );
  }
}

/** The plan of a quote of `file` with `request` over the offer `layer` (a shopper's choices), for `version`. */
export async function planSlice(
  deps: Pick<Deps, 'db'>,
  file: FileRow,
  request: QuoteRequest,
  layer: QuoteRequest | undefined,
  version: string,
): Promise<SlicePlan> {
  const resolution = await resolveSettings(deps.db, file.account_id, request, layer);
  const placement = placeForQuote(file, resolution.settings.printer);
  const resolved: StoredResolution = {
    settings: resolution.settings,
    sources: resolution.sources,
    material_profile_id: resolution.material.id,
    conversion: resolution.conversion,
    placement,
  };
  const key = slicingKey(file.mesh_sha256, resolution.settings, version, placement.transform ?? undefined);
  return { resolution, resolved, placement, refusal: placement.refusal, key };
}

/** What slicing a plan that is not refused is predicted to cost (slice-cost.ts). */
export function planCost(deps: Pick<Deps, 'db' | 'now'>, file: FileRow, plan: SlicePlan): Promise<SliceCost> {
  return sliceCost(deps, file, plan.placement.placement!, plan.resolution.settings);
}

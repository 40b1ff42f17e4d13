// Pre-slicing at a widget upload (docs/instant-price.md): as soon as a shopper's upload is measured, the slice of
// the offer's default choices is queued and a worker woken, then those of the other choices that change the slice
// (other materials, qualities and infills, in turns), so that the shopper's first price and the usual changes are
// answered from the slice cache. Bounded per upload and per account; run only when no quote waits; gone with the file or when the
// shopper's upload session ends.

import type { Offer, OfferChoices } from '../../shared/offer.ts';
import type { Deps } from '../deps.ts';
import type { FileRow, UploadListener } from '../files/index.ts';
import { slicerSecondsUsed } from '../limits/index.ts';
import { checkChoices, choicesLayer, effectiveOffer } from '../offer/index.ts';
import { detectSlicer } from '../slicer/index.ts';
import { type FeaturesPorts, quoteFeatures } from './estimate.ts';
import { multiMaterialRefusal } from './multi-material.ts';
import { planCost, planSlice } from './plan.ts';
import { countPrefetches, insertPrefetches, type NewPrefetch } from './prefetch-sql.ts';

/**
 * Slices queued for one upload at most: the default choices and the five likeliest changes. With the choices that
 * share a slice, that covers most of a typical offer: of the demo shop's 12 choices besides the default, 7 were
 * cached after the first price with six prefetches, 6 with four (the others take a whole slice each).
 */
export const PREFETCH_PER_UPLOAD = 6;
/** Prefetches one account may have waiting or running at once, across all its shoppers. */
export const PREFETCH_PER_ACCOUNT = 12;

/**
 * The offer's default choices first, then the other choices in turns: each other material, quality and infill (the
 * others at default), one of each kind before the second of any, each kind in the offer's order. Shoppers change the
 * material most, then the quality, then the infill; taking turns keeps every kind within the per-upload cap.
 */
export function prefetchChoices(offer: Offer): OfferChoices[] {
  const others = <T>(values: readonly T[], current: T) => values.filter((v) => v !== current);
  const kinds: OfferChoices[][] = [
    others(
      offer.materials.map((m) => m.material),
      offer.default_material,
    ).map((material) => ({ material })),
    others(
      offer.qualities.map((q) => q.id),
      offer.default_quality,
    ).map((quality) => ({ quality })),
    others(offer.infill_options, offer.default_infill).map((infill) => ({ infill })),
  ];
  const turns = Math.max(...kinds.map((k) => k.length));
  const inTurns = Array.from({ length: turns }, (_, i) => kinds.flatMap((k) => (i < k.length ? [k[i]!] : [])));
  return [{}, ...inTurns.flat()];
}

/** The distinct slices of an upload's likely choices, most likely first, each as a prefetch row. */
async function* plannedSlices(
  deps: Pick<Deps, 'config' | 'db' | 'now'>,
  file: FileRow,
  upload: PrefetchUpload,
): AsyncGenerator<NewPrefetch> {
  const { widgetKeyId, expiresAt } = upload;
  const caller = prefetchCaller(file.account_id);
  const { offer } = await effectiveOffer(deps.db, file.account_id, widgetKeyId);
  const version = (await detectSlicer(deps.config.slicerBinary)).version;
  const planned = new Set<string>();
  // A multi-colour part is never sliced for a shopper (multi-material.ts): nothing to prefetch.
  if (multiMaterialRefusal(file)) return;
  for (const raw of prefetchChoices(offer)) {
    if (planned.size >= PREFETCH_PER_UPLOAD) break;
    const plan = await planSlice(deps, file, {}, choicesLayer(offer, checkChoices(offer, raw)), version);
    if (plan.refusal) return; // fits no orientation: every quote of it is refused before slicing
    if (planned.has(plan.key)) continue; // e.g. a quality that differs only in what never changes the slice
    // A part this costly is sliced only when a shopper asks for it: never on speculation (docs/limits.md).
    const cost = await planCost(deps, file, plan);
    if (cost.predicted_s > deps.config.prefetchMaxSeconds) continue;
    yield {
      slicing_key: plan.key,
      account_id: file.account_id,
      file_id: file.id,
      resolved: plan.resolved,
      rank: planned.size,
      expires_at: expiresAt,
      caller,
      predicted_s: cost.predicted_s,
    };
    planned.add(plan.key);
  }
}

/**
 * Queues the prefetches of a widget upload and wakes the workers; returns how many were queued. Never fails the
 * upload: a shop whose offer cannot be resolved just gets no prefetch (the shopper's quote reports why).
 */
export interface PrefetchUpload {
  widgetKeyId: string | null;
  /** When the upload's shopper session ends: the prefetches go with it. */
  expiresAt: Date;
  /** Who uploaded. Not who pays: prefetches spend the shop's own budget (prefetchCaller, docs/limits.md). */
  caller: string;
}

/** Planning an upload's prefetches: the shop's budget and the plans (on the clock), their estimates, their jobs. */
type PlanPorts = FeaturesPorts & Pick<Deps, 'db' | 'log' | 'now' | 'jobs'>;
/** Prefetching also counts the uploads being planned in the metrics. */
export type PrefetchPorts = PlanPorts & Pick<Deps, 'metrics'>;

export async function prefetchUpload(deps: PrefetchPorts, file: FileRow, upload: PrefetchUpload): Promise<number> {
  // Counted before the first await: from the upload's answer on, its planning shows until it is done.
  deps.metrics.prefetchPlanning.inc();
  try {
    return await planUpload(deps, file, upload);
  } finally {
    deps.metrics.prefetchPlanning.dec();
  }
}

/**
 * Who a prefetch's slicer time is charged to: the shop's own prefetch budget, never the shopper who uploaded (a
 * speculation the shop chose to make must not spend the shopper's hour of slicer time, docs/limits.md).
 */
export const prefetchCaller = (accountId: string): string => `prefetch:${accountId}`;

/** Whether the shop's prefetches of the last hour left room in its budget (PREFETCH_SECONDS_PER_SHOP_HOUR). */
async function prefetchBudgetLeft(deps: Pick<Deps, 'config' | 'db' | 'now'>, accountId: string): Promise<boolean> {
  const budget = deps.config.prefetchSecondsPerShopHour;
  const { used } = await slicerSecondsUsed(deps.db, prefetchCaller(accountId), budget, deps.now());
  return used < budget;
}

async function planUpload(deps: PlanPorts, file: FileRow, upload: PrefetchUpload): Promise<number> {
  try {
    // A spent budget means no speculation this hour: shoppers are still priced, each when they ask.
    if (!(await prefetchBudgetLeft(deps, file.account_id))) return 0;
    let room = PREFETCH_PER_ACCOUNT - (await countPrefetches(deps.db, file.account_id, deps.now()));
    if (room <= 0) return 0;
    let queued = 0;
    let first: NewPrefetch | null = null;
    for await (const row of plannedSlices(deps, file, upload)) {
      if (room-- <= 0) break;
      // Each slice is queued, and a worker woken, as soon as it is planned: the default choices' slice starts while
      // the others are still being worked out (their settings, placements and costs are the event loop's work,
      // and their queries the database's, which would otherwise come between it and its claim).
      const inserted = await insertPrefetches(deps.db, [row]);
      const claimed = inserted ? deps.jobs.wake() : Promise.resolve();
      // The first is claimed, its slicer starting, before the other choices are worked out beside it.
      if (!first) await claimed;
      queued += inserted;
      first ??= row;
    }
    // The estimate of the default choices, ready before the shopper's first quote asks for it.
    if (first) await quoteFeatures(deps, first, first.caller ?? `acct:${first.account_id}`).catch(() => undefined);
    return queued;
  } catch (err) {
    // The file was deleted while its slices were planned (a foreign key violation): nothing to prefetch.
    if ((err as { code?: string }).code !== '23503')
      deps.log.error(`prefetch: could not plan the slices of ${file.id}`, err);
    return 0;
  }
}

/** Quotes' subscription to uploads: each shopper's upload or rescale queues its likely slices. */
export function prefetchOnUpload(deps: PrefetchPorts): UploadListener {
  return { shopperUploaded: (file, upload) => void prefetchUpload(deps, file, upload) };
}

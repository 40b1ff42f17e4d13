// A shopper's choice over the shop's slicer limit is answered with a way forward, not a dead end
// (docs/limits.md, "Slicer time"): the offer's other qualities that would slice within the limit with the shopper's
// other choices, priced by the same host-independent prediction. Only on the refusal path, once per quality.
import type { Offer, ResolvedChoices } from '../../shared/offer.ts';
import type { Deps } from '../deps.ts';
import type { FileRow } from '../files/index.ts';
import { choicesLayer } from '../offer/index.ts';
import type { QuoteRequest } from '../profiles/index.ts';
import { planCost, planSlice } from './plan.ts';
import type { QualityWithinLimit } from './slice-cost.ts';

/** The offer's other qualities whose slice is predicted within `limitS`, the finest (longest) first. */
export async function qualitiesWithinLimit(
  deps: Pick<Deps, 'db' | 'now'>,
  file: FileRow,
  request: QuoteRequest,
  offer: Offer,
  choices: ResolvedChoices,
  limitS: number,
  slicerVersion: string,
): Promise<QualityWithinLimit[]> {
  const found: QualityWithinLimit[] = [];
  for (const quality of offer.qualities) {
    if (quality.id === choices.quality) continue;
    const layer = choicesLayer(offer, { ...choices, quality: quality.id });
    // A quality whose settings cannot be resolved or placed is no way forward: it is left out, not an error.
    const plan = await planSlice(deps, file, request, layer, slicerVersion).catch(() => null);
    if (!plan || plan.refusal) continue;
    const cost = await planCost(deps, file, plan);
    if (cost.predicted_s <= limitS)
      found.push({ quality: quality.id, label: quality.label, predicted_seconds: cost.predicted_s });
  }
  return found.sort((a, b) => b.predicted_seconds - a.predicted_seconds);
}

// Every offered material side by side (docs/offer.md, "Every material side by side"): the price of one part in each
// material for the shopper's other choices. Exact where the slice is already in the cache (materials that share a
// slicing key share that one slice); otherwise the instant estimate scaled by an exact price:
// exact(A) × estimate(B) / estimate(A). Nothing here slices, queues or counts a quote: the list is read from the
// slice cache and the estimator alone, and an estimate is never a quote, so it can never be added to a cart.

import { type Features, predict } from '../../shared/estimate/index.ts';
import { roundHalfUp } from '../../shared/money.ts';
import { type Offer, resolveChoices } from '../../shared/offer.ts';
import { computePrice, currencyDigits } from '../../shared/pricing.ts';
import type { Auth } from '../accounts/access/index.ts';
import type { Deps } from '../deps.ts';
import type { FileRow } from '../files/index.ts';
import { fileForCaller } from '../files/index.ts';
import { ValidationError } from '../http/index.ts';
import { choicesLayer, effectiveOffer } from '../offer/index.ts';
import { printStats } from '../slicer/index.ts';
import {
  calibrationScope,
  type EstimatePorts,
  type FeaturesPorts,
  presentEstimate,
  quoteFeatures,
} from './estimate.ts';
import type { StoredResolution } from './model.ts';
import { planSlice, slicerVersionOf } from './plan.ts';
import { printerLabel } from './printer-label.ts';
import { sliceByKey } from './sql.ts';

/**
 * Distinct measurements of the mesh's features one list may make (each in a mesh worker; materials that slice alike
 * but for their filament share one, featuresOnce): materials beyond them that need an estimate are listed without a
 * price.
 */
export const MAX_MEASUREMENTS = 4;

export interface MaterialPrice {
  material: string;
  description: string | null;
  /** One part's price; null: neither sliced nor estimable now (quote the material to price it). */
  total_price: number | null;
  /** exact: from a real slice (a quote for it is answered from the cache); estimate: ≈, never cartable. */
  basis: 'exact' | 'estimate' | null;
}

interface Row {
  material: string;
  description: string | null;
  resolved: StoredResolution;
  key: string;
  exactMinor: number | null;
  estimateMinor: number | null;
}

/** The query's choices (every choice but the material) checked against the offer: 400 names the query field. */
function otherChoices(offer: Offer, query: Record<string, unknown>) {
  const raw: Record<string, unknown> = {};
  if (typeof query.quality === 'string') raw.quality = query.quality;
  if (typeof query.infill === 'string') raw.infill = Number(query.infill);
  const { choices, issues } = resolveChoices(offer, raw);
  if (issues.length) throw new ValidationError(issues.map((i) => ({ ...i, field: i.field.replace('choices.', '') })));
  return choices;
}

async function resolveRow(
  deps: Pick<Deps, 'db'>,
  _auth: Auth,
  file: FileRow,
  offer: Offer,
  choices: ReturnType<typeof otherChoices>,
  m: Offer['materials'][number],
  version: string,
) {
  const layer = choicesLayer(offer, { ...choices, material: m.material, color: m.colors[0] ?? null });
  const { resolution, resolved, refusal, key } = await planSlice(deps, file, {}, layer, version);
  if (refusal) return null;
  const slice = await sliceByKey(deps.db, key);
  const s = resolution.settings;
  const exactMinor = slice
    ? computePrice(printStats(slice.stats, s.material), s, resolution.conversion).minor_units.total
    : null;
  return { material: m.material, description: m.description ?? null, resolved, key, exactMinor, estimateMinor: null };
}

type FeaturesOf = (row: Row) => Promise<Features>;

/** What a row's features are measured with: the mesh as placed and the printer settings. */
const basisOf = (row: Row) =>
  JSON.stringify([row.resolved.placement?.transform ?? null, row.resolved.settings.printer]);

/**
 * The features of a list's rows, measured once per placed mesh and printer settings. The estimator's features do
 * not depend on the material (its density prices them in predict), so the materials of one quality and infill, each
 * its own slicing key, share one measurement instead of one each; every row's key keeps it for that material's quote.
 */
function featuresOnce(deps: FeaturesPorts, auth: Auth, file: FileRow): FeaturesOf {
  const byBasis = new Map<string, Promise<Features>>();
  return (row) => {
    const basis = basisOf(row);
    const measured = byBasis.get(basis);
    if (measured) return deps.estimator.featuresOf(row.key, () => measured);
    const made = quoteFeatures(deps, { file_id: file.id, slicing_key: row.key, resolved: row.resolved }, auth.caller);
    byBasis.set(basis, made);
    return made;
  };
}

/** The instant estimate of one part in minor units, or null when the estimator cannot make one. */
async function estimateMinor(
  deps: Pick<Deps, 'log' | 'estimator'>,
  auth: Auth,
  file: FileRow,
  row: Row,
  featuresOf: FeaturesOf,
) {
  const accountId = auth.account.id;
  try {
    const features = await featuresOf(row);
    const printer = printerLabel(row.resolved.settings.printer);
    const scope = calibrationScope({ printer, resolved: row.resolved });
    const { calibration, source } = await deps.estimator.calibrationFor(accountId, scope, row.resolved.settings);
    const e = predict(features, row.resolved.settings, calibration);
    const shown = presentEstimate(e, features, row.resolved, source);
    return roundHalfUp(shown.total_price * 10 ** digitsOf(row));
  } catch {
    // A mesh the estimator refuses, features of another basis, a price out of range: listed without a price.
    deps.log.info(`material prices: no estimate for ${row.material} of ${file.id}`);
    return null;
  }
}

/** The quote currency is the resolved one (converted quotes resolve to the requested currency). */
const digitsOf = (row: Row) => currencyDigits(row.resolved.settings.quote.currency);

/**
 * The ratio-scaled estimate of a price: an exact price times the ratio of two estimated prices, so the estimator's
 * bias for this part cancels out. It scales money, where shared/estimate's `scaleFromExact` scales weight and time:
 * a price's fixed parts (setup fee, minimum) make it an approximation, shown marked as an estimate.
 */
export const scalePriceFromExact = (exactA: number, estimateA: number, estimateB: number) =>
  roundHalfUp((exactA * estimateB) / estimateA);

/** GET /v2/widget/files/{file_id}/prices: every offered material priced for this part, cheapest first. */
export async function materialPrices(deps: EstimatePorts, auth: Auth, fileId: string, query: Record<string, unknown>) {
  const file = await fileForCaller(deps, auth, fileId);
  const { offer } = await effectiveOffer(deps.db, auth.account.id, auth.widgetKeyId);
  const choices = otherChoices(offer, query);
  const version = await slicerVersionOf(deps);
  const rows: Row[] = [];
  for (const m of offer.materials) {
    const row = await resolveRow(deps, auth, file, offer, choices, m, version).catch(() => null);
    if (row) rows.push(row);
  }
  await estimateWhereNeeded(deps, auth, file, rows);
  const currency = rows[0]?.resolved.settings.quote.currency ?? null;
  const priced = rows.map((r) => present(r, anchorOf(rows)));
  const unpriced = offer.materials
    .filter((m) => !rows.some((r) => r.material === m.material))
    .map((m) => ({ material: m.material, description: m.description ?? null, total_price: null, basis: null }));
  const list = [...priced, ...unpriced] as MaterialPrice[];
  list.sort((a, b) => (a.total_price ?? Number.POSITIVE_INFINITY) - (b.total_price ?? Number.POSITIVE_INFINITY));
  return { file_id: file.id, currency, quality: choices.quality, infill: choices.infill, prices: list };
}

/** Estimates for the rows without a slice, and for one sliced row to scale them by (at most MAX_MEASUREMENTS). */
async function estimateWhereNeeded(deps: FeaturesPorts & Pick<Deps, 'log'>, auth: Auth, file: FileRow, rows: Row[]) {
  const missing = rows.filter((r) => r.exactMinor === null);
  if (!missing.length) return;
  const anchor = rows.find((r) => r.exactMinor !== null);
  const wanted = anchor ? [anchor, ...missing] : missing;
  const bases = [...new Set(wanted.map(basisOf))].slice(0, MAX_MEASUREMENTS);
  const featuresOf = featuresOnce(deps, auth, file);
  for (const r of wanted)
    if (bases.includes(basisOf(r))) r.estimateMinor = await estimateMinor(deps, auth, file, r, featuresOf);
}

const anchorOf = (rows: Row[]) => rows.find((r) => r.exactMinor !== null && r.estimateMinor);

function present(r: Row, anchor: Row | undefined): MaterialPrice {
  const digits = digitsOf(r);
  const major = (minor: number) => minor / 10 ** digits;
  const base = { material: r.material, description: r.description };
  if (r.exactMinor !== null) return { ...base, total_price: major(r.exactMinor), basis: 'exact' };
  if (r.estimateMinor === null) return { ...base, total_price: null, basis: null };
  const minor = anchor
    ? scalePriceFromExact(anchor.exactMinor!, anchor.estimateMinor!, r.estimateMinor)
    : r.estimateMinor;
  return { ...base, total_price: major(minor), basis: 'estimate' };
}

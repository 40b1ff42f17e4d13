// The instant estimate a quote carries while its slice runs (docs/estimate.md): the estimator's features of the
// placed mesh with the quote's settings (measured in a mesh worker thread), calibrated on the account's own real
// slices of the same printer and material (shipped defaults until there are enough), priced with the same formula
// as a real quote, with the range the real price is expected in. An estimate is never a price: it cannot be added
// to a cart, and the exact quote replaces it.

import {
  type Calibration,
  DEFAULT_CALIBRATION,
  type Estimate,
  FEATURES_VERSION,
  type Features,
  fitCalibration,
  predict,
  withUnmeasuredRanges,
} from '../../shared/estimate/index.ts';
import { computePrice, PriceOutOfRangeError } from '../../shared/pricing.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import type { SliceMeasure } from '../slicer/index.ts';
import { detectSlicer, estimateSettingsOf, printStats, type SliceSettings } from '../slicer/index.ts';
import type { PresentedEstimate, StoredResolution } from './model.ts';
import type { QuoteRow } from './sql.ts';

export type { PresentedEstimate };

import { ApiError } from '../http/index.ts';

/** Fewer real slices than this and the shipped calibration is used: a fit on a handful would be noise. */
export const MIN_CALIBRATION_SAMPLES = 6;
/** The newest real slices of a printer and material the calibration is fitted on. */
const CALIBRATION_WINDOW = 300;

/** Calibration scope: the printer (its label) and the material profile a quote was sliced for. */
export const calibrationScope = (row: Pick<QuoteRow, 'printer' | 'resolved'>) =>
  scopeOf(row.printer, row.resolved?.material_profile_id);

/** The scope of a printer (its label) and a material profile. */
export const scopeOf = (printer: string | null, materialProfileId: string | undefined) =>
  `${printer ?? ''}|${materialProfileId ?? ''}`;

const SHIPPED_FOR_OWN_CONFIGS = withUnmeasuredRanges(DEFAULT_CALIBRATION);

/** Features measured in this process, by slicing key: a prefetched upload's estimate is ready before it is asked. */
const FEATURES_KEPT = 200;

/**
 * The estimator's state in this process: calibrations fitted on the accounts' samples (refitted when a scope gets a
 * new one), and the features of recent slicing keys.
 */
export function createEstimator(db: Queryable) {
  const fitted = new Map<string, { count: number; calibration: Calibration }>();
  const features = new Map<string, Promise<Features>>();
  return { calibrationFor, featuresOf };

  /** The features of a slicing key, measured once (a failed measurement is forgotten, so it may be tried again). */
  function featuresOf(key: string, measure: () => Promise<Features>): Promise<Features> {
    const known = features.get(key);
    if (known) return known;
    const made = measure();
    made.catch(() => features.delete(key));
    if (features.size >= FEATURES_KEPT) features.delete(features.keys().next().value!);
    features.set(key, made);
    return made;
  }

  /** `settings`: what the estimate is for; a shop's own imported config starts from the shipped coefficients with
   *  unmeasured ranges, since the shipped residuals describe only the service's own config. */
  async function calibrationFor(
    accountId: string,
    scope: string,
    settings: SliceSettings,
  ): Promise<{ calibration: Calibration; source: PresentedEstimate['calibration'] }> {
    const shipped = settings.imported ? SHIPPED_FOR_OWN_CONFIGS : DEFAULT_CALIBRATION;
    const [row] = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM calibration_samples WHERE account_id = $1 AND scope = $2',
      [accountId, scope],
    );
    const count = Math.min(row?.n ?? 0, CALIBRATION_WINDOW);
    if (count < MIN_CALIBRATION_SAMPLES) return { calibration: shipped, source: 'shipped' };
    const key = `${accountId} ${scope}`;
    const known = fitted.get(key);
    if (known && known.count === (row?.n ?? 0)) return { calibration: known.calibration, source: 'account' };
    const samples = await db.query<{ features: Features; volume_mm3: number; time_s: number; model: string }>(
      `SELECT features, volume_mm3, time_s, model FROM calibration_samples WHERE account_id = $1 AND scope = $2
       ORDER BY created_at DESC LIMIT $3`,
      [accountId, scope, CALIBRATION_WINDOW],
    );
    // The shipped calibration is the prior the account's slices refine: few samples move it little, and its
    // ranges only narrow as samples arrive (docs/estimate.md "Calibration per account"). Samples measured with
    // older features are skipped: they cannot be fitted with these.
    const calibration = fitCalibration(
      samples
        .filter((s) => s.features?.version === FEATURES_VERSION)
        .map((s) => ({ features: s.features, volume_mm3: s.volume_mm3, time_s: s.time_s, group: s.model })),
      { prior: shipped },
    );
    if (fitted.size > 1000) fitted.clear();
    fitted.set(key, { count: row?.n ?? 0, calibration });
    return { calibration, source: 'account' };
  }
}

export type Estimator = ReturnType<typeof createEstimator>;

/** A mesh's features are measured from its stored copy in a mesh worker and kept by the estimator. */
export type FeaturesPorts = Pick<Deps, 'config' | 'storage' | 'parser' | 'estimator'>;
/** An estimate also reads the quote's file and logs an estimate that could not be made. */
export type EstimatePorts = FeaturesPorts & Pick<Deps, 'db' | 'log'>;

/**
 * The features of a quote's mesh as placed, with its settings (measured in a mesh worker in `caller`'s turn, kept by
 * slicing key).
 */
export function quoteFeatures(
  deps: FeaturesPorts,
  target: { file_id: string; slicing_key: string | null; resolved: StoredResolution },
  caller: string,
): Promise<Features> {
  const { resolved } = target;
  const measure = async () => {
    await deps.storage.ensureLocal(target.file_id);
    // The slicer's version is in the slicing key, so features kept by key were measured for the same slicer; an
    // unavailable slicer leaves the estimator's default (the version the product ships).
    const slicerVersion = await detectSlicer(deps.config.slicerBinary).then(
      (slicer) => slicer.version,
      () => undefined,
    );
    return deps.parser.features(
      {
        meshPath: deps.storage.canonicalPath(target.file_id),
        placement: resolved.placement?.transform ?? null,
        settings: estimateSettingsOf(resolved.settings),
        slicerVersion,
      },
      caller,
    );
  };
  return target.slicing_key ? deps.estimator.featuresOf(target.slicing_key, measure) : measure();
}

/** The estimate's figures priced with the quote's own settings: the middle and the two ends of the range. */
export function presentEstimate(
  e: Estimate,
  features: Features,
  resolved: Pick<StoredResolution, 'settings' | 'conversion'>,
  calibration: PresentedEstimate['calibration'],
): PresentedEstimate {
  const s = resolved.settings;
  const measure = (grams: number, seconds: number): SliceMeasure => ({
    extruded_volume_mm3: (grams / s.material.density) * 1000,
    support_share: 0,
    print_time_s: seconds,
    layers: features.layers,
    max_z_mm: features.height_mm,
  });
  const priceOf = (grams: number, seconds: number) =>
    computePrice(printStats(measure(grams, seconds), s.material), s, resolved.conversion);
  const mid = priceOf(e.filament_weight_g, e.estimated_time_seconds);
  const lo = priceOf(e.weight_range[0], e.time_range[0]);
  const hi = priceOf(e.weight_range[1], e.time_range[1]);
  const grams = (g: number) => Math.round(g * 100) / 100;
  return {
    total_price: mid.total,
    price_range: [lo.total, hi.total],
    currency: mid.currency,
    filament_weight: grams(e.filament_weight_g),
    weight_range: [grams(e.weight_range[0]), grams(e.weight_range[1])],
    estimated_time_seconds: Math.round(e.estimated_time_seconds),
    time_range: [Math.round(e.time_range[0]), Math.round(e.time_range[1])],
    method: e.method,
    samples: e.samples,
    calibration,
  };
}

/**
 * Estimates a quote that waits for its slice and stores the estimate on it; null when it cannot be made (the
 * model file is gone, the estimator refuses the mesh, the price is out of range): the quote then simply has
 * none, and its slice decides.
 */
export async function estimateQuote(deps: EstimatePorts, row: QuoteRow): Promise<PresentedEstimate | null> {
  const resolved = row.resolved;
  if (!resolved) return null;
  try {
    const features = await quoteFeatures(deps, { ...row, resolved }, row.caller ?? `acct:${row.account_id}`);
    const { calibration, source } = await deps.estimator.calibrationFor(
      row.account_id,
      calibrationScope(row),
      resolved.settings,
    );
    const estimate = predict(features, resolved.settings, calibration);
    const presented = presentEstimate(estimate, features, resolved, source);
    await deps.db.query(
      `UPDATE quotes SET estimate = $2, estimate_features = $3 WHERE id = $1 AND status IN ('queued', 'processing')`,
      [row.id, JSON.stringify(presented), JSON.stringify(features)],
    );
    return presented;
  } catch (err) {
    // A mesh the estimator refuses or a price out of range: no estimate, and the slice decides.
    if (err instanceof ApiError || err instanceof PriceOutOfRangeError) deps.log.info(`estimate: none for ${row.id}`);
    else deps.log.error(`estimate: none for ${row.id}`, err);
    return null;
  }
}

/** A real slice of an estimated quote: a calibration sample of its account, printer and material. */
export async function recordCalibrationSample(
  tx: Queryable,
  row: QuoteRow,
  measure: SliceMeasure,
  model: string,
): Promise<void> {
  if (!row.estimate_features || !row.slicing_key) return;
  await tx.query(
    `INSERT INTO calibration_samples (account_id, scope, slicing_key, model, features, volume_mm3, time_s)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (account_id, slicing_key) DO NOTHING`,
    [
      row.account_id,
      calibrationScope(row),
      row.slicing_key,
      model,
      JSON.stringify(row.estimate_features),
      measure.extruded_volume_mm3,
      measure.print_time_s,
    ],
  );
}

declare module '../deps.ts' {
  interface Deps {
    /** The instant estimate's calibrations (fitted on each account's real slices) and recent features. */
    estimator: Estimator;
  }
}

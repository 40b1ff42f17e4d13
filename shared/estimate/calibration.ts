// The calibration: per-term coefficients that turn the physical model's volume and time terms into what PrusaSlicer
// reports, fitted on real slices, and the spread of its held-out errors, which becomes every estimate's range. Plain
// JSON, so the server can keep one per account × printer profile × material profile (docs/estimate.md).
import { refuse } from './errors.ts';
import { FEATURES_VERSION, type Features, type TimeTerms, type VolumeTerms } from './features.ts';
import { fitRelativeRidge, quantile } from './least-squares.ts';

export const CALIBRATION_VERSION = 1;

export const VOLUME_TERMS = [
  'walls',
  'solid',
  'sparse',
  'anchors',
  'support',
  'skirt',
] as const satisfies (keyof VolumeTerms)[];
export const TIME_TERMS = [
  'walls',
  'solid',
  'sparse',
  'support',
  'first_layer',
  'corners',
  'layer_changes',
  'cooling',
] as const satisfies (keyof TimeTerms)[];

/** The physical model's own coefficients: what a calibration without samples uses and what fits shrink toward. */
export const PRIOR_VOLUME: Readonly<VolumeTerms> = { walls: 1, solid: 1, sparse: 1, anchors: 1, support: 1, skirt: 1 };
export const PRIOR_TIME: Readonly<TimeTerms> = {
  walls: 1,
  solid: 1,
  sparse: 1,
  support: 1,
  first_layer: 1,
  corners: 1,
  layer_changes: 0.5,
  cooling: 1,
};

/** Relative error range: the real value lies in [estimate × (1 + lo), estimate × (1 + hi)]. */
export interface RelativeRange {
  lo: number;
  hi: number;
}

export interface Calibration {
  version: number;
  features_version: number;
  /** Real slices the coefficients were fitted on (0: the physical model alone). */
  samples: number;
  /** Distinct models among them (the residuals are held out per model). */
  groups: number;
  volume: { coefficients: VolumeTerms; range: RelativeRange };
  time: { coefficients: TimeTerms; range: RelativeRange };
}

/** One real slice: the features of the mesh and settings it was sliced with, and what PrusaSlicer reported. */
export interface CalibrationSample {
  features: Features;
  /** Filament extruded (model, support and skirt), mm³. */
  volume_mm3: number;
  /** PrusaSlicer's normal-mode print time, s. */
  time_s: number;
  /** The model it came from: samples of one model are held out together when the error range is measured. */
  group?: string;
}

/** Ranges when nothing was measured: wide on purpose. */
const UNMEASURED = { volume: { lo: -0.3, hi: 0.3 }, time: { lo: -0.4, hi: 0.4 } };
/** No range is announced narrower than this, whatever the samples say. */
const FLOOR = { volume: 0.02, time: 0.03 };
/** Below this many held-out units the measured spread is not trusted alone: blended with the unmeasured range. */
const FEW = 8;
/** Ridge weights toward the physical coefficients. Volume: chosen by leave-one-model-out error on the benchmark's
 *  training models. Time: a weaker pull scored better there but zeroed the first-layer and cooling terms, which
 *  those models barely exercise, and failed small parts badly; docs/estimate.md tells the story. */
const RIDGE: Ridge = { volume: 0.1, time: 0.02 };

/** How strongly a fit is held toward the physical model's coefficients, per kind. */
export interface Ridge {
  volume: number;
  time: number;
}

export interface FitOptions {
  /** Default: the weights chosen on the benchmark's training models. */
  ridge?: Ridge;
}
export const MAX_SAMPLES = 10_000;

/** The physical model without calibration. */
export const UNCALIBRATED: Calibration = {
  version: CALIBRATION_VERSION,
  features_version: FEATURES_VERSION,
  samples: 0,
  groups: 0,
  volume: { coefficients: { ...PRIOR_VOLUME }, range: { ...UNMEASURED.volume } },
  time: { coefficients: { ...PRIOR_TIME }, range: { ...UNMEASURED.time } },
};

type Kind = 'volume' | 'time';
const termsOf = (kind: Kind) => (kind === 'volume' ? VOLUME_TERMS : TIME_TERMS);
/** The terms of `kind` as a vector, in the order of VOLUME_TERMS or TIME_TERMS. */
const vectorOf = (kind: Kind, volume: Readonly<VolumeTerms>, time: Readonly<TimeTerms>): number[] =>
  kind === 'volume' ? VOLUME_TERMS.map((t) => volume[t]) : TIME_TERMS.map((t) => time[t]);

const row = (s: CalibrationSample, kind: Kind) => vectorOf(kind, s.features.volume_terms, s.features.time_terms);
const actual = (s: CalibrationSample, kind: Kind) => (kind === 'volume' ? s.volume_mm3 : s.time_s);

function fit(samples: CalibrationSample[], kind: Kind, ridge: Ridge): number[] {
  const prior = vectorOf(kind, PRIOR_VOLUME, PRIOR_TIME);
  return fitRelativeRidge(
    samples.map((s) => row(s, kind)),
    samples.map((s) => actual(s, kind)),
    prior,
    ridge[kind],
  );
}

const dot = (a: number[], b: number[]) => a.reduce((sum, v, i) => sum + v * b[i]!, 0);

/** Relative errors (real / estimate − 1) of each unit predicted by a fit that never saw it. */
function heldOutResiduals(samples: CalibrationSample[], kind: Kind, units: string[], ridge: Ridge): number[] {
  const residuals: number[] = [];
  for (const unit of units) {
    const train = samples.filter((s, i) => (s.group ?? `#${i}`) !== unit);
    const test = samples.filter((s, i) => (s.group ?? `#${i}`) === unit);
    const c = fit(train, kind, ridge);
    for (const s of test) residuals.push(actual(s, kind) / dot(c, row(s, kind)) - 1);
  }
  return residuals;
}

/** The announced range from held-out residuals: their 5th–95th percentile, widened by 1 + 2/√units, floored, and
 *  blended toward the unmeasured range when units are few. Always contains 0 (the estimate itself). */
function rangeOf(residuals: number[], units: number, kind: Kind): RelativeRange {
  const wide = UNMEASURED[kind];
  if (residuals.length === 0) return { ...wide };
  const sorted = [...residuals].sort((a, b) => a - b);
  const widen = 1 + 2 / Math.sqrt(units);
  let lo = Math.min(-FLOOR[kind], quantile(sorted, 0.05) * widen);
  let hi = Math.max(FLOOR[kind], quantile(sorted, 0.95) * widen);
  if (units < FEW) {
    const trust = units / FEW;
    lo = Math.min(lo, trust * lo + (1 - trust) * wide.lo);
    hi = Math.max(hi, trust * hi + (1 - trust) * wide.hi);
  }
  return { lo: Math.max(lo, -0.95), hi };
}

function checkSample(s: CalibrationSample, i: number): void {
  const ok = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0;
  if (!s?.features || s.features.version !== FEATURES_VERSION) {
    refuse('invalid_samples', `Sample ${i} has no features of version ${FEATURES_VERSION}.`);
  }
  if (!ok(s.volume_mm3) || !ok(s.time_s)) {
    refuse('invalid_samples', `Sample ${i} needs a positive, finite volume_mm3 and time_s.`);
  }
  for (const [kind, terms] of [
    ['volume', s.features.volume_terms],
    ['time', s.features.time_terms],
  ] as const) {
    for (const t of termsOf(kind)) {
      const v = (terms as unknown as Record<string, number>)[t];
      if (!(typeof v === 'number' && Number.isFinite(v) && v >= 0)) {
        refuse('invalid_samples', `Sample ${i} has an invalid ${kind} term ${t}.`);
      }
    }
  }
}

/**
 * Fits a calibration on real slices. With no samples it is the physical model with wide ranges; with few, the fit
 * stays near the physical model and the range stays wide. Samples sharing a `group` (one model under several
 * settings) are held out together when the range is measured, so it reflects models the fit has not seen.
 */
export function fitCalibration(samples: readonly CalibrationSample[], options: FitOptions = {}): Calibration {
  const ridge = options.ridge ?? RIDGE;
  if (!(ridge.volume >= 0 && ridge.time >= 0)) refuse('invalid_samples', 'The ridge weights must be ≥ 0.');
  if (!Array.isArray(samples)) refuse('invalid_samples', 'Samples must be an array.');
  if (samples.length > MAX_SAMPLES) refuse('invalid_samples', `At most ${MAX_SAMPLES} samples can be fitted.`);
  samples.forEach(checkSample);
  if (samples.length === 0) return structuredClone(UNCALIBRATED);
  const list = [...samples];
  const units = [...new Set(list.map((s, i) => s.group ?? `#${i}`))];
  const coefficients = (kind: Kind) => {
    const c = fit(list, kind, ridge);
    return Object.fromEntries(termsOf(kind).map((t, j) => [t, c[j]]));
  };
  const range = (kind: Kind) =>
    rangeOf(units.length > 1 ? heldOutResiduals(list, kind, units, ridge) : [], units.length, kind);
  return {
    version: CALIBRATION_VERSION,
    features_version: FEATURES_VERSION,
    samples: list.length,
    groups: units.length,
    volume: { coefficients: coefficients('volume') as unknown as VolumeTerms, range: range('volume') },
    time: { coefficients: coefficients('time') as unknown as TimeTerms, range: range('time') },
  };
}

/** Checks a calibration read from storage; throws EstimateError('invalid_calibration'). */
export function checkCalibration(c: Calibration): void {
  const finite = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
  if (!c || c.version !== CALIBRATION_VERSION) refuse('invalid_calibration', 'Unknown calibration version.');
  if (c.features_version !== FEATURES_VERSION) {
    refuse('invalid_calibration', 'The calibration was fitted on another version of the features; refit it.');
  }
  for (const kind of ['volume', 'time'] as const) {
    const part = c[kind];
    const coefficients = part?.coefficients as unknown as Record<string, number> | undefined;
    for (const t of termsOf(kind)) {
      if (!finite(coefficients?.[t]) || (coefficients?.[t] ?? -1) < 0) {
        refuse('invalid_calibration', `The ${kind} coefficient ${t} must be a finite number ≥ 0.`);
      }
    }
    const r = part.range;
    if (!r || !finite(r.lo) || !finite(r.hi) || r.lo > 0 || r.hi < 0 || r.lo <= -1) {
      refuse('invalid_calibration', `The ${kind} range must satisfy -1 < lo ≤ 0 ≤ hi.`);
    }
  }
}

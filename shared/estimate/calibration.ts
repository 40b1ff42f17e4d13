// The calibration: per-term coefficients that turn the physical model's volume and time terms into what PrusaSlicer
// reports, fitted on real slices, and the spread of its held-out errors, which becomes every estimate's range. Plain
// JSON, so the server can keep one per account × printer profile × material profile (docs/estimate.md).
import { refuse } from './errors.ts';
import { FEATURES_VERSION, type Features, type TimeTerms, type VolumeTerms } from './features.ts';
import { fitRelativeRidge, quantile } from './least-squares.ts';

export const CALIBRATION_VERSION = 2;

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
  'travel',
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
  layer_changes: 0.2,
  cooling: 1,
  travel: 1,
};

/** Relative error range: the real value lies in [estimate × (1 + lo), estimate × (1 + hi)]. */
export interface RelativeRange {
  lo: number;
  hi: number;
}

/** The ranges of one family of settings (or of the ratio-scaled estimates). */
export interface FamilyRanges {
  volume: RelativeRange;
  time: RelativeRange;
}

export interface Calibration {
  version: number;
  features_version: number;
  /** Real slices the coefficients were fitted on (0: the physical model alone; the prior's are not counted). */
  samples: number;
  /** Distinct models among them (the residuals are held out per model). */
  groups: number;
  /** Coefficients, and the ranges of slices without supports. */
  volume: { coefficients: VolumeTerms; range: RelativeRange };
  time: { coefficients: TimeTerms; range: RelativeRange };
  /** Ranges of slices with supports (their errors are larger: they are measured apart). */
  supports: FamilyRanges;
  /** Ranges of an estimate scaled from another setting's exact slice of the same model (scaleFromExact). */
  ratio: FamilyRanges;
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
/** A prior calibration counts as this many held-out models when an account's own residuals refine its ranges. */
const PRIOR_UNITS = 10;
/** No range is announced narrower than this, whatever the samples say. */
const FLOOR = { volume: 0.02, time: 0.03 };
/** Below this many held-out units the measured spread is not trusted alone: blended with the unmeasured range. */
const FEW = 8;
/** Ridge weights toward the physical coefficients. Volume: chosen by leave-one-model-out error on the benchmark's
 *  training models. Time: a weaker pull scored better there but zeroed the first-layer and cooling terms, which
 *  those models barely exercise, and failed small parts badly; docs/estimate.md tells the story. */
const RIDGE: Ridge = { volume: 1000, time: 20 };
/** How strongly an account's fit is held toward the shipped (prior) coefficients: six slices move it about a
 *  third of the way, sixty most of it. */
const ACCOUNT_RIDGE: Ridge = { volume: 10, time: 10 };

/** How strongly a fit is held toward the physical model's coefficients, per kind. */
export interface Ridge {
  volume: number;
  time: number;
}

export interface FitOptions {
  /** Default: the weights chosen on the benchmark's development models (RIDGE), or ACCOUNT_RIDGE with a prior. */
  ridge?: Ridge;
  /** A calibration to refine (the shipped one): coefficients shrink toward it instead of the physical model, and
   *  its ranges are blended with the measured ones, never widened. */
  prior?: Calibration;
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
  supports: structuredClone(UNMEASURED),
  ratio: structuredClone(UNMEASURED),
};

/**
 * A calibration's coefficients with ranges no residual measured: for a printer config it was not fitted on (a shop's
 * imported one, docs/estimate.md "A shop's own speeds"), whose errors its residuals do not describe, until the
 * shop's own slices measure them.
 */
export function withUnmeasuredRanges<C extends Pick<Calibration, 'volume' | 'time' | 'supports'>>(c: C): C {
  return {
    ...c,
    volume: { ...c.volume, range: { ...UNMEASURED.volume } },
    time: { ...c.time, range: { ...UNMEASURED.time } },
    supports: structuredClone(UNMEASURED),
  };
}

/** Which family of ranges a feature set's estimate takes. */
export const familyOf = (f: Features): 'plain' | 'supports' =>
  f.basis.support_overhang_angle === null ? 'plain' : 'supports';

/** The ranges of a family, from a calibration. */
export function rangesOf(c: Calibration, family: 'plain' | 'supports' | 'ratio'): FamilyRanges {
  if (family === 'plain') return { volume: c.volume.range, time: c.time.range };
  return c[family];
}

export type Kind = 'volume' | 'time';
const termsOf = (kind: Kind) => (kind === 'volume' ? VOLUME_TERMS : TIME_TERMS);
/** The terms of `kind` as a vector, in the order of VOLUME_TERMS or TIME_TERMS. */
const vectorOf = (kind: Kind, volume: Readonly<VolumeTerms>, time: Readonly<TimeTerms>): number[] =>
  kind === 'volume' ? VOLUME_TERMS.map((t) => volume[t]) : TIME_TERMS.map((t) => time[t]);

const row = (s: CalibrationSample, kind: Kind) => vectorOf(kind, s.features.volume_terms, s.features.time_terms);
const actual = (s: CalibrationSample, kind: Kind) => (kind === 'volume' ? s.volume_mm3 : s.time_s);

function fit(samples: CalibrationSample[], kind: Kind, ridge: Ridge, base?: Calibration): number[] {
  const prior = base
    ? vectorOf(kind, base.volume.coefficients, base.time.coefficients)
    : vectorOf(kind, PRIOR_VOLUME, PRIOR_TIME);
  return fitRelativeRidge(
    samples.map((s) => row(s, kind)),
    samples.map((s) => actual(s, kind)),
    prior,
    ridge[kind],
  );
}

const dot = (a: number[], b: number[]) => a.reduce((sum, v, i) => sum + v * b[i]!, 0);

interface Residuals {
  plain: number[];
  supports: number[];
  ratio: number[];
  /** Units (models) with residuals in each family. */
  units: { plain: Set<string>; supports: Set<string>; ratio: Set<string> };
}

/**
 * Relative errors (real / estimate − 1) of each unit (model) predicted by a fit that never saw it, per family; and
 * within a unit, the errors of every setting's figure scaled from every other setting's real one.
 */
function heldOutResiduals(samples: CalibrationSample[], kind: Kind, units: string[], ridge: Ridge, base?: Calibration) {
  const out: Residuals = {
    plain: [],
    supports: [],
    ratio: [],
    units: { plain: new Set(), supports: new Set(), ratio: new Set() },
  };
  const unitOf = (s: CalibrationSample, i: number) => s.group ?? `#${i}`;
  for (const unit of units) {
    const train = samples.filter((s, i) => unitOf(s, i) !== unit);
    const test = samples.filter((s, i) => unitOf(s, i) === unit);
    const c =
      train.length > 0
        ? fit(train, kind, ridge, base)
        : base
          ? vectorOf(kind, base.volume.coefficients, base.time.coefficients)
          : fit([], kind, ridge);
    const predicted = test.map((s) => dot(c, row(s, kind)));
    test.forEach((s, j) => {
      const family = familyOf(s.features);
      out[family].push(actual(s, kind) / predicted[j]! - 1);
      out.units[family].add(unit);
    });
    for (let a = 0; a < test.length; a++) {
      for (let b = 0; b < test.length; b++) {
        if (a === b || !(predicted[a]! > 0 && predicted[b]! > 0)) continue;
        const scaled = (actual(test[a]!, kind) * predicted[b]!) / predicted[a]!;
        out.ratio.push(actual(test[b]!, kind) / scaled - 1);
        out.units.ratio.add(unit);
      }
    }
  }
  return out;
}

/** The announced range from held-out residuals: their 5th–95th percentile, widened by 1 + 2/√units, floored.
 *  Without a prior, blended toward the unmeasured range when units are few. With one, blended with the prior's
 *  range as if the prior were PRIOR_UNITS models, and never wider than it: more of an account's slices never make
 *  the range vaguer than the shipped one. Always contains 0 (the estimate itself). */
export function rangeOf(residuals: number[], units: number, kind: Kind, prior?: RelativeRange): RelativeRange {
  const wide = UNMEASURED[kind];
  if (residuals.length === 0) return { ...(prior ?? wide) };
  const sorted = [...residuals].sort((a, b) => a - b);
  const widen = 1 + 2 / Math.sqrt(units);
  let lo = Math.min(-FLOOR[kind], quantile(sorted, 0.05) * widen);
  let hi = Math.max(FLOOR[kind], quantile(sorted, 0.95) * widen);
  if (prior) {
    const trust = units / (units + PRIOR_UNITS);
    lo = Math.max(prior.lo, Math.min(-FLOOR[kind], trust * lo + (1 - trust) * prior.lo));
    hi = Math.min(prior.hi, Math.max(FLOOR[kind], trust * hi + (1 - trust) * prior.hi));
  } else if (units < FEW) {
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
  const base = options.prior;
  if (base) checkCalibration(base);
  const ridge = options.ridge ?? (base ? ACCOUNT_RIDGE : RIDGE);
  if (!(ridge.volume >= 0 && ridge.time >= 0)) refuse('invalid_samples', 'The ridge weights must be ≥ 0.');
  if (!Array.isArray(samples)) refuse('invalid_samples', 'Samples must be an array.');
  if (samples.length > MAX_SAMPLES) refuse('invalid_samples', `At most ${MAX_SAMPLES} samples can be fitted.`);
  samples.forEach(checkSample);
  if (samples.length === 0) return structuredClone(base ?? UNCALIBRATED);
  const list = [...samples];
  const units = [...new Set(list.map((s, i) => s.group ?? `#${i}`))];
  const coefficients = (kind: Kind) => {
    const c = fit(list, kind, ridge, base);
    return Object.fromEntries(termsOf(kind).map((t, j) => [t, c[j]]));
  };
  // With one model only, nothing can be held out: the ranges stay the prior's (or the unmeasured ones).
  const residuals = {
    volume: units.length > 1 || base ? heldOutResiduals(list, 'volume', units, ridge, base) : null,
    time: units.length > 1 || base ? heldOutResiduals(list, 'time', units, ridge, base) : null,
  };
  const priorRanges = (family: 'plain' | 'supports' | 'ratio') => (base ? rangesOf(base, family) : undefined);
  const range = (kind: Kind, family: 'plain' | 'supports' | 'ratio') => {
    const r = residuals[kind];
    return rangeOf(r ? r[family] : [], r ? r.units[family].size : 0, kind, priorRanges(family)?.[kind]);
  };
  return {
    version: CALIBRATION_VERSION,
    features_version: FEATURES_VERSION,
    samples: list.length,
    groups: units.length,
    volume: { coefficients: coefficients('volume') as unknown as VolumeTerms, range: range('volume', 'plain') },
    time: { coefficients: coefficients('time') as unknown as TimeTerms, range: range('time', 'plain') },
    supports: { volume: range('volume', 'supports'), time: range('time', 'supports') },
    ratio: { volume: range('volume', 'ratio'), time: range('time', 'ratio') },
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
    for (const [name, r] of [
      ['', part?.range],
      [' supports', c.supports?.[kind]],
      [' ratio', c.ratio?.[kind]],
    ] as const) {
      if (!r || !finite(r.lo) || !finite(r.hi) || r.lo > 0 || r.hi < 0 || r.lo <= -1) {
        refuse('invalid_calibration', `The ${kind}${name} range must satisfy -1 < lo ≤ 0 ≤ hi.`);
      }
    }
  }
}

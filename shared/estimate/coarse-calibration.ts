// The coarse stage's calibration: per-term coefficients on the coarse features' volume and time terms, fitted on
// real slices by the same relative, ridge-regularised, non-negative least squares as the fine calibration
// (least-squares.ts), and ranges from leave-one-model-out residuals per family (without and with supports), built
// as the fine ranges are (calibration.ts rangeOf). Its own version and features version: it never mixes with the
// fine calibration, which an account refines; the coarse one is shipped only (docs/estimate.md).

import {
  type FamilyRanges,
  type Kind,
  PRIOR_TIME,
  PRIOR_VOLUME,
  type RelativeRange,
  type Ridge,
  rangeOf,
  TIME_TERMS,
  VOLUME_TERMS,
} from './calibration.ts';
import { COARSE_FEATURES_VERSION, type CoarseFeatures } from './coarse-features.ts';
import { refuse } from './errors.ts';
import type { TimeTerms, VolumeTerms } from './features.ts';
import { fitRelativeRidge } from './least-squares.ts';

export const COARSE_CALIBRATION_VERSION = 1;

export interface CoarseCalibration {
  version: number;
  coarse_features_version: number;
  samples: number;
  groups: number;
  volume: { coefficients: VolumeTerms; range: RelativeRange };
  time: { coefficients: TimeTerms; range: RelativeRange };
  /** Ranges of slices with supports. */
  supports: FamilyRanges;
}

export interface CoarseSample {
  features: CoarseFeatures;
  volume_mm3: number;
  time_s: number;
  /** The model it came from: held out together. */
  group?: string;
}

/** Ridge weights toward the physical model's coefficients, chosen by leave-one-model-out error on the benchmark's
 *  training models only (scripts/fit-coarse-calibration.ts prints the candidates). */
export const COARSE_RIDGE: Ridge = { volume: 1, time: 10 };

export type Family = 'plain' | 'supports';
export const coarseFamilyOf = (f: Pick<CoarseFeatures, 'basis'>): Family =>
  f.basis.support_overhang_angle === null ? 'plain' : 'supports';

const row = (s: CoarseSample, kind: Kind) =>
  kind === 'volume'
    ? VOLUME_TERMS.map((t) => s.features.volume_terms[t])
    : TIME_TERMS.map((t) => s.features.time_terms[t]);
const actual = (s: CoarseSample, kind: Kind) => (kind === 'volume' ? s.volume_mm3 : s.time_s);
const prior = (kind: Kind) =>
  kind === 'volume' ? VOLUME_TERMS.map((t) => PRIOR_VOLUME[t]) : TIME_TERMS.map((t) => PRIOR_TIME[t]);
const fit = (samples: CoarseSample[], kind: Kind, ridge: Ridge) =>
  fitRelativeRidge(
    samples.map((s) => row(s, kind)),
    samples.map((s) => actual(s, kind)),
    prior(kind),
    ridge[kind],
  );
const dot = (a: number[], b: number[]) => a.reduce((sum, v, i) => sum + v * b[i]!, 0);
const unitOf = (s: CoarseSample, i: number) => s.group ?? `#${i}`;

/** Relative errors (real / estimate − 1) of each model predicted by a fit that never saw it, per family. */
export function coarseResiduals(samples: readonly CoarseSample[], kind: Kind, ridge: Ridge = COARSE_RIDGE) {
  const out = { plain: [] as number[], supports: [] as number[], units: { plain: new Set(), supports: new Set() } };
  const units = [...new Set(samples.map(unitOf))];
  for (const unit of units) {
    const c = fit(
      samples.filter((s, i) => unitOf(s, i) !== unit),
      kind,
      ridge,
    );
    samples.forEach((s, i) => {
      if (unitOf(s, i) !== unit) return;
      const family = coarseFamilyOf(s.features);
      out[family].push(actual(s, kind) / dot(c, row(s, kind)) - 1);
      out.units[family].add(unit);
    });
  }
  return out;
}

function checkSample(s: CoarseSample, i: number): void {
  const ok = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0;
  if (s?.features?.coarse_version !== COARSE_FEATURES_VERSION) {
    refuse('invalid_samples', `Sample ${i} has no coarse features of version ${COARSE_FEATURES_VERSION}.`);
  }
  if (!ok(s.volume_mm3) || !ok(s.time_s)) refuse('invalid_samples', `Sample ${i} needs a positive volume and time.`);
  for (const kind of ['volume', 'time'] as const) {
    if (!row(s, kind).every((v) => Number.isFinite(v) && v >= 0)) {
      refuse('invalid_samples', `Sample ${i} has an invalid ${kind} term.`);
    }
  }
}

/** Fits the coarse calibration on real slices (at least two models: its ranges are held out by model). */
export function fitCoarseCalibration(samples: readonly CoarseSample[], ridge: Ridge = COARSE_RIDGE): CoarseCalibration {
  if (!Array.isArray(samples)) refuse('invalid_samples', 'Samples must be an array.');
  samples.forEach(checkSample);
  const groups = new Set(samples.map(unitOf)).size;
  if (groups < 2) refuse('invalid_samples', 'The coarse calibration needs the slices of at least two models.');
  const list = [...samples];
  const coefficients = (kind: Kind) => {
    const c = fit(list, kind, ridge);
    const names: readonly string[] = kind === 'volume' ? VOLUME_TERMS : TIME_TERMS;
    return Object.fromEntries(names.map((t, j) => [t, c[j]]));
  };
  const residuals = { volume: coarseResiduals(list, 'volume', ridge), time: coarseResiduals(list, 'time', ridge) };
  const range = (kind: Kind, family: Family) =>
    rangeOf(residuals[kind][family], residuals[kind].units[family].size, kind);
  return {
    version: COARSE_CALIBRATION_VERSION,
    coarse_features_version: COARSE_FEATURES_VERSION,
    samples: list.length,
    groups,
    volume: { coefficients: coefficients('volume') as unknown as VolumeTerms, range: range('volume', 'plain') },
    time: { coefficients: coefficients('time') as unknown as TimeTerms, range: range('time', 'plain') },
    supports: { volume: range('volume', 'supports'), time: range('time', 'supports') },
  };
}

/** Checks a coarse calibration (the shipped one, or one read from storage); throws EstimateError. */
export function checkCoarseCalibration(c: CoarseCalibration): void {
  const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  if (c?.version !== COARSE_CALIBRATION_VERSION || c.coarse_features_version !== COARSE_FEATURES_VERSION) {
    refuse('invalid_calibration', 'The coarse calibration is of another version; refit it.');
  }
  for (const kind of ['volume', 'time'] as const) {
    const names: readonly string[] = kind === 'volume' ? VOLUME_TERMS : TIME_TERMS;
    const coefficients = c[kind]?.coefficients as unknown as Record<string, unknown> | undefined;
    if (!names.every((t) => finite(coefficients?.[t]) && coefficients[t] >= 0)) {
      refuse('invalid_calibration', `The coarse ${kind} coefficients must be finite numbers ≥ 0.`);
    }
    for (const r of [c[kind].range, c.supports?.[kind]]) {
      if (!r || !finite(r.lo) || !finite(r.hi) || r.lo > 0 || r.hi < 0 || r.lo <= -1) {
        refuse('invalid_calibration', `The coarse ${kind} ranges must satisfy -1 < lo ≤ 0 ≤ hi.`);
      }
    }
  }
}

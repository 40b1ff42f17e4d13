// Once one choice of an upload has been sliced for real, the others need not be guessed from scratch: the exact
// figure of that choice times the estimator's ratio between the two choices cancels most of what the estimator gets
// wrong about the model (its shape, its slopes, its thin parts), since both estimates share it. Its range is
// measured apart (Calibration.ratio): the errors of such ratios on held-out models.
import { type Calibration, checkCalibration } from './calibration.ts';
import { refuse } from './errors.ts';
import type { Estimate } from './predict.ts';

/** A real slice's figures for one choice of the upload. */
export interface ExactFigures {
  filament_weight_g: number;
  estimated_time_seconds: number;
}

export interface ScaledEstimate {
  filament_weight_g: number;
  estimated_time_seconds: number;
  /** The real slice's figures for the other choice are expected inside these, g and s. */
  weight_range: [lo: number, hi: number];
  time_range: [lo: number, hi: number];
  method: 'scaled-from-exact';
}

const positive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

/**
 * The estimate for choice B of an upload from the exact slice of choice A: exact(A) × estimate(B) / estimate(A),
 * for weight and time alike (a change of material is in the weights already). `fromEstimate` and `toEstimate` are
 * the estimator's figures for A and B with the same calibration. Throws EstimateError('invalid_settings') when a
 * figure is not a positive finite number.
 */
export function scaleFromExact(
  exact: ExactFigures,
  fromEstimate: Pick<Estimate, 'filament_weight_g' | 'estimated_time_seconds'>,
  toEstimate: Pick<Estimate, 'filament_weight_g' | 'estimated_time_seconds'>,
  calibration: Calibration,
): ScaledEstimate {
  checkCalibration(calibration);
  for (const [name, v] of Object.entries({
    'exact weight': exact?.filament_weight_g,
    'exact time': exact?.estimated_time_seconds,
    'from weight': fromEstimate?.filament_weight_g,
    'from time': fromEstimate?.estimated_time_seconds,
    'to weight': toEstimate?.filament_weight_g,
    'to time': toEstimate?.estimated_time_seconds,
  })) {
    if (!positive(v)) refuse('invalid_settings', `The ${name} must be a finite number above 0 (got ${String(v)}).`);
  }
  const grams = (exact.filament_weight_g * toEstimate.filament_weight_g) / fromEstimate.filament_weight_g;
  const seconds =
    (exact.estimated_time_seconds * toEstimate.estimated_time_seconds) / fromEstimate.estimated_time_seconds;
  const { volume: v, time: t } = calibration.ratio;
  return {
    filament_weight_g: grams,
    estimated_time_seconds: seconds,
    weight_range: [grams * (1 + v.lo), grams * (1 + v.hi)],
    time_range: [seconds * (1 + t.lo), seconds * (1 + t.hi)],
    method: 'scaled-from-exact',
  };
}

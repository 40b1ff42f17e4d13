// Features × calibration → the estimate a quote shows while its slice runs: filament volume and weight, print
// time, and the range each real value is expected in. An estimate is never a price to sell (docs/estimate.md).
import {
  type Calibration,
  checkCalibration,
  type FamilyRanges,
  familyOf,
  rangesOf,
  TIME_TERMS,
  VOLUME_TERMS,
} from './calibration.ts';
import { refuse } from './errors.ts';
import { FEATURES_VERSION, type Features } from './features.ts';
import { basisOf, type EstimateSettings, sliceParams } from './params.ts';

export interface Estimate {
  filament_volume_mm3: number;
  filament_weight_g: number;
  estimated_time_seconds: number;
  /** The real slice's weight and time are expected inside these, g and s. */
  weight_range: [lo: number, hi: number];
  time_range: [lo: number, hi: number];
  /** How the figures were made: the cross-section model, calibrated on real slices or not; or the coarse stage's
   *  one pass over the triangles, calibrated on real slices (predictCoarse, shown until the fine one replaces it). */
  method: 'cross-sections' | 'cross-sections+calibration' | 'coarse';
  /** Real slices behind the calibration (0: the physical model alone). */
  samples: number;
}

/** Whether features (fine or coarse) were computed with these slice settings. */
export function sameBasis(f: Pick<Features, 'basis'>, settings: EstimateSettings): boolean {
  const q = sliceParams(settings);
  const expected: Record<string, unknown> = { ...basisOf(q), infill: q.infill, support_density: q.support_density };
  const got = (f.basis ?? {}) as unknown as Record<string, unknown>;
  return Object.keys(expected).every((k) => expected[k] === got[k]);
}

export const weighted = <K extends string>(
  terms: Readonly<Record<K, number>>,
  coefficients: Readonly<Record<K, number>>,
  names: readonly K[],
) => names.reduce((sum, t) => sum + terms[t] * coefficients[t], 0);

/**
 * The estimate for features extracted with these same settings (EstimateError 'features_mismatch' otherwise:
 * only the material's density may differ, since it turns volume into grams after slicing).
 */
export function predict(features: Features, settings: EstimateSettings, calibration: Calibration): Estimate {
  if (!features || features.version !== FEATURES_VERSION) {
    refuse('features_mismatch', `The features are not of version ${FEATURES_VERSION}; extract them again.`);
  }
  if (!sameBasis(features, settings)) {
    refuse('features_mismatch', 'The features were extracted with other slice settings; extract them again.');
  }
  checkCalibration(calibration);
  // Slices with supports have their own, wider ranges.
  return {
    ...calibratedFigures(features, calibration, rangesOf(calibration, familyOf(features)), settings.material.density),
    method: calibration.samples > 0 ? 'cross-sections+calibration' : 'cross-sections',
    samples: calibration.samples,
  };
}

type Figures = Pick<
  Estimate,
  'filament_volume_mm3' | 'filament_weight_g' | 'estimated_time_seconds' | 'weight_range' | 'time_range'
>;

/** The terms weighted by the calibration's coefficients, the weight from the material's density, and the ranges
 *  around both: what a fine and a coarse estimate compute alike. */
export function calibratedFigures(
  features: Pick<Features, 'volume_terms' | 'time_terms'>,
  calibration: Pick<Calibration, 'volume' | 'time'>,
  ranges: FamilyRanges,
  density: number,
): Figures {
  const volume = weighted(features.volume_terms, calibration.volume.coefficients, VOLUME_TERMS);
  const time = weighted(features.time_terms, calibration.time.coefficients, TIME_TERMS);
  const grams = (volume / 1000) * density;
  const { volume: v, time: t } = ranges;
  return {
    filament_volume_mm3: volume,
    filament_weight_g: grams,
    estimated_time_seconds: time,
    weight_range: [grams * (1 + v.lo), grams * (1 + v.hi)],
    time_range: [time * (1 + t.lo), time * (1 + t.hi)],
  };
}

// Coarse features × the coarse calibration → the first estimate a shopper sees (method 'coarse'), with the range
// the coarse stage's held-out errors give. Replaced by the fine (polygon) estimate when it is measured.
import { TIME_TERMS, VOLUME_TERMS } from './calibration.ts';
import { checkCoarseCalibration, coarseFamilyOf, type CoarseCalibration } from './coarse-calibration.ts';
import { COARSE_FEATURES_VERSION, type CoarseFeatures } from './coarse-features.ts';
import { refuse } from './errors.ts';
import type { EstimateSettings } from './params.ts';
import { sameBasis, weighted, type Estimate } from './predict.ts';

/** The coarse estimate of features extracted with these same settings (EstimateError 'features_mismatch' otherwise;
 *  only the material's density may differ). */
export function predictCoarse(
  features: CoarseFeatures,
  settings: EstimateSettings,
  calibration: CoarseCalibration,
): Estimate {
  if (features?.coarse_version !== COARSE_FEATURES_VERSION) {
    refuse(
      'features_mismatch',
      `The coarse features are not of version ${COARSE_FEATURES_VERSION}; measure them again.`,
    );
  }
  if (!sameBasis(features, settings)) {
    refuse('features_mismatch', 'The coarse features were measured with other slice settings; measure them again.');
  }
  checkCoarseCalibration(calibration);
  const volume = weighted(features.volume_terms, calibration.volume.coefficients, VOLUME_TERMS);
  const time = weighted(features.time_terms, calibration.time.coefficients, TIME_TERMS);
  const grams = (volume / 1000) * settings.material.density;
  const family = coarseFamilyOf(features);
  const v = family === 'plain' ? calibration.volume.range : calibration.supports.volume;
  const t = family === 'plain' ? calibration.time.range : calibration.supports.time;
  return {
    filament_volume_mm3: volume,
    filament_weight_g: grams,
    estimated_time_seconds: time,
    weight_range: [grams * (1 + v.lo), grams * (1 + v.hi)],
    time_range: [time * (1 + t.lo), time * (1 + t.hi)],
    method: 'coarse',
    samples: calibration.samples,
  };
}

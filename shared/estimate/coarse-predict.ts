// Coarse features × the coarse calibration → the first estimate a shopper sees (method 'coarse'), with the range
// the coarse stage's held-out errors give. Replaced by the fine (polygon) estimate when it is measured.
import { type CoarseCalibration, checkCoarseCalibration, coarseFamilyOf } from './coarse-calibration.ts';
import { COARSE_FEATURES_VERSION, type CoarseFeatures } from './coarse-features.ts';
import { refuse } from './errors.ts';
import type { EstimateSettings } from './params.ts';
import { calibratedFigures, type Estimate, sameBasis } from './predict.ts';

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
  const ranges =
    coarseFamilyOf(features) === 'plain'
      ? { volume: calibration.volume.range, time: calibration.time.range }
      : calibration.supports;
  return {
    ...calibratedFigures(features, calibration, ranges, settings.material.density),
    method: 'coarse',
    samples: calibration.samples,
  };
}

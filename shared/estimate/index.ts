// Public API of the instant estimator: a real slice's weight and time, guessed from the mesh in milliseconds while
// the slice runs, with the range the real figures are expected in (docs/estimate.md). Pure TypeScript, no Node-only
// APIs: the server and the browser can both run it.

export {
  type Calibration,
  type CalibrationSample,
  checkCalibration,
  type FamilyRanges,
  type FitOptions,
  fitCalibration,
  type RelativeRange,
  type Ridge,
  UNCALIBRATED,
  withUnmeasuredRanges,
} from './calibration.ts';
export {
  COARSE_RIDGE,
  type CoarseCalibration,
  type CoarseSample,
  checkCoarseCalibration,
  coarseResiduals,
  fitCoarseCalibration,
} from './coarse-calibration.ts';
export {
  COARSE_FEATURES_VERSION,
  type CoarseFeatures,
  extractCoarseFeatures,
} from './coarse-features.ts';
export { predictCoarse } from './coarse-predict.ts';
export { DEFAULT_CALIBRATION } from './default-calibration.ts';
export { DEFAULT_COARSE_CALIBRATION } from './default-coarse-calibration.ts';
export { EstimateError, type EstimateErrorCode } from './errors.ts';
export {
  DEFAULT_SLICER_VERSION,
  extractFeatures,
  FEATURES_VERSION,
  type FeatureOptions,
  type Features,
  type TimeTerms,
  type VolumeTerms,
} from './features.ts';
export { MAX_POLYGON_SEGMENTS } from './layer-polygons.ts';
export { MAX_CORNER_TRIANGLES, MAX_LAYERS, MAX_SEGMENTS } from './layer-sweep.ts';
export { retractionPairSeconds } from './motion-time.ts';
export type { EstimateSettings, FeatureMotion, SliceBasis } from './params.ts';
export { type MeshPlacement, placeMesh } from './place-mesh.ts';
export { type Estimate, predict } from './predict.ts';
export { type ExactFigures, type ScaledEstimate, scaleFromExact } from './scale-from-exact.ts';

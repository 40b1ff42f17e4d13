// Public API of the instant estimator: a real slice's weight and time, guessed from the mesh in milliseconds while
// the slice runs, with the range the real figures are expected in (docs/estimate.md). Pure TypeScript, no Node-only
// APIs: the server and the browser can both run it.
export { EstimateError, type EstimateErrorCode } from './errors.ts';
export type { EstimateSettings, FeatureMotion, SliceBasis } from './params.ts';
export {
  DEFAULT_SLICER_VERSION,
  extractFeatures,
  FEATURES_VERSION,
  type FeatureOptions,
  type Features,
  type TimeTerms,
  type VolumeTerms,
} from './features.ts';
export { MAX_CORNER_TRIANGLES, MAX_LAYERS, MAX_SEGMENTS } from './layer-sweep.ts';
export { retractionPairSeconds } from './motion-time.ts';
export { placeMesh, type MeshPlacement } from './place-mesh.ts';
export {
  withUnmeasuredRanges,
  checkCalibration,
  fitCalibration,
  UNCALIBRATED,
  type Calibration,
  type CalibrationSample,
  type FamilyRanges,
  type FitOptions,
  type Ridge,
  type RelativeRange,
} from './calibration.ts';
export { predict, type Estimate } from './predict.ts';
export { scaleFromExact, type ExactFigures, type ScaledEstimate } from './scale-from-exact.ts';
export { MAX_POLYGON_SEGMENTS } from './layer-polygons.ts';
export { DEFAULT_CALIBRATION } from './default-calibration.ts';
export {
  COARSE_FEATURES_VERSION,
  extractCoarseFeatures,
  type CoarseFeatures,
} from './coarse-features.ts';
export {
  checkCoarseCalibration,
  COARSE_RIDGE,
  coarseResiduals,
  fitCoarseCalibration,
  type CoarseCalibration,
  type CoarseSample,
} from './coarse-calibration.ts';
export { predictCoarse } from './coarse-predict.ts';
export { DEFAULT_COARSE_CALIBRATION } from './default-coarse-calibration.ts';

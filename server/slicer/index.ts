// The front door of slicer/: PrusaSlicer: configuration, the process pool, the slice cost model, G-code statistics.
// Other folders import only what is exported here (npm run check:graph).
export { buildSliceConfig, supportDensityUsed } from './config.ts';
export type { ImportedOptions, SliceSettings } from './config.ts';
export { costInputsOf, referenceSeconds } from './cost.ts';
export { detectSlicer, isIdentity } from './engine.ts';
export { estimateSettingsOf } from './estimate-motion.ts';
export { slicerVersionOrNull } from './version.ts';
export type { SliceProgress, SliceTransform } from './engine.ts';
export {
  PoolClosedError,
  PoolFullError,
  ShortLaneOutgrownError,
  SliceAbortedError,
  SliceFailedError,
  SliceTimeoutError,
} from './errors.ts';
export { GcodeStatsError, readGcodeFooter, STATS_REVISION } from './gcode-stats.ts';
export type { GcodeFooter, SliceMeasure } from './gcode-stats.ts';
export { mapInfillPattern, PRUSA_FILL_PATTERNS } from './patterns.ts';
export { createSlicePool } from './pool.ts';
export type { SliceLane, SlicePool, ShortSlice } from './pool.ts';
export { printStats } from './print-stats.ts';

// The front door of slicer/: PrusaSlicer: configuration, the process pool, the slice cost model, G-code statistics.
// Other folders import only what is exported here (npm run check:graph).

export type { ImportedOptions, SliceSettings } from './config.ts';
export { buildSliceConfig, supportDensityUsed } from './config.ts';
export { costInputsOf, referenceSeconds } from './cost.ts';
export type { SliceProgress, SliceTransform } from './engine.ts';
export { detectSlicer, isIdentity } from './engine.ts';
export {
  PoolClosedError,
  PoolFullError,
  ShortLaneOutgrownError,
  SliceAbortedError,
  SliceFailedError,
  SliceTimeoutError,
} from './errors.ts';
export { estimateSettingsOf } from './estimate-motion.ts';
export type { GcodeFooter, SliceMeasure } from './gcode-stats.ts';
export { GcodeStatsError, readGcodeFooter, STATS_REVISION } from './gcode-stats.ts';
export { mapInfillPattern, PRUSA_FILL_PATTERNS } from './patterns.ts';
export type { ShortSlice, SliceLane, SlicePool } from './pool.ts';
export { createSlicePool } from './pool.ts';
export { printStats } from './print-stats.ts';
export { slicerVersionOrNull } from './version.ts';

// PrusaSlicer configs as data: reading what PrusaSlicer (and Orca, Bambu Studio) write, resolving `inherits`,
// evaluating compatibility conditions. Pure: no database, no HTTP.
export type { FlatPreset, PresetSet } from './config-set.ts';

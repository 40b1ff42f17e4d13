// PrusaSlicer configs as data: reading what PrusaSlicer (and Orca, Bambu Studio) write, resolving `inherits`,
// evaluating compatibility conditions. Pure: no database, no HTTP.
export type { FlatPreset, PresetSet } from './config-set.ts';
export { ALLOWED, CUSTOM_GCODE } from './allowlist.ts';
export { readFlatConfig } from './flat-config.ts';
export { ConfigError, MAX_CONFIG_BYTES } from './notes.ts';
export type { ImportNote, ReadConfig } from './notes.ts';
export { readOrcaPreset, ORCA_TO_PRUSA } from './orca-json.ts';
export { readProjectConfig } from './project-3mf.ts';
export { screenPresetSet } from './screen.ts';
export type { ScreenedSet } from './screen.ts';

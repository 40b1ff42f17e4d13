// PrusaSlicer configs as data: reading what PrusaSlicer (and Orca, Bambu Studio) write, resolving `inherits`,
// evaluating compatibility conditions. Pure: no database, no HTTP.

export { ALLOWED, CUSTOM_GCODE } from './allowlist.ts';
export type { Bundle, PresetKind, PrinterModel, RawPreset } from './bundle.ts';
export { Flattener, offered, PRESET_KINDS, readBundle, readUserBundle, resolveBundle } from './bundle.ts';
export { BundleError } from './bundle-errors.ts';
export { ConditionError, evaluateCondition, parseCondition } from './conditions.ts';
export type { FlatPreset, PresetSet } from './config-set.ts';
export { readFlatConfig } from './flat-config.ts';
export type { IniLimits, IniSection } from './ini.ts';
export { parseIni, splitStrings, USER_INI_LIMITS, unescapeString, VENDOR_INI_LIMITS } from './ini.ts';
export type { LibraryPrinter, LibraryVendor, LoadedVendor } from './library.ts';
export { loadVendor } from './library.ts';
export type { LibraryPick } from './library-pick.ts';
export { pickFromLibrary } from './library-pick.ts';
export type { ImportNote, ReadConfig } from './notes.ts';
export { ConfigError, MAX_CONFIG_BYTES } from './notes.ts';
export { ORCA_TO_PRUSA, readOrcaPreset } from './orca-json.ts';
export { readProjectConfig } from './project-3mf.ts';
export type { ScreenedSet } from './screen.ts';
export { screenPresetSet } from './screen.ts';

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
export { BundleError } from './bundle-errors.ts';
export { parseIni, splitStrings, unescapeString, USER_INI_LIMITS, VENDOR_INI_LIMITS } from './ini.ts';
export type { IniLimits, IniSection } from './ini.ts';
export { Flattener, offered, readBundle, readUserBundle, resolveBundle, PRESET_KINDS } from './bundle.ts';
export type { Bundle, PresetKind, PrinterModel, RawPreset } from './bundle.ts';
export { ConditionError, evaluateCondition, parseCondition } from './conditions.ts';
export { loadVendor } from './library.ts';
export { pickFromLibrary } from './library-pick.ts';
export type { LibraryPrinter, LibraryVendor, LoadedVendor } from './library.ts';
export type { LibraryPick } from './library-pick.ts';

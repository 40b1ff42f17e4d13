// PrusaSlicer configs as data: reading what PrusaSlicer (and Orca, Bambu Studio) write, resolving `inherits`,
// evaluating compatibility conditions. Pure: no database, no HTTP.
export type { FlatPreset, PresetSet } from './config-set.ts';
export { BundleError } from './bundle-errors.ts';
export { parseIni, splitStrings, unescapeString, USER_INI_LIMITS, VENDOR_INI_LIMITS } from './ini.ts';
export type { IniLimits, IniSection } from './ini.ts';
export { Flattener, offered, readBundle, resolveBundle, PRESET_KINDS } from './bundle.ts';
export type { Bundle, PresetKind, PrinterModel, RawPreset } from './bundle.ts';
export { ConditionError, evaluateCondition, parseCondition } from './conditions.ts';
export { loadVendor } from './library.ts';
export { pickFromLibrary } from './library-pick.ts';
export type { LibraryPrinter, LibraryVendor, LoadedVendor } from './library.ts';
export type { LibraryPick } from './library-pick.ts';

// What an import reports besides the profiles it made: options it refused (never stored) and options it
// ignored (not on the allowlist, untranslatable, or custom G-code not asked for), each with its reason.
import type { PresetSet } from './config-set.ts';

export interface ImportNote {
  key: string;
  reason: string;
}

/** A reader's output: the presets it found, and what it already knew it could not carry over. */
export interface ReadConfig {
  set: PresetSet;
  ignored: ImportNote[];
}

/** Bounds every reader applies before parsing: text size, options per file. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
export const MAX_CONFIG_KEYS = 5000;

/** A config the import refuses: the option (or `file`) at fault and why; 413 for a file beyond the bounds. */
export class ConfigError extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
    readonly status: 400 | 413 = 400,
  ) {
    super(`${field}: ${problem}`);
  }
}

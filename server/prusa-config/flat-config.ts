// A PrusaSlicer flat config ("Export Config", or a project 3MF's Metadata/Slic3r_PE.config): `key = value`
// lines and `#` comments, printer, print and filament options in one file. Split into a PresetSet by the kind
// of each option (allowlist.ts); the preset names come from printer/print/filament_settings_id.
import { ALLOWED, CUSTOM_GCODE, type PresetKind } from './allowlist.ts';
import type { FlatPreset } from './config-set.ts';
import { ConfigError, MAX_CONFIG_BYTES, MAX_CONFIG_KEYS, type ReadConfig } from './notes.ts';

const KEY = /^[A-Za-z0-9_]{1,128}$/;

/** A preset name as PrusaSlicer writes it: bare, or quoted (the first of a per-extruder list). */
function presetName(raw: string | undefined): string | null {
  if (!raw) return null;
  const first = raw.startsWith('"') ? (raw.slice(1).split('"')[0] ?? '') : (raw.split(';')[0] ?? '');
  const name = first.trim();
  return name ? name.slice(0, 200) : null;
}

/** `key = value` lines into a map; refuses (400 naming the file) a file too large, a line without a key, too many keys. */
/** A project 3MF writes every option as a comment: `; key = value`. */
const COMMENTED_OPTION = /^;\s*([A-Za-z0-9_]{1,128}\s*=.*)$/;

export function parseFlatLines(text: string, source: string, commented = false): Map<string, string> {
  if (text.length > MAX_CONFIG_BYTES) throw new ConfigError('file', `is larger than ${MAX_CONFIG_BYTES} bytes`, 413);
  const out = new Map<string, string>();
  let at = 0;
  let line = 0;
  while (at < text.length) {
    const end = text.indexOf('\n', at);
    const line0 = text.slice(at, end === -1 ? text.length : end).replace(/\r$/, '');
    const raw = commented ? (line0.match(COMMENTED_OPTION)?.[1] ?? line0) : line0;
    at = end === -1 ? text.length : end + 1;
    line++;
    const trimmed = raw.trim();
    if (!trimmed || trimmed.startsWith('#') || trimmed.startsWith(';')) continue;
    const eq = raw.indexOf('=');
    const key = (eq === -1 ? raw : raw.slice(0, eq)).trim();
    if (eq === -1 || !KEY.test(key)) throw new ConfigError('file', `line ${line} of ${source} is not "key = value"`);
    if (!out.has(key) && out.size >= MAX_CONFIG_KEYS)
      throw new ConfigError('file', `holds more than ${MAX_CONFIG_KEYS} options`, 413);
    out.set(key, raw.slice(eq + 1).trim());
  }
  return out;
}

/** Which preset of a flat file an option belongs to; options that are not imported go to the printer, to be reported. */
export function kindOf(key: string): PresetKind {
  return ALLOWED.get(key)?.kind ?? CUSTOM_GCODE[key] ?? 'printer';
}

function preset(name: string): FlatPreset {
  return { name, options: {}, sources: {} };
}

/** A flat config as a PresetSet: one printer, at most one print and one filament, named as in the file. */
export function readFlatConfig(text: string, source = 'config', commented = false): ReadConfig {
  const lines = parseFlatLines(text, source, commented);
  const printer = preset(presetName(lines.get('printer_settings_id')) ?? 'Imported printer');
  const print = preset(presetName(lines.get('print_settings_id')) ?? 'Imported print');
  const filament = preset(presetName(lines.get('filament_settings_id')) ?? 'Imported filament');
  const byKind = { printer, print, filament };
  for (const [key, value] of lines) {
    const target = byKind[kindOf(key)];
    target.options[key] = value;
    target.sources[key] = target.name;
  }
  const some = (p: FlatPreset) => Object.keys(p.options).length > 0;
  return {
    set: { printer, prints: some(print) ? [print] : [], filaments: some(filament) ? [filament] : [] },
    ignored: [],
  };
}

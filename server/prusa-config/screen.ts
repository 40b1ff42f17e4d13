// Checks a PresetSet from any reader against the allowlist: allowed options are range-checked (a bad value is a
// 400 naming the option), refused ones are dropped and listed (credentials by key only, never their value),
// custom G-code is kept only on request, everything else is dropped and listed as ignored.
import { classify, GCODE_IGNORED_REASON, MAX_VALUE_CHARS, valueProblem } from './allowlist.ts';
import type { FlatPreset, PresetSet } from './config-set.ts';
import { ConfigError, type ImportNote, MAX_CONFIG_KEYS } from './notes.ts';

export interface ScreenOptions {
  keepCustomGcode: boolean;
}

export interface ScreenedSet extends PresetSet {
  refused: ImportNote[];
  ignored: ImportNote[];
  /** The custom G-code blocks kept (keepCustomGcode), each named once, in the order met. */
  keptGcode: string[];
}

interface Notes {
  refused: ImportNote[];
  ignored: ImportNote[];
  keptGcode: string[];
}

function noteOnce(list: ImportNote[], note: ImportNote) {
  if (!list.some((n) => n.key === note.key)) list.push(note);
}

function screenPreset(p: FlatPreset, o: ScreenOptions, notes: Notes): FlatPreset {
  const { refused, ignored, keptGcode } = notes;
  const out: FlatPreset = { name: p.name, options: {}, sources: {} };
  for (const [key, value] of Object.entries(p.options)) {
    const verdict = classify(key);
    if (verdict.as === 'name') continue;
    if (verdict.as === 'refused') {
      noteOnce(refused, { key, reason: verdict.reason });
      continue;
    }
    if (verdict.as === 'ignored') {
      // Even an option we drop is bounded, so a hostile file cannot hide megabytes in one.
      if (value.length > MAX_VALUE_CHARS) throw new ConfigError(key, `is longer than ${MAX_VALUE_CHARS} characters`);
      noteOnce(ignored, { key, reason: verdict.reason });
      continue;
    }
    if (verdict.as === 'gcode' && !o.keepCustomGcode) {
      noteOnce(ignored, { key, reason: GCODE_IGNORED_REASON });
      continue;
    }
    const problem = valueProblem(verdict.as === 'gcode' ? { t: 'gcode' } : verdict.option.check, value);
    if (problem) throw new ConfigError(key, problem);
    out.options[key] = value;
    out.sources[key] = p.sources[key] ?? p.name;
    if (verdict.as === 'gcode' && !keptGcode.includes(key)) keptGcode.push(key);
  }
  return out;
}

/** The set with only allowed, checked options, and the notes on what was left out. */
export function screenPresetSet(set: PresetSet, o: ScreenOptions): ScreenedSet {
  const all = [set.printer, ...set.prints, ...set.filaments].filter((p): p is FlatPreset => p !== null);
  const count = all.reduce((n, p) => n + Object.keys(p.options).length, 0);
  if (count > MAX_CONFIG_KEYS) throw new ConfigError('file', `holds more than ${MAX_CONFIG_KEYS} options`, 413);
  const notes: Notes = { refused: [], ignored: [], keptGcode: [] };
  const one = (p: FlatPreset) => screenPreset(p, o, notes);
  return {
    printer: set.printer && one(set.printer),
    prints: set.prints.map(one),
    filaments: set.filaments.map(one),
    ...notes,
  };
}

// PrusaSlicer's INI as it writes vendor bundles and config bundles: `[kind:name]` sections of `key = value` lines,
// whole-line `#` and `;` comments. A value is everything after the first `=`, trimmed: it may itself hold `;`, `#`
// and `=` (conditions, G-code), and G-code keeps its `\n` escapes as written (PrusaSlicer unescapes per option).
// Keys before the first section belong to a section named '' (a flat config export has only that one).
import { BundleError } from './bundle-errors.ts';

export interface IniSection {
  /** The text between the brackets: `print:0.20mm QUALITY @MK3`, `vendor`, `printer_model:MK3S`. */
  header: string;
  /** 1-based line of the header (0 for the leading keys). */
  line: number;
  /** Keys in file order; a repeated key keeps its last value, as PrusaSlicer's loader does. */
  entries: Map<string, string>;
}

export interface IniLimits {
  maxBytes: number;
  maxSections: number;
  maxKeysPerSection: number;
}

/** A user's bundle: generous for a shop's presets, far below what would strain the process. */
export const USER_INI_LIMITS: IniLimits = { maxBytes: 8 * 1024 * 1024, maxSections: 20_000, maxKeysPerSection: 2_000 };
/** The bundles shipped with PrusaSlicer (several MB for Prusa Research's). */
export const VENDOR_INI_LIMITS: IniLimits = {
  maxBytes: 32 * 1024 * 1024,
  maxSections: 50_000,
  maxKeysPerSection: 2_000,
};

/** Parses the text; throws BundleError (400) naming the line or section past a limit or not in the format. */
export function parseIni(text: string, limits: IniLimits = USER_INI_LIMITS): IniSection[] {
  checkSize(text, limits.maxBytes);
  const sections: IniSection[] = [{ header: '', line: 0, entries: new Map() }];
  const seen = new Set<string>();
  let lineNo = 0;
  let start = 0;
  while (start <= text.length) {
    const end = nextLineEnd(text, start);
    lineNo++;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[')) {
      sections.push(openSection(line, lineNo, seen, sections.length, limits));
      continue;
    }
    addEntry(sections[sections.length - 1]!, line, lineNo, limits);
  }
  return sections[0]!.entries.size === 0 ? sections.slice(1) : sections;
}

function nextLineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end === -1 ? text.length : end;
}

function checkSize(text: string, maxBytes: number) {
  // Length in UTF-16 units is at most the UTF-8 byte count; a text past the limit in units is past it in bytes.
  const bytes = text.length > maxBytes ? text.length : Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes)
    throw new BundleError('bundle_too_large', `The config file has ${bytes} bytes; at most ${maxBytes} are read.`, {
      bytes,
      max_bytes: maxBytes,
    });
}

function openSection(line: string, lineNo: number, seen: Set<string>, count: number, limits: IniLimits): IniSection {
  if (!line.endsWith(']'))
    throw new BundleError('bundle_malformed', `Line ${lineNo}: a section header must end with "]".`, { line: lineNo });
  if (count > limits.maxSections)
    throw new BundleError(
      'bundle_too_many_sections',
      `The config file has more than ${limits.maxSections} sections (line ${lineNo}).`,
      { line: lineNo, max_sections: limits.maxSections },
    );
  const header = line.slice(1, -1).trim();
  if (seen.has(header))
    throw new BundleError('bundle_duplicate_section', `Line ${lineNo}: section [${header}] appears twice.`, {
      line: lineNo,
      section: header,
    });
  seen.add(header);
  return { header, line: lineNo, entries: new Map() };
}

function addEntry(section: IniSection, line: string, lineNo: number, limits: IniLimits) {
  const eq = line.indexOf('=');
  if (eq <= 0)
    throw new BundleError('bundle_malformed', `Line ${lineNo}: expected "key = value".`, {
      line: lineNo,
      section: section.header,
    });
  const key = line.slice(0, eq).trim();
  if (!section.entries.has(key) && section.entries.size >= limits.maxKeysPerSection)
    throw new BundleError(
      'bundle_too_many_keys',
      `Section [${section.header}] has more than ${limits.maxKeysPerSection} keys (line ${lineNo}).`,
      { line: lineNo, section: section.header, max_keys: limits.maxKeysPerSection },
    );
  section.entries.delete(key);
  section.entries.set(key, line.slice(eq + 1).trim());
}

/**
 * A PrusaSlicer list of strings (`inherits`, `compatible_printers`, `variants`): items separated by `;`, each bare
 * or in double quotes with C escapes (`\"`, `\\`, `\n`). Empty items are dropped. Null when a quote is unclosed.
 */
export function splitStrings(value: string): string[] | null {
  const items: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (value[i] === ' ' || value[i] === '\t') i++;
    if (i >= value.length) break;
    let item = '';
    if (value[i] === '"') {
      const read = readQuoted(value, i + 1);
      if (!read) return null;
      item = read.text;
      i = read.end;
      while (value[i] === ' ' || value[i] === '\t') i++;
      if (i < value.length && value[i] !== ';') return null;
    } else {
      const semi = value.indexOf(';', i);
      const end = semi === -1 ? value.length : semi;
      item = value.slice(i, end).trim();
      i = end;
    }
    if (item !== '') items.push(item);
    i++;
  }
  return items;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r' };

function readQuoted(value: string, from: number): { text: string; end: number } | null {
  let text = '';
  for (let i = from; i < value.length; i++) {
    const c = value[i]!;
    if (c === '"') return { text, end: i + 1 };
    if (c === '\\' && i + 1 < value.length) {
      const next = value[++i]!;
      text += ESCAPES[next] ?? next;
    } else text += c;
  }
  return null;
}

/** A string option as PrusaSlicer reads it: quoted with C escapes, or bare with `\n` escapes. */
export function unescapeString(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    const read = readQuoted(value, 1);
    if (read && read.end === value.length) return read.text;
  }
  return value.replace(/\\(.)/g, (_, c: string) => ESCAPES[c] ?? c);
}

// Format detection: content first, the file name's extension only to break ties the content
// cannot settle (text that is neither clearly OBJ nor ASCII STL, a damaged binary STL, an
// empty file). A PNG renamed .stl is refused here: it is binary, not a zip, fails the STL size
// rule and its first records are not plausible STL coordinates.
import { hasForeignMagic } from './magic.ts';
import { isBinaryStlSize, looksAsciiStl, looksLikeBinaryStl } from './stl.ts';
import { hasUtf8Bom, looksText } from './text.ts';

export type ModelFormat = 'stl' | 'obj' | '3mf';

const OBJ_KEYWORDS = new Set(['v', 'vt', 'vn', 'vp', 'f', 'o', 'g', 's', 'l', 'p', 'usemtl', 'mtllib']);

export function detectFormat(fileName: string, bytes: Uint8Array): ModelFormat | null {
  const ext = extensionFormat(fileName);
  if (bytes.length === 0) return ext;
  if (isZip(bytes)) return '3mf';
  if (isBinaryStlSize(bytes)) return 'stl';
  if (looksAsciiStl(bytes)) return 'stl';
  if (looksText(bytes)) {
    if (looksObj(bytes)) return 'obj';
    return ext === 'obj' || ext === 'stl' ? ext : null;
  }
  // Binary, not a zip, wrong size for STL: perhaps a truncated or lying STL, or an OBJ with
  // junk in it, which deserve a precise error rather than "unsupported format" — but only when
  // the name says so and the content is plausible for it.
  if (ext === 'stl' && looksLikeBinaryStl(bytes)) return 'stl';
  if (ext === 'obj' && !hasForeignMagic(bytes) && firstLineIsText(bytes)) return 'obj';
  return null;
}

export function extensionFormat(fileName: string): ModelFormat | null {
  const ext = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase() ?? '';
  return ext === 'stl' || ext === 'obj' || ext === '3mf' ? ext : null;
}

function isZip(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
}

/** The bytes up to the first line break (or the first 256) are printable text. */
function firstLineIsText(b: Uint8Array): boolean {
  const end = Math.min(b.length, 256);
  let i = 0;
  while (i < end && b[i] !== 10) i++;
  return i > 0 && looksText(b.subarray(0, i));
}

/** The first statement (skipping blank lines and comments) is an OBJ keyword. */
function looksObj(b: Uint8Array): boolean {
  const text = new TextDecoder('latin1').decode(b.subarray(hasUtf8Bom(b) ? 3 : 0, 4096));
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    return OBJ_KEYWORDS.has(line.split(/\s+/)[0]!); // split always yields a first piece
  }
  return false;
}

// STL, binary and ASCII. Binary vs ASCII is decided by the size rule (84 + 50·n == file size,
// n = uint32 at offset 80), never by a "solid" header: real binary exporters write "solid" into
// the header, and a binary file can consist entirely of ASCII bytes.
import { fail } from './errors.ts';
import type { ParseLimits } from './limits.ts';
import { hasForeignMagic } from './magic.ts';
import { type Mesh, MeshBuilder } from './mesh.ts';
import { parseNumberBytes } from './number.ts';
import { ByteCursor, hasUtf8Bom, looksText } from './text.ts';

const HEADER = 80;
/** The header and the triangle count. */
export const PREAMBLE = 84;
/** One triangle: its normal, three corners and a two-byte attribute. */
export const RECORD = 50;

export interface StlResult {
  mesh: Mesh;
  degenerate: number;
}

export function parseStl(bytes: Uint8Array, limits: ParseLimits): StlResult {
  if (isBinaryStlSize(bytes)) return parseBinary(bytes, limits);
  // Text is parsed as ASCII STL (which reports a missing "solid" precisely); bytes that are
  // not text are a binary STL of the wrong size, or not an STL at all.
  if (looksText(bytes, 512)) return parseAscii(bytes, limits);
  return refuseBadBinary(bytes, limits);
}

/** The size rule: exactly 84 + 50·n bytes, n being the count stored at offset 80. */
export function isBinaryStlSize(bytes: Uint8Array): boolean {
  if (bytes.length < PREAMBLE) return false;
  return PREAMBLE + RECORD * declaredCount(bytes) === bytes.length;
}

export function declaredCount(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(HEADER, true);
}

/** "solid" at the start and plain text after it (no control bytes in the first 512 bytes). */
export function looksAsciiStl(bytes: Uint8Array): boolean {
  let i = hasUtf8Bom(bytes) ? 3 : 0;
  while (i < bytes.length && (bytes[i] === 32 || (bytes[i]! >= 9 && bytes[i]! <= 13))) i++;
  const word = 'solid';
  for (let k = 0; k < word.length; k++) {
    if (i + k >= bytes.length || (bytes[i + k]! | 0x20) !== word.charCodeAt(k)) return false;
  }
  return looksText(bytes, 512);
}

/**
 * Could these bytes be a damaged binary STL (wrong size)? Used to tell "truncated STL" from
 * "some other file named .stl": the first records must hold plausible coordinates (finite, not
 * denormal, below 10⁷), which random or compressed bytes fail with overwhelming odds.
 */
export function looksLikeBinaryStl(bytes: Uint8Array): boolean {
  if (hasForeignMagic(bytes)) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records = Math.min(4, Math.floor((bytes.length - PREAMBLE) / RECORD));
  for (let r = 0; r < records; r++) {
    for (let k = 0; k < 12; k++) {
      const f = Math.abs(view.getFloat32(PREAMBLE + r * RECORD + k * 4, true));
      if (!(f === 0 || (f > 1e-30 && f < 1e7))) return false;
    }
  }
  return true;
}

function parseBinary(bytes: Uint8Array, limits: ParseLimits): StlResult {
  const count = declaredCount(bytes);
  const builder = binaryBuilder(count, limits);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let t = 0, o = PREAMBLE; t < count; t++, o += RECORD) addBinaryTriangle(view, o, t, builder);
  return { mesh: builder.finish(), degenerate: builder.degenerateCount };
}

/**
 * The builder of a binary STL declaring `count` triangles, sized for `expected` of them (a count the file's size has
 * not confirmed yet is no reason to allocate); refused before anything is allocated when over the cap.
 */
export function binaryBuilder(count: number, limits: ParseLimits, expected = count): MeshBuilder {
  if (count > limits.maxTriangles) tooMany(count, limits);
  return new MeshBuilder(limits, expected);
}

/** Welds the corners of triangle `triangle` (0-based), whose record starts at `record` (the normal is skipped). */
export function addBinaryTriangle(view: DataView, record: number, triangle: number, builder: MeshBuilder): void {
  const a = binaryVertex(view, record + 12, triangle, builder);
  const b = binaryVertex(view, record + 24, triangle, builder);
  const c = binaryVertex(view, record + 36, triangle, builder);
  builder.addTriangle(a, b, c);
}

function binaryVertex(view: DataView, o: number, triangle: number, builder: MeshBuilder): number {
  const x = view.getFloat32(o, true),
    y = view.getFloat32(o + 4, true),
    z = view.getFloat32(o + 8, true);
  if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) {
    fail(
      'non_finite_vertex',
      `Triangle ${triangle + 1} of the binary STL has a vertex that is not a finite number (NaN or infinity).`,
      {
        triangle: triangle + 1,
      },
    );
  }
  return builder.addVertex(x, y, z);
}

function tooMany(count: number, limits: ParseLimits): never {
  return fail(
    'stl_too_many_triangles',
    `The binary STL header claims ${count} triangles, more than the ${limits.maxTriangles} this service accepts.`,
    { declared: count, limit: limits.maxTriangles },
  );
}

/** Neither a well-sized binary STL nor ASCII: say precisely what is wrong, allocating nothing. */
function refuseBadBinary(bytes: Uint8Array, limits: ParseLimits): never {
  if (bytes.length < PREAMBLE) {
    fail(
      'stl_truncated',
      `The file is ${bytes.length} bytes long; a binary STL needs at least 84 (header and triangle count).`,
      {
        size: bytes.length,
      },
    );
  }
  if (!looksLikeBinaryStl(bytes))
    fail('unsupported_format', 'The file is not an STL model (neither binary STL records nor ASCII STL text).');
  const count = declaredCount(bytes);
  if (count > limits.maxTriangles) tooMany(count, limits);
  const expected = PREAMBLE + RECORD * count;
  const whole = Math.floor((bytes.length - PREAMBLE) / RECORD);
  const details = { declared: count, expectedBytes: expected, size: bytes.length };
  if (bytes.length < expected && (bytes.length - PREAMBLE) % RECORD !== 0) {
    fail(
      'stl_truncated',
      `The binary STL is truncated: its header declares ${count} triangles (${expected} bytes) but the file ends after ${bytes.length} bytes, partway through triangle ${whole + 1}.`,
      details,
    );
  }
  fail(
    'stl_count_mismatch',
    `The binary STL header declares ${count} triangles (${expected} bytes) but the file is ${bytes.length} bytes long.`,
    details,
  );
}

// ---- ASCII ---------------------------------------------------------------------------------

function parseAscii(bytes: Uint8Array, limits: ParseLimits): StlResult {
  const cur = new ByteCursor(bytes);
  const builder = new MeshBuilder(limits, Math.floor(bytes.length / 250));
  expectWord(cur, 'solid');
  cur.skipLine(); // the solid's name, free text
  for (;;) {
    if (!cur.next(true)) syntax(cur, "'endsolid'");
    if (cur.is('endsolid')) {
      cur.skipLine();
      if (!cur.next(true)) break; // end of file
      if (!cur.is('solid')) syntax(cur, "'solid' or the end of the file");
      cur.skipLine();
      continue;
    }
    if (!cur.is('facet')) syntax(cur, "'facet' or 'endsolid'");
    readFacet(cur, builder);
  }
  return { mesh: builder.finish(), degenerate: builder.degenerateCount };
}

function readFacet(cur: ByteCursor, builder: MeshBuilder): void {
  expectWord(cur, 'normal');
  for (let k = 0; k < 3; k++) readNumber(cur, 'normal component'); // validated, then ignored
  expectWord(cur, 'outer');
  expectWord(cur, 'loop');
  const corners: [number, number, number] = [0, 0, 0];
  for (let k = 0; k < 3; k++) {
    expectWord(cur, 'vertex');
    const line = cur.line;
    const x = readNumber(cur, 'vertex x'),
      y = readNumber(cur, 'vertex y'),
      z = readNumber(cur, 'vertex z');
    if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) {
      fail('non_finite_vertex', `The ASCII STL has a vertex that is not a finite number on line ${line}.`, { line });
    }
    corners[k] = builder.addVertex(x, y, z);
  }
  expectWord(cur, 'endloop');
  expectWord(cur, 'endfacet');
  builder.addTriangle(corners[0], corners[1], corners[2]);
}

function expectWord(cur: ByteCursor, word: string): void {
  if (!cur.next(true) || !cur.is(word)) syntax(cur, `'${word}'`);
}

function readNumber(cur: ByteCursor, what: string): number {
  if (!cur.next(false)) syntax(cur, `a number (${what})`);
  const value = parseNumberBytes(cur.bytes, cur.start, cur.end);
  if (value === null) syntax(cur, `a number (${what})`);
  return value;
}

function syntax(cur: ByteCursor, expected: string): never {
  return fail(
    'stl_syntax',
    `ASCII STL syntax error on line ${cur.line}: expected ${expected}, found ${cur.describe()}.`,
    {
      line: cur.line,
    },
  );
}

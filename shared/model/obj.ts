// Wavefront OBJ geometry: `v` and `f` records. Faces accept the v, v/vt, v//vn and v/vt/vn
// reference forms and negative (relative) indices; polygons are triangulated as a fan from
// their first corner, which is exact for convex polygons (what exporters write) and keeps the
// triangle count at n-2. Records that carry no geometry are ignored; anything else is refused.
import { fail } from './errors.ts';
import type { ParseLimits } from './limits.ts';
import { type Mesh, MeshBuilder } from './mesh.ts';
import { parseNumberBytes } from './number.ts';
import { ByteCursor } from './text.ts';

/** Statements that describe no geometry we measure: texture/normal data, grouping, materials, curves. */
const IGNORED = new Set([
  'vt',
  'vn',
  'vp',
  'o',
  'g',
  's',
  'usemtl',
  'mtllib',
  'l',
  'p',
  'mg',
  'usemap',
  'maplib',
  'lod',
  'bevel',
  'c_interp',
  'd_interp',
  'shadow_obj',
  'trace_obj',
  'cstype',
  'deg',
  'bmat',
  'step',
  'curv',
  'curv2',
  'surf',
  'parm',
  'trim',
  'hole',
  'scrv',
  'sp',
  'end',
  'con',
  'call',
  'csh',
  'ctech',
  'stech',
]);

export interface ObjResult {
  mesh: Mesh;
  degenerate: number;
}

const SLASH = 47,
  HASH = 35;

export function parseObj(bytes: Uint8Array, limits: ParseLimits): ObjResult {
  const reader = new ObjReader(bytes, limits);
  reader.run();
  if (reader.faces === 0) {
    fail('no_triangles', 'The OBJ file has no faces (f records), so it describes no surface to print.', {
      vertices: reader.vertexCount,
    });
  }
  return { mesh: reader.builder.finish(), degenerate: reader.builder.degenerateCount };
}

class ObjReader {
  readonly cur: ByteCursor;
  readonly builder: MeshBuilder;
  /**
   * Welded index of each `v` record, in file order. Welding eagerly keeps the mesh's vertex
   * order equal to the file's (unused vertices are dropped at the end), which PrusaSlicer's
   * volume of an open mesh depends on.
   */
  private welded = new Uint32Array(1024);
  vertexCount = 0;
  faces = 0;

  constructor(
    bytes: Uint8Array,
    private readonly limits: ParseLimits,
  ) {
    this.cur = new ByteCursor(bytes);
    this.builder = new MeshBuilder(limits, Math.floor(bytes.length / 40));
  }

  run(): void {
    const cur = this.cur;
    for (;;) {
      if (!cur.next(true)) {
        if (cur.atEnd) return;
        continue;
      }
      if (cur.bytes[cur.start] === HASH) cur.skipLine();
      else if (cur.is('v')) this.vertex();
      else if (cur.is('f')) this.face();
      else if (IGNORED.has(keyword(cur))) cur.skipLine();
      else syntax(cur, 'a known OBJ statement such as v, f, vt, vn, o, g, s, usemtl or #');
    }
  }

  private vertex(): void {
    const cur = this.cur;
    const line = cur.line;
    const xyz: [number, number, number] = [0, 0, 0];
    for (let k = 0; k < 3; k++) {
      if (!cur.next(false)) syntax(cur, 'three vertex coordinates');
      const value = parseNumberBytes(cur.bytes, cur.start, cur.end);
      if (value === null) syntax(cur, 'a number');
      xyz[k] = value;
    }
    if (!xyz.every(Number.isFinite)) {
      fail(
        'non_finite_vertex',
        `Vertex ${this.vertexCount + 1} of the OBJ file (line ${line}) is not a finite number.`,
        { line },
      );
    }
    // Optional w or r g b values follow; they must still be numbers.
    while (cur.next(false)) {
      if (cur.bytes[cur.start] === HASH) break;
      if (parseNumberBytes(cur.bytes, cur.start, cur.end) === null) syntax(cur, 'a number or the end of the line');
    }
    cur.skipLine();
    this.storeVertex(xyz[0], xyz[1], xyz[2]);
  }

  private storeVertex(x: number, y: number, z: number): void {
    if (this.vertexCount >= this.limits.maxVertices) {
      fail(
        'too_many_vertices',
        `The OBJ file declares more than ${this.limits.maxVertices} vertices, the most this service accepts.`,
        {
          limit: this.limits.maxVertices,
        },
      );
    }
    if (this.vertexCount === this.welded.length) {
      const welded = new Uint32Array(Math.min(this.welded.length * 2, this.limits.maxVertices));
      welded.set(this.welded);
      this.welded = welded;
    }
    this.welded[this.vertexCount++] = this.builder.addVertex(x, y, z);
  }

  /** Fan-triangulates as corners arrive, so a huge polygon never needs a corner list. */
  private face(): void {
    const cur = this.cur;
    const line = cur.line;
    let first = 0,
      previous = 0,
      count = 0;
    while (cur.next(false)) {
      if (cur.bytes[cur.start] === HASH) break;
      const corner = this.corner();
      if (count === 0) first = corner;
      else if (count >= 2) this.builder.addTriangle(first, previous, corner);
      previous = corner;
      count++;
    }
    if (count < 3) syntax(cur, 'a face with at least three vertices', line);
    cur.skipLine();
    this.faces++;
  }

  /** One face corner "v", "v/vt", "v//vn" or "v/vt/vn"; only v is used, the others are validated. */
  private corner(): number {
    const cur = this.cur,
      b = cur.bytes;
    let end = cur.start;
    while (end < cur.end && b[end] !== SLASH) end++;
    const index = parseIndex(b, cur.start, end);
    if (index === null) syntax(cur, 'a vertex index');
    for (let part = 0, i = end; i < cur.end; part++) {
      if (part === 2) syntax(cur, 'a face corner of the form v, v/vt, v//vn or v/vt/vn');
      let j = ++i;
      while (j < cur.end && b[j] !== SLASH) j++;
      if (j > i && parseIndex(b, i, j) === null) syntax(cur, 'a texture or normal index');
      i = j;
    }
    return this.resolve(index);
  }

  /** 1-based index, or negative relative to the vertices read so far. */
  private resolve(index: number): number {
    const raw = index > 0 ? index - 1 : this.vertexCount + index;
    if (index === 0 || raw < 0 || raw >= this.vertexCount) {
      fail(
        'obj_index_out_of_range',
        `A face on line ${this.cur.line} of the OBJ file refers to vertex ${index}, but ${this.vertexCount} vertices are defined at that point.`,
        {
          line: this.cur.line,
          index,
          vertices: this.vertexCount,
        },
      );
    }
    return this.welded[raw]!; // raw < vertexCount, checked above
  }
}

/** A signed decimal integer of at most 10 digits; null otherwise. */
function parseIndex(b: Uint8Array, start: number, end: number): number | null {
  let i = start,
    sign = 1;
  if (b[i] === 45) {
    sign = -1;
    i++;
  } else if (b[i] === 43) i++;
  if (i >= end || end - i > 10) return null;
  let n = 0;
  for (; i < end; i++) {
    const c = b[i]!;
    if (c < 48 || c > 57) return null;
    n = n * 10 + (c - 48);
  }
  return sign * n;
}

function keyword(cur: ByteCursor): string {
  if (cur.end - cur.start > 12) return '';
  let s = '';
  for (let i = cur.start; i < cur.end; i++) {
    const c = cur.bytes[i]!;
    s += String.fromCharCode(c >= 65 && c <= 90 ? c + 32 : c);
  }
  return s;
}

function syntax(cur: ByteCursor, expected: string, line = cur.line): never {
  return fail('obj_syntax', `OBJ syntax error on line ${line}: expected ${expected}, found ${cur.describe()}.`, {
    line,
  });
}

// Indexed mesh construction with vertex welding. Every parser feeds corner positions (already in
// millimetres) into a MeshBuilder, which merges bit-identical positions into one vertex using an
// open-addressing hash table over the IEEE-754 bit patterns (no string keys, no per-vertex
// objects), and grows its typed arrays only up to the configured caps.
import { fail } from './errors.ts';

export interface Mesh {
  /** x, y, z per vertex, millimetres; identical positions share one vertex. */
  positions: Float64Array;
  /** Three vertex indices per triangle. */
  indices: Uint32Array;
}

export interface BuilderLimits {
  maxVertices: number;
  maxTriangles: number;
}

const scratch = new Float64Array(3);
const words = new Uint32Array(scratch.buffer);

/** Murmur3-style mix of the six 32-bit words of (x, y, z); the low words are often all zero. */
function hashPosition(x: number, y: number, z: number): number {
  scratch[0] = x;
  scratch[1] = y;
  scratch[2] = z;
  let h = 0x9747b28c;
  for (let k = 0; k < 6; k++) {
    let w = Math.imul(words[k]!, 0xcc9e2d51);
    w = (w << 15) | (w >>> 17);
    h ^= Math.imul(w, 0x1b873593);
    h = Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export class MeshBuilder {
  private positions: Float64Array;
  private indices: Uint32Array;
  private table: Int32Array; // vertex index + 1; 0 marks an empty slot
  private vertexCount = 0;
  private triangleCount = 0;
  /** Triangles dropped because two corners welded into the same vertex. */
  degenerateCount = 0;

  constructor(
    private readonly limits: BuilderLimits,
    expectedTriangles = 0,
  ) {
    const triangles = Math.min(Math.max(expectedTriangles, 64), limits.maxTriangles);
    const vertices = Math.min(Math.max(triangles >>> 1, 64), limits.maxVertices);
    this.positions = new Float64Array(vertices * 3);
    this.indices = new Uint32Array(triangles * 3);
    this.table = new Int32Array(tableSizeFor(vertices));
  }

  get triangles(): number {
    return this.triangleCount;
  }

  /** Returns the index of the vertex at (x, y, z), creating it if this position is new. */
  addVertex(x: number, y: number, z: number): number {
    // -0 + 0 === +0: both zeros weld to one vertex. NaN never gets here (parsers refuse it).
    x += 0;
    y += 0;
    z += 0;
    const table = this.table;
    const mask = table.length - 1;
    const p = this.positions;
    for (let slot = hashPosition(x, y, z) & mask; ; slot = (slot + 1) & mask) {
      const entry = table[slot]!; // slot is masked to the table's size
      if (entry === 0) {
        const index = this.appendVertex(x, y, z);
        table[slot] = index + 1;
        if ((index + 1) * 2 > table.length) this.rehash();
        return index;
      }
      const o = (entry - 1) * 3;
      if (p[o] === x && p[o + 1] === y && p[o + 2] === z) return entry - 1;
    }
  }

  /** Adds a triangle; one whose corners are not three distinct vertices is dropped and counted. */
  addTriangle(a: number, b: number, c: number): void {
    // Dropped triangles count against the cap too: they still cost parsing time.
    if (this.triangleCount + this.degenerateCount >= this.limits.maxTriangles) {
      fail(
        'too_many_triangles',
        `The model has more than ${this.limits.maxTriangles} triangles, the most this service accepts.`,
        {
          limit: this.limits.maxTriangles,
        },
      );
    }
    if (a === b || b === c || a === c) {
      this.degenerateCount++;
      return;
    }
    const o = this.triangleCount * 3;
    if (o + 3 > this.indices.length) this.indices = grow(this.indices, this.limits.maxTriangles * 3) as Uint32Array;
    this.indices[o] = a;
    this.indices[o + 1] = b;
    this.indices[o + 2] = c;
    this.triangleCount++;
  }

  /** The mesh so far, as views of the builder's arrays: valid until the next vertex or triangle is added. */
  current(): Mesh {
    return {
      positions: this.positions.subarray(0, this.vertexCount * 3),
      indices: this.indices.subarray(0, this.triangleCount * 3),
    };
  }

  /** The finished mesh; arrays are trimmed to their used length. */
  finish(): Mesh {
    const mesh = {
      positions:
        this.positions.length === this.vertexCount * 3 ? this.positions : this.positions.slice(0, this.vertexCount * 3),
      indices:
        this.indices.length === this.triangleCount * 3 ? this.indices : this.indices.slice(0, this.triangleCount * 3),
    };
    // Vertices no triangle uses (unused OBJ vertices, corners of dropped degenerate
    // triangles) must not stretch the bounding box or count as bodies.
    return compact(mesh);
  }

  private appendVertex(x: number, y: number, z: number): number {
    if (this.vertexCount >= this.limits.maxVertices) {
      fail(
        'too_many_vertices',
        `The model has more than ${this.limits.maxVertices} distinct vertices, the most this service accepts.`,
        {
          limit: this.limits.maxVertices,
        },
      );
    }
    const o = this.vertexCount * 3;
    if (o + 3 > this.positions.length)
      this.positions = grow(this.positions, this.limits.maxVertices * 3) as Float64Array;
    this.positions[o] = x;
    this.positions[o + 1] = y;
    this.positions[o + 2] = z;
    return this.vertexCount++;
  }

  private rehash(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    const p = this.positions;
    for (let v = 0; v < this.vertexCount; v++) {
      let slot = hashPosition(p[v * 3]!, p[v * 3 + 1]!, p[v * 3 + 2]!) & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = v + 1;
    }
    this.table = table;
  }
}

/** Removes vertices no triangle references, renumbering the rest in order. */
export function compact(mesh: Mesh): Mesh {
  const vertexCount = mesh.positions.length / 3;
  const remap = new Int32Array(vertexCount).fill(-1);
  let next = 0;
  for (let i = 0; i < mesh.indices.length; i++) {
    const v = mesh.indices[i]!;
    if (remap[v]! < 0) remap[v] = -2; // mark used; numbered below in original order
  }
  for (let v = 0; v < vertexCount; v++) if (remap[v] === -2) remap[v] = next++;
  if (next === vertexCount) return mesh;
  const positions = new Float64Array(next * 3);
  for (let v = 0; v < vertexCount; v++) {
    const to = remap[v]!;
    if (to >= 0) positions.set(mesh.positions.subarray(v * 3, v * 3 + 3), to * 3);
  }
  const indices = mesh.indices.map((v) => remap[v]!);
  return { positions, indices };
}

function tableSizeFor(vertices: number): number {
  let size = 1024;
  while (size < vertices * 2) size *= 2;
  return size;
}

/** Doubles a typed array's capacity, never beyond `max` elements. */
function grow(array: Float64Array | Uint32Array, max: number): Float64Array | Uint32Array {
  const size = Math.min(Math.max(array.length * 2, 192), max);
  const next = array instanceof Float64Array ? new Float64Array(size) : new Uint32Array(size);
  next.set(array);
  return next;
}

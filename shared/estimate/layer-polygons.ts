// Closed section polygons of a mesh at every layer's mid-height: each triangle crossing a plane gives one segment,
// oriented from the triangle's outward normal (material on the left), and the segments are chained into loops
// through the mesh edges they cross (two triangles sharing an edge cut it at the same point). The loops are
// united with Clipper2 (non-zero fill), so overlapping bodies merge and holes come out as holes.
//
// Bounded: at most MAX_POLYGON_SEGMENTS segments in all (counted before any is stored); beyond it the caller falls
// back to the area sweep (layer-sweep.ts). Coordinates are integers in micrometres, as Clipper2 wants.
import { FillRule, type Path64, type Paths64, simplifyPaths, union } from 'clipper2-ts';
import type { Mesh } from '../model/mesh.ts';
import { layerCount, planeZ } from './layer-sweep.ts';

/** Above this many triangle–plane segments the polygons are not built (about 4 × 3DBenchy at 0.2 mm): the loops
 *  take about 60 bytes a segment, so this keeps them near 100 MB at worst. */
export const MAX_POLYGON_SEGMENTS = 2_000_000;
/** Clipper2 works on integers: 1 unit = 1 µm. */
export const UNITS_PER_MM = 1000;
/** Loops are simplified to this (PrusaSlicer's G-code resolution is 12.5 µm). */
const SIMPLIFY_UM = 12;

export interface LayerPolygons {
  layers: number;
  /** Per layer: the section, as non-overlapping outer loops (counter-clockwise) and holes (clockwise), µm. */
  sections: Paths64[];
}

/** Bodies of a mesh whose first layer each triangle spans, bucketed (a counting sort by z). */
function bucketByFirstLayer(first: Int32Array, layers: number): { start: Int32Array; order: Int32Array } {
  const start = new Int32Array(layers + 2);
  for (let t = 0; t < first.length; t++) start[first[t]! + 1]!++;
  for (let i = 0; i <= layers; i++) start[i + 1]! += start[i]!;
  const fill = start.slice();
  const order = new Int32Array(first.length);
  for (let t = 0; t < first.length; t++) order[fill[first[t]!]!++] = t;
  return { start, order };
}

/**
 * The sections of a placed mesh (lowest point = bed) at `layerHeight`, or null when the mesh would cut more than
 * MAX_POLYGON_SEGMENTS segments. The mesh must already be checked (sweepLayers does it).
 */
export function layerPolygons(mesh: Mesh, layerHeight: number): LayerPolygons | null {
  const { positions: p, indices: t } = mesh;
  const vertices = p.length / 3;
  let minZ = Infinity;
  let maxZ = -Infinity;
  let volume6 = 0;
  for (let i = 2; i < p.length; i += 3) {
    if (p[i]! < minZ) minZ = p[i]!;
    if (p[i]! > maxZ) maxZ = p[i]!;
  }
  const height = maxZ - minZ;
  const n = layerCount(height, layerHeight);
  const triangles = t.length / 3;
  const first = new Int32Array(triangles);
  const end = new Int32Array(triangles);
  let planned = 0;
  for (let f = 0; f < t.length; f += 3) {
    const za = p[t[f]! * 3 + 2]! - minZ;
    const zb = p[t[f + 1]! * 3 + 2]! - minZ;
    const zc = p[t[f + 2]! * 3 + 2]! - minZ;
    const lo = Math.min(za, zb, zc);
    const hi = Math.max(za, zb, zc);
    const a = Math.min(n, Math.max(0, Math.ceil(lo / layerHeight - 0.5)));
    const b = hi > lo ? Math.min(n, Math.ceil(hi / layerHeight - 0.5) + 1) : a;
    first[f / 3] = a;
    end[f / 3] = Math.max(a, b);
    planned += Math.max(0, b - a);
    // The sign of the volume says whether the file is inside out.
    const ax = p[t[f]! * 3]!;
    const ay = p[t[f]! * 3 + 1]!;
    const bx = p[t[f + 1]! * 3]!;
    const by = p[t[f + 1]! * 3 + 1]!;
    const cx = p[t[f + 2]! * 3]!;
    const cy = p[t[f + 2]! * 3 + 1]!;
    volume6 += ax * (by * zc - zb * cy) - ay * (bx * zc - zb * cx) + za * (bx * cy - by * cx);
  }
  if (planned > MAX_POLYGON_SEGMENTS) return null;
  const flip = volume6 < 0;
  const lastPlane = planeZ(n - 1, layerHeight, height);
  const { start, order } = bucketByFirstLayer(first, n);
  const sections: Paths64[] = [];
  // Triangles crossing the current plane, compacted in place as the sweep climbs.
  const active = new Int32Array(triangles);
  let activeCount = 0;
  const segments = new LayerSegments();
  const edgeKey = (u: number, v: number) => (u < v ? u * vertices + v : v * vertices + u);
  for (let i = 0; i < n; i++) {
    let kept = 0;
    for (let k = 0; k < activeCount; k++) if (end[active[k]!]! > i) active[kept++] = active[k]!;
    for (let k = start[i]!; k < start[i + 1]!; k++) if (end[order[k]!]! > i) active[kept++] = order[k]!;
    activeCount = kept;
    const z = (i === n - 1 ? lastPlane : (i + 0.5) * layerHeight) + minZ;
    segments.reset(activeCount);
    for (let k = 0; k < activeCount; k++) {
      const f = active[k]! * 3;
      const v0 = t[f]!;
      const v1 = t[f + 1]!;
      const v2 = t[f + 2]!;
      const a0 = p[v0 * 3 + 2]! > z;
      const a1 = p[v1 * 3 + 2]! > z;
      const a2 = p[v2 * 3 + 2]! > z;
      if (a0 === a1 && a1 === a2) continue;
      // Walking the triangle's edges in order (counter-clockwise seen from outside), one crosses the plane going
      // up and one going down. With material on the left, the section runs from the down-going crossing to the
      // up-going one (inside-out meshes the other way); the neighbour across the up-going edge starts there.
      const up = !a0 && a1 ? 0 : !a1 && a2 ? 1 : 2;
      const down = a0 && !a1 ? 0 : a1 && !a2 ? 1 : 2;
      const e0 = flip ? up : down;
      const e1 = flip ? down : up;
      const ua = e0 === 0 ? v0 : e0 === 1 ? v1 : v2;
      const ub = e0 === 0 ? v1 : e0 === 1 ? v2 : v0;
      const s = (z - p[ua * 3 + 2]!) / (p[ub * 3 + 2]! - p[ua * 3 + 2]!);
      segments.add(
        Math.round((p[ua * 3]! + (p[ub * 3]! - p[ua * 3]!) * s) * UNITS_PER_MM),
        Math.round((p[ua * 3 + 1]! + (p[ub * 3 + 1]! - p[ua * 3 + 1]!) * s) * UNITS_PER_MM),
        edgeKey(ua, ub),
        e1 === 0 ? edgeKey(v0, v1) : e1 === 1 ? edgeKey(v1, v2) : edgeKey(v2, v0),
      );
    }
    sections.push(segments.chainLoops());
  }
  return { layers: n, sections };
}

/**
 * One layer's segments in typed arrays reused from layer to layer (a layer of 3DBenchy has about a thousand), and
 * the edge each one starts on in an open-addressing table: no per-segment allocation before the loops are built.
 */
class LayerSegments {
  count = 0;
  private x = new Float64Array(0);
  private y = new Float64Array(0);
  private fromEdge = new Float64Array(0);
  private toEdge = new Float64Array(0);
  private used = new Uint8Array(0);
  /** Edge key → segment starting on it; slots hold segment + 1 (0 = empty). */
  private slotKey = new Float64Array(0);
  private slotSegment = new Int32Array(0);
  private slotBits = 0;

  /** Room for up to `capacity` segments (one per crossing triangle), emptied. */
  reset(capacity: number): void {
    this.count = 0;
    if (this.x.length < capacity) {
      const size = Math.max(capacity, 2 * this.x.length);
      this.x = new Float64Array(size);
      this.y = new Float64Array(size);
      this.fromEdge = new Float64Array(size);
      this.toEdge = new Float64Array(size);
      this.used = new Uint8Array(size);
    }
  }

  add(x: number, y: number, fromEdge: number, toEdge: number): void {
    const s = this.count++;
    this.x[s] = x;
    this.y[s] = y;
    this.fromEdge[s] = fromEdge;
    this.toEdge[s] = toEdge;
  }

  /** Table slot of an edge key: the key (an integer below 2^53) folded to 31 bits, spread by a Fibonacci hash. */
  private slotOf(key: number): number {
    const folded = (key % 0x7fffffff) ^ Math.floor(key / 0x7fffffff);
    return Math.imul(folded | 0, 0x9e3779b1) >>> (32 - this.slotBits);
  }

  /** Indexes every segment by its start edge (a later segment on the same edge replaces an earlier one). */
  private indexStarts(): void {
    let bits = 4;
    while (1 << bits < 2 * this.count) bits++;
    if (this.slotKey.length < 1 << bits) {
      this.slotKey = new Float64Array(1 << bits);
      this.slotSegment = new Int32Array(1 << bits);
    } else this.slotSegment.fill(0, 0, 1 << bits);
    this.slotBits = bits;
    const mask = (1 << bits) - 1;
    for (let s = 0; s < this.count; s++) {
      const key = this.fromEdge[s]!;
      let slot = this.slotOf(key);
      while (this.slotSegment[slot] !== 0 && this.slotKey[slot] !== key) slot = (slot + 1) & mask;
      this.slotKey[slot] = key;
      this.slotSegment[slot] = s + 1;
    }
  }

  /** The segment starting on edge `key`, or -1. */
  private startingOn(key: number): number {
    const mask = (1 << this.slotBits) - 1;
    let slot = this.slotOf(key);
    while (this.slotSegment[slot] !== 0) {
      if (this.slotKey[slot] === key) return this.slotSegment[slot]! - 1;
      slot = (slot + 1) & mask;
    }
    return -1;
  }

  /** Segments chained into loops (a segment ends on the edge the next one starts on), united non-zero. */
  chainLoops(): Paths64 {
    this.indexStarts();
    this.used.fill(0, 0, this.count);
    const loops: Paths64 = [];
    for (let s0 = 0; s0 < this.count; s0++) {
      if (this.used[s0]) continue;
      const loop: Path64 = [];
      let s = s0;
      while (s >= 0 && !this.used[s]) {
        this.used[s] = 1;
        loop.push({ x: this.x[s]!, y: this.y[s]! });
        s = this.startingOn(this.toEdge[s]!);
      }
      // An open chain (a mesh that is not closed) is closed by its last segment, as PrusaSlicer's repair would.
      if (loop.length >= 3) loops.push(loop);
    }
    // Simplified before the union: raw sections have a point every few micrometres on curved parts, and every
    // Clipper operation costs per point.
    return loops.length ? union(simplifyPaths(loops, SIMPLIFY_UM, true), FillRule.NonZero) : [];
  }
}

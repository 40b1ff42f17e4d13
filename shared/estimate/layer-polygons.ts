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
  let active: number[] = [];
  // Per layer, reused: segment start point, and the edges (as vertex-pair keys) it starts and ends on.
  const sx: number[] = [];
  const sy: number[] = [];
  const fromEdge: number[] = [];
  const toEdge: number[] = [];
  const edgeKey = (u: number, v: number) => (u < v ? u * vertices + v : v * vertices + u);
  for (let i = 0; i < n; i++) {
    for (let k = start[i]!; k < start[i + 1]!; k++) active.push(order[k]!);
    active = active.filter((tri) => end[tri]! > i);
    const z = (i === n - 1 ? lastPlane : (i + 0.5) * layerHeight) + minZ;
    sx.length = 0;
    sy.length = 0;
    fromEdge.length = 0;
    toEdge.length = 0;
    for (const tri of active) {
      const f = tri * 3;
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
      sx.push(Math.round((p[ua * 3]! + (p[ub * 3]! - p[ua * 3]!) * s) * UNITS_PER_MM));
      sy.push(Math.round((p[ua * 3 + 1]! + (p[ub * 3 + 1]! - p[ua * 3 + 1]!) * s) * UNITS_PER_MM));
      fromEdge.push(edgeKey(ua, ub));
      toEdge.push(e1 === 0 ? edgeKey(v0, v1) : e1 === 1 ? edgeKey(v1, v2) : edgeKey(v2, v0));
    }
    sections.push(chainLoops(sx, sy, fromEdge, toEdge));
  }
  return { layers: n, sections };
}

/** Segments chained into loops (a segment ends on the edge the next one starts on), united non-zero. */
function chainLoops(sx: number[], sy: number[], fromEdge: number[], toEdge: number[]): Paths64 {
  const startsAt = new Map<number, number>();
  for (let s = 0; s < fromEdge.length; s++) startsAt.set(fromEdge[s]!, s);
  const used = new Uint8Array(fromEdge.length);
  const loops: Paths64 = [];
  for (let s0 = 0; s0 < fromEdge.length; s0++) {
    if (used[s0]) continue;
    const loop: Path64 = [];
    let s: number | undefined = s0;
    while (s !== undefined && !used[s]) {
      used[s] = 1;
      loop.push({ x: sx[s]!, y: sy[s]! });
      s = startsAt.get(toEdge[s]!);
    }
    // An open chain (a mesh that is not closed) is closed by its last segment, as PrusaSlicer's repair would.
    if (loop.length >= 3) loops.push(loop);
  }
  // Simplified before the union: raw sections have a point every few micrometres on curved parts, and every
  // Clipper operation costs per point.
  return loops.length ? union(simplifyPaths(loops, SIMPLIFY_UM, true), FillRule.NonZero) : [];
}

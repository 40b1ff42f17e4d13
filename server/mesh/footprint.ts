// What the placement search needs to know of a model's shape, kept with the file so "does it fit, and in which
// orientation" can be answered for any build volume and scale without re-reading the mesh (docs/placement.md):
// the convex hull of its projection on each axis plane, and the flat area on each side of its bounding box.
type P = [number, number];

/** Flat area (mm²) lying in each side of the bounding box: what rests on the plate when that side is down. */
export interface FlatAreas {
  '-x': number;
  '+x': number;
  '-y': number;
  '+y': number;
  '-z': number;
  '+z': number;
}

export interface ModelShape {
  /** Convex hull of the projection on the XZ plane, as (x, z) points. */
  xz: P[];
  /** Convex hull of the projection on the YZ plane, as (y, z) points. */
  yz: P[];
  flat: FlatAreas;
}

/** Convex hull of the XY projection (the footprint as uploaded). */
export function convexHullXY(positions: Float64Array, maxPoints = 512): P[] {
  return convexHull2D(positions, 0, 1, maxPoints);
}

export function describeShape(positions: Float64Array, indices: Uint32Array): ModelShape {
  return { xz: convexHull2D(positions, 0, 2), yz: convexHull2D(positions, 1, 2), flat: flatAreas(positions, indices) };
}

/**
 * Hull of the projection on axes (a, b): Andrew's monotone chain, after dropping the points inside the octagon of
 * extreme points (Akl–Toussaint), so a mesh of millions of vertices sorts only the few near its outline.
 */
export function convexHull2D(positions: Float64Array, a: number, b: number, maxPoints = 512): P[] {
  const n = positions.length / 3;
  if (n === 0) return [];
  const inside = insideTest(extremeOctagon(positions, a, b));
  const pts: P[] = [];
  for (let i = 0; i < n * 3; i += 3) {
    const u = positions[i + a]!,
      v = positions[i + b]!;
    if (!inside(u, v)) pts.push([u, v]);
  }
  pts.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
  if (pts.length < 3) return pts;
  const cross = (o: P, p: P, q: P) => (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0]);
  const half = (list: P[]) => {
    const out: P[] = [];
    for (const p of list) {
      while (out.length >= 2 && cross(out[out.length - 2]!, out[out.length - 1]!, p) <= 0) out.pop();
      out.push(p);
    }
    out.pop();
    return out;
  };
  const hull = [...half(pts), ...half([...pts].reverse())];
  if (hull.length <= maxPoints) return hull;
  // Thinning a hull keeps it inside the true hull; a tiny under-estimate on huge hulls is acceptable.
  const step = hull.length / maxPoints;
  return Array.from({ length: maxPoints }, (_, i) => hull[Math.floor(i * step)]!);
}

// Directions (du, dv) of the octagon's corners, counter-clockwise from straight down.
const DU = [0, 1, 1, 1, 0, -1, -1, -1];
const DV = [-1, -1, 0, 1, 1, 1, 0, -1];

/** The points extreme in each of those directions, counter-clockwise: a polygon inside the hull. */
function extremeOctagon(positions: Float64Array, a: number, b: number): P[] {
  const score = new Float64Array(8).fill(-Infinity);
  const corner = new Int32Array(8);
  for (let i = 0; i < positions.length; i += 3) {
    const u = positions[i + a]!,
      v = positions[i + b]!;
    for (let k = 0; k < 8; k++) {
      const s = DU[k]! * u + DV[k]! * v;
      if (s > score[k]!) {
        score[k] = s;
        corner[k] = i;
      }
    }
  }
  return Array.from(corner, (i): P => [positions[i + a]!, positions[i + b]!]);
}

/** Inside the convex polygon and off its edges (repeated corners are skipped). */
function insideTest(poly: P[]): (u: number, v: number) => boolean {
  const e: number[] = []; // ox, oy, dx, dy per edge
  for (let i = 0; i < poly.length; i++) {
    const o = poly[i]!,
      q = poly[(i + 1) % poly.length]!;
    if (o[0] !== q[0] || o[1] !== q[1]) e.push(o[0], o[1], q[0] - o[0], q[1] - o[1]);
  }
  if (e.length < 12) return () => false;
  const edges = Float64Array.from(e);
  return (u, v) => {
    for (let k = 0; k < edges.length; k += 4) {
      if (edges[k + 2]! * (v - edges[k + 1]!) - edges[k + 3]! * (u - edges[k]!) <= 0) return false;
    }
    return true;
  };
}

/** Triangles lying in a side of the bounding box (all three corners in its plane), by side. */
export function flatAreas(positions: Float64Array, indices: Uint32Array): FlatAreas {
  const min = [Infinity, Infinity, Infinity],
    max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k]!, positions[i + k]!);
      max[k] = Math.max(max[k]!, positions[i + k]!);
    }
  }
  const tolerance = 1e-6 * Math.max(1, ...max.map((m, k) => m - min[k]!));
  // One bit per side a vertex lies in (-x, +x, -y, +y, -z, +z); a triangle lies in the sides all its corners share.
  const sides = new Uint8Array(positions.length / 3);
  for (let v = 0; v < sides.length; v++) {
    for (let k = 0; k < 3; k++) {
      const c = positions[v * 3 + k]!;
      if (c - min[k]! <= tolerance) sides[v]! |= 1 << (k * 2);
      if (max[k]! - c <= tolerance) sides[v]! |= 1 << (k * 2 + 1);
    }
  }
  const sums = [0, 0, 0, 0, 0, 0];
  for (let t = 0; t < indices.length; t += 3) {
    const shared = sides[indices[t]!]! & sides[indices[t + 1]!]! & sides[indices[t + 2]!]!;
    if (shared === 0) continue;
    const area = triangleArea(positions, indices, t);
    for (let bit = 0; bit < 6; bit++) if (shared & (1 << bit)) sums[bit]! += area;
  }
  const r = sums.map((x) => Math.round(x * 1000) / 1000);
  return { '-x': r[0]!, '+x': r[1]!, '-y': r[2]!, '+y': r[3]!, '-z': r[4]!, '+z': r[5]! };
}

function triangleArea(p: Float64Array, t: Uint32Array, i: number): number {
  const a = t[i]! * 3,
    b = t[i + 1]! * 3,
    c = t[i + 2]! * 3;
  const ux = p[b]! - p[a]!,
    uy = p[b + 1]! - p[a + 1]!,
    uz = p[b + 2]! - p[a + 2]!;
  const vx = p[c]! - p[a]!,
    vy = p[c + 1]! - p[a + 1]!,
    vz = p[c + 2]! - p[a + 2]!;
  return Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx) / 2;
}

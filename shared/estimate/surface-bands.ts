// Where, between two layers, the part's surface may expose a top or bottom surface that reaches into the section,
// read from the mesh alone (layer-sample.ts decides from it which surfaces to cut). Bands: band b is the slab
// between layer b − 1's slicing plane and layer b's; band 0 lies below the first plane, band n above the last.
// - A face moves sideways by h·|n_z|/|n_xy| over one layer (its reach): the surface it exposes between two layers
//   lies within that distance of the section's outline.
// - A hole or an island starts or ends only at a vertex with no neighbour below it, or none above it (a critical
//   point): a pit's tip inside the part exposes the layer under it however steep the pit's sides are.
import type { Mesh } from '../model/mesh.ts';

export interface Bands {
  /** The mesh's lowest z (the bed). */
  z0: number;
  layerHeight: number;
  /** Height of the last layer's plane above the bed. */
  lastPlane: number;
  layers: number;
}

/** The band a height above the bed lies in (a height on a plane lies in the band below it). */
function bandOf(z: number, b: Bands): number {
  return z > b.lastPlane ? b.layers : Math.min(b.layers, Math.max(0, Math.ceil(z / b.layerHeight - 0.5)));
}

/**
 * The shallowest upward and downward face of every band: each face's reach, signed by its normal's z in the file's
 * orientation (`faceReach`; 0 for no face), is spread over the bands its z-range spans. Called once the segment
 * count is bounded, which bounds this loop too (a face spans one band more than the planes it crosses).
 */
export function exposedReach(
  mesh: Mesh,
  b: Bands,
  faceReach: Float32Array,
  orientation: number,
): { top: Float64Array; bottom: Float64Array } {
  const { positions: p, indices: t } = mesh;
  const top = new Float64Array(b.layers + 1);
  const bottom = new Float64Array(b.layers + 1);
  for (let tri = 0; tri < faceReach.length; tri++) {
    const signed = faceReach[tri]! * orientation;
    if (signed === 0) continue;
    const bands = signed > 0 ? top : bottom;
    const reach = Math.abs(signed);
    const za = p[t[tri * 3]! * 3 + 2]! - b.z0;
    const zb = p[t[tri * 3 + 1]! * 3 + 2]! - b.z0;
    const zc = p[t[tri * 3 + 2]! * 3 + 2]! - b.z0;
    for (let band = bandOf(Math.min(za, zb, zc), b), last = bandOf(Math.max(za, zb, zc), b); band <= last; band++) {
      if (reach > bands[band]!) bands[band] = reach;
    }
  }
  return { top, bottom };
}

/** Bands holding a critical vertex (LayerSweep.critical); a vertex on a plane marks the band above it too. */
export function criticalBands(mesh: Mesh, b: Bands): Uint8Array {
  const { positions: p, indices: t } = mesh;
  const vertices = p.length / 3;
  // The lowest and highest neighbour of every vertex, from the triangles around it.
  const lowest = new Float64Array(vertices).fill(Infinity);
  const highest = new Float64Array(vertices).fill(-Infinity);
  for (let f = 0; f < t.length; f += 3) {
    for (let k = 0; k < 3; k++) {
      const v = t[f + k]!;
      const z1 = p[t[f + ((k + 1) % 3)]! * 3 + 2]!;
      const z2 = p[t[f + ((k + 2) % 3)]! * 3 + 2]!;
      lowest[v] = Math.min(lowest[v]!, z1, z2);
      highest[v] = Math.max(highest[v]!, z1, z2);
    }
  }
  const critical = new Uint8Array(b.layers + 1);
  for (let v = 0; v < vertices; v++) {
    const z = p[v * 3 + 2]!;
    if (lowest[v] === Infinity || (lowest[v]! < z && highest[v]! > z)) continue;
    const above = z - b.z0;
    const band = bandOf(above, b);
    critical[band] = 1;
    if (band < b.layers && Math.abs(above - (band + 0.5) * b.layerHeight) < 1e-6) critical[band + 1] = 1;
  }
  return critical;
}

/**
 * Valleys: an edge where the surface folds into the part (the two faces meet at more than 180° inside it) may be
 * much shallower than either face, and a notch along it opens sideways as fast as the edge climbs: between two
 * layers it exposes a surface as deep as the edge's own reach, h·|xy|/|z|. Each edge reaching further than `reach`
 * and than its bands already do is paired with its twin half-edge (a map of those edges only) and, where it folds
 * inward, raises the top and bottom reach of every band it spans.
 */
export function valleyReach(
  mesh: Mesh,
  b: Bands,
  orientation: number,
  reach: number,
  top: Float64Array,
  bottom: Float64Array,
): void {
  const { positions: p, indices: t } = mesh;
  const vertices = p.length / 3;
  // An edge reaching no further than its bands already do changes nothing: its twin is not looked for.
  const covered = (lo: number, hi: number, edgeReach: number) => {
    for (let band = lo; band <= hi; band++) if (top[band]! < edgeReach || bottom[band]! < edgeReach) return false;
    return true;
  };
  const open = new Map<number, number>(); // edge key → its first half-edge seen
  const slope = (reach / b.layerHeight) ** 2;
  for (let e = 0; e < t.length; e++) {
    const u = t[e]!;
    const w = t[e % 3 === 2 ? e - 2 : e + 1]!;
    const dz = p[w * 3 + 2]! - p[u * 3 + 2]!;
    const dx = p[w * 3]! - p[u * 3]!;
    const dy = p[w * 3 + 1]! - p[u * 3 + 1]!;
    // Shallower than `reach` (squared, so steep edges cost no square root); a level edge has no tip that moves.
    if (dz === 0 || !(dx * dx + dy * dy > slope * dz * dz)) continue;
    const z1 = p[u * 3 + 2]! - b.z0;
    const z2 = p[w * 3 + 2]! - b.z0;
    const lo = bandOf(Math.min(z1, z2), b);
    const hi = bandOf(Math.max(z1, z2), b);
    const edgeReach = (b.layerHeight * Math.sqrt(dx * dx + dy * dy)) / Math.abs(dz);
    if (covered(lo, hi, edgeReach)) continue;
    const key = Math.min(u, w) * vertices + Math.max(u, w);
    const first = open.get(key);
    if (first === undefined) {
      open.set(key, e);
      continue;
    }
    open.delete(key);
    // The first face in its own winding: its normal points out of the part (times the orientation).
    const [fu, fw] = [t[first]!, t[first % 3 === 2 ? first - 2 : first + 1]!];
    const [c1, c2] = [thirdOf(t, first), thirdOf(t, e)];
    if (!foldsInward(p, fu, fw, c1, c2, orientation)) continue;
    // Climbing the edge, the notch's tip moves along (ex, ey): deeper into the part when that points away from
    // both faces' traces (a top surface below), out of it when it points along both (a bottom surface above).
    const sign = Math.sign(dz);
    const [a1, a2] = [along(p, u, w, c1, sign * dx, sign * dy), along(p, u, w, c2, sign * dx, sign * dy)];
    const bands = a1 < 0 && a2 < 0 ? top : a1 > 0 && a2 > 0 ? bottom : null;
    for (let band = lo; bands && band <= hi; band++) bands[band] = Math.max(bands[band]!, edgeReach);
  }
}

/** How far (ex, ey) points along the trace that face (u, w, c) leaves in a horizontal plane, from its edge u–w
 *  into the face: positive along it, negative away from it. */
function along(p: Float64Array, u: number, w: number, c: number, ex: number, ey: number): number {
  const [ux, uy, uz] = [p[u * 3]!, p[u * 3 + 1]!, p[u * 3 + 2]!];
  const [ax, ay, az] = [p[w * 3]! - ux, p[w * 3 + 1]! - uy, p[w * 3 + 2]! - uz];
  const [bx, by, bz] = [p[c * 3]! - ux, p[c * 3 + 1]! - uy, p[c * 3 + 2]! - uz];
  // The trace runs along n × ẑ = (n_y, −n_x), n the face's normal; towards c.
  const nx = ay * bz - az * by;
  const ny = az * bx - ax * bz;
  const toC = ny * bx - nx * by;
  return Math.sign(toC) * (ny * ex - nx * ey);
}

/** The vertex of half-edge e's triangle that is not on it. */
const thirdOf = (t: Uint32Array, e: number) => t[e % 3 === 0 ? e + 2 : e - 1]!;

/** Whether the faces (u, w, c) and (u, w, d) meet in a valley: d lies outside the plane of the first, whose outward
 *  side is that of its normal (u→w)×(u→c) for a mesh of orientation 1. */
function foldsInward(p: Float64Array, u: number, w: number, c: number, d: number, orientation: number): boolean {
  const [ax, ay, az] = [p[u * 3]!, p[u * 3 + 1]!, p[u * 3 + 2]!];
  const [ux, uy, uz] = [p[w * 3]! - ax, p[w * 3 + 1]! - ay, p[w * 3 + 2]! - az];
  const [vx, vy, vz] = [p[c * 3]! - ax, p[c * 3 + 1]! - ay, p[c * 3 + 2]! - az];
  const nx = uy * vz - uz * vy;
  const ny = uz * vx - ux * vz;
  const nz = ux * vy - uy * vx;
  const out = (p[d * 3]! - ax) * nx + (p[d * 3 + 1]! - ay) * ny + (p[d * 3 + 2]! - az) * nz;
  return out * orientation > 1e-12 * Math.hypot(nx, ny, nz);
}

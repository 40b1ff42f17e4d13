// Measurements of an indexed mesh: bounding box, volume, area, watertightness and bodies.
import type { Mesh } from './mesh.ts';

export interface Measurements {
  triangles: number;
  bbox: { min: [number, number, number]; max: [number, number, number]; size: [number, number, number] };
  /** Absolute value of the signed volume, mm³. */
  volume_mm3: number;
  surface_area_mm2: number;
  /** Every edge shared by exactly two triangles, consistently oriented. */
  watertight: boolean;
  /** Connected components (triangles sharing vertices). */
  bodies: number;
  /**
   * Σ over the triangles of each one's extent along x, y and z, mm: along the printed up axis, divided by the layer
   * height, the number of segments a slicer cuts from the mesh over all its layers (its slice cost, docs/limits.md).
   * Absent on files stored before it was measured.
   */
  extent_sums?: [number, number, number];
}

export function measure(mesh: Mesh): Measurements {
  const integrals = surfaceIntegrals(mesh);
  return {
    triangles: mesh.indices.length / 3,
    bbox: boundingBox(mesh.positions),
    volume_mm3: Math.abs(integrals.volume),
    surface_area_mm2: integrals.area,
    watertight: isWatertight(mesh),
    bodies: countBodies(mesh),
    extent_sums: extentSums(mesh),
  };
}

/** Σ of the triangles' extents along each axis (see Measurements.extent_sums). */
export function extentSums(mesh: Mesh): [number, number, number] {
  const p = mesh.positions;
  const t = mesh.indices;
  const extent = (a: number, b: number, c: number) => Math.max(p[a]!, p[b]!, p[c]!) - Math.min(p[a]!, p[b]!, p[c]!);
  let x = 0;
  let y = 0;
  let z = 0;
  for (let i = 0; i < t.length; i += 3) {
    const a = t[i]! * 3;
    const b = t[i + 1]! * 3;
    const c = t[i + 2]! * 3;
    x += extent(a, b, c);
    y += extent(a + 1, b + 1, c + 1);
    z += extent(a + 2, b + 2, c + 2);
  }
  return [x, y, z];
}

export function boundingBox(p: Float64Array): Measurements['bbox'] {
  if (p.length === 0) return { min: [0, 0, 0], max: [0, 0, 0], size: [0, 0, 0] };
  // Indices below are within p.length (a multiple of 3) and within the 3-tuples.
  const min: [number, number, number] = [p[0]!, p[1]!, p[2]!];
  const max: [number, number, number] = [p[0]!, p[1]!, p[2]!];
  for (let i = 3; i < p.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      const v = p[i + k]!;
      if (v < min[k]!) min[k] = v;
      else if (v > max[k]!) max[k] = v;
    }
  }
  return { min, max, size: [max[0] - min[0], max[1] - min[1], max[2] - min[2]] };
}

export interface SurfaceIntegrals {
  /** Signed volume, taking the mesh's first vertex as the apex of every tetrahedron. */
  volume: number;
  area: number;
  /** Σ of triangle vector areas; zero for a closed surface, so its size measures how open one is. */
  vectorArea: [number, number, number];
}

/**
 * One pass over the triangles. The apex is the mesh's first vertex, as in PrusaSlicer
 * (its_volume): for a closed mesh any apex gives the same volume, and small coordinates keep the
 * rounding error small; for an open mesh it makes our figure comparable with the slicer's.
 */
export function surfaceIntegrals(mesh: Mesh): SurfaceIntegrals {
  const p = mesh.positions,
    t = mesh.indices;
  if (t.length === 0) return { volume: 0, area: 0, vectorArea: [0, 0, 0] };
  // Every index below is a vertex of the mesh, so each read is within p and t.
  const ox = p[0]!,
    oy = p[1]!,
    oz = p[2]!;
  let volume6 = 0,
    area2 = 0,
    ax = 0,
    ay = 0,
    az = 0;
  for (let i = 0; i < t.length; i += 3) {
    const a = t[i]! * 3,
      b = t[i + 1]! * 3,
      c = t[i + 2]! * 3;
    const x0 = p[a]! - ox,
      y0 = p[a + 1]! - oy,
      z0 = p[a + 2]! - oz;
    const x1 = p[b]! - ox,
      y1 = p[b + 1]! - oy,
      z1 = p[b + 2]! - oz;
    const x2 = p[c]! - ox,
      y2 = p[c + 1]! - oy,
      z2 = p[c + 2]! - oz;
    // Cross product of the edges: twice the triangle's vector area.
    const ux = x1 - x0,
      uy = y1 - y0,
      uz = z1 - z0;
    const vx = x2 - x0,
      vy = y2 - y0,
      vz = z2 - z0;
    const cx = uy * vz - uz * vy,
      cy = uz * vx - ux * vz,
      cz = ux * vy - uy * vx;
    area2 += Math.sqrt(cx * cx + cy * cy + cz * cz);
    ax += cx;
    ay += cy;
    az += cz;
    volume6 += x0 * cx + y0 * cy + z0 * cz;
  }
  return { volume: volume6 / 6, area: area2 / 2, vectorArea: [ax / 2, ay / 2, az / 2] };
}

/**
 * Watertight and consistently oriented: every directed edge a->b occurs exactly once and its
 * reverse b->a occurs exactly once. Outgoing edges are bucketed per vertex (counting sort), so
 * the check needs 4 bytes per corner instead of a hash table of edges.
 */
export function isWatertight(mesh: Mesh): boolean {
  const t = mesh.indices;
  if (t.length === 0) return false;
  const vertexCount = mesh.positions.length / 3;
  // Vertex indices are below vertexCount and bucket offsets below t.length, so every read is in range.
  const start = new Uint32Array(vertexCount + 1);
  for (let i = 0; i < t.length; i++) start[t[i]! + 1]!++;
  for (let v = 0; v < vertexCount; v++) start[v + 1]! += start[v]!;
  const fill = start.slice(0, vertexCount);
  const target = new Uint32Array(t.length);
  for (let i = 0; i < t.length; i += 3) {
    const a = t[i]!,
      b = t[i + 1]!,
      c = t[i + 2]!;
    target[fill[a]!++] = b;
    target[fill[b]!++] = c;
    target[fill[c]!++] = a;
  }
  for (let a = 0; a < vertexCount; a++) {
    const from = start[a]!,
      to = start[a + 1]!;
    for (let e = from; e < to; e++) {
      const b = target[e]!;
      if (countTargets(target, from, to, b) !== 1) return false;
      if (countTargets(target, start[b]!, start[b + 1]!, a) !== 1) return false;
    }
  }
  return true;
}

function countTargets(target: Uint32Array, from: number, to: number, v: number): number {
  let n = 0;
  for (let e = from; e < to; e++) if (target[e] === v) n++;
  return n;
}

/** Connected components of triangles that share a vertex (union-find with path halving). */
export function countBodies(mesh: Mesh): number {
  const t = mesh.indices;
  const vertexCount = mesh.positions.length / 3;
  const parent = new Int32Array(vertexCount);
  for (let v = 0; v < vertexCount; v++) parent[v] = v;
  const find = (v: number): number => {
    // v and every parent are vertex indices below vertexCount.
    while (parent[v] !== v) {
      parent[v] = parent[parent[v]!]!;
      v = parent[v]!;
    }
    return v;
  };
  // Only vertices some triangle uses count, so a stray unused vertex is not a body.
  const used = new Uint8Array(vertexCount);
  let bodies = 0;
  for (let i = 0; i < t.length; i++) {
    const v = t[i]!;
    if (used[v] === 0) {
      used[v] = 1;
      bodies++;
    }
  }
  for (let i = 0; i < t.length; i += 3) {
    for (let k = 1; k < 3; k++) {
      const ra = find(t[i]!),
        rb = find(t[i + k]!);
      if (ra !== rb) {
        parent[ra] = rb;
        bodies--;
      }
    }
  }
  return bodies;
}

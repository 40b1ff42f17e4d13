// Cross-sections of a mesh at every layer's mid-height, in one sweep over the triangles. A triangle is visited only
// for the layers its z-range spans (its first and last layer are computed from its z extent, which is what a
// z-sorted sweep buys, without the sort), so the work is O(triangles + segments) and is bounded before it starts.
//
// A layer's perimeter is the summed length of its segments; its enclosed area is the shoelace sum of the segments,
// each oriented from the triangle's outward normal (material on the left), so no loops need to be chained: holes
// come out negative by themselves. The same sweep collects overhangs for the support approximation
// (docs/estimate.md).
import type { Mesh } from '../model/mesh.ts';
import { refuse } from './errors.ts';
import { edgeTurns } from './mesh-edges.ts';
import { type Bands, criticalBands, exposedReach } from './surface-bands.ts';

/** Layers beyond this are refused (2 m at 0.1 mm): per-layer arrays stay small. */
export const MAX_LAYERS = 20_000;
/** Triangle-plane intersections beyond this are refused (about 70 times 3DBenchy's at 0.2 mm): about a second of
 *  work at most, whatever the mesh. */
export const MAX_SEGMENTS = 20_000_000;
/** Above this many triangles the corners are not measured (their edge table takes about 30 bytes a triangle): the
 *  corner slow-down then counts as zero and the features say so. */
export const MAX_CORNER_TRIANGLES = 2_000_000;

export interface LayerSweep {
  layers: number;
  /** Height of the mesh, mm (its lowest point rests on the bed). */
  height_mm: number;
  /** Per layer: cross-section perimeter, mm. */
  perimeter: Float64Array;
  /** Per layer: enclosed cross-section area, mm² (clamped at 0 for meshes that are not closed). */
  area: Float64Array;
  /** Per layer and corner speed: seconds lost slowing down for the contour's corners, once around. */
  cornerLoss: Float64Array[];
  /** false when the mesh had more than MAX_CORNER_TRIANGLES triangles: cornerLoss is all zero. */
  cornersMeasured: boolean;
  /** Per layer: bed-projected area of the overhangs above it that need support, mm². */
  supportArea: Float64Array;
  /** Projected area of all overhangs that need support, mm². */
  overhangArea: number;
  /** Bounding box of the mesh in XY, mm. */
  sizeX: number;
  sizeY: number;
  segments: number;
  /** Per band b, the slab between layer b − 1's plane and layer b's (band 0 below the first plane, band n above
   *  the last): how far the shallowest upward (downward) face in it moves sideways over one layer, h·|n_z|/|n_xy|
   *  in mm (Infinity for a horizontal face, 0 without such a face). It bounds how far the top surface of layer
   *  b − 1 (the bottom surface of layer b) reaches in from the section's outline: layer-sample.ts reads it. */
  topReach: Float64Array;
  bottomReach: Float64Array;
  /** The bands' heights (surface-bands.ts) and the mesh's orientation (1, or −1 for an inside-out file). */
  bands: Bands;
  orientation: number;
  /** Per band: 1 where a vertex of the mesh is a local lowest or highest point (all its neighbours at or above it,
   *  or at or below it): where a hole or an island may start or end inside the section. */
  critical: Uint8Array;
}

interface Bounds {
  minX: number;
  minY: number;
  minZ: number;
  maxX: number;
  maxY: number;
  maxZ: number;
}

/** Checks the mesh's arrays and coordinates (EstimateError) and returns its bounding box. */
export function checkMesh(mesh: Mesh): Bounds {
  if (!mesh || !(mesh.positions instanceof Float64Array) || !(mesh.indices instanceof Uint32Array)) {
    refuse('invalid_mesh', 'The mesh must have Float64Array positions and Uint32Array indices.');
  }
  const { positions: p, indices: t } = mesh;
  if (p.length % 3 !== 0 || t.length % 3 !== 0) {
    refuse('invalid_mesh', 'The mesh arrays must hold whole vertices and whole triangles.');
  }
  if (t.length === 0) refuse('empty_mesh', 'The mesh has no triangles, so there is nothing to estimate.');
  const vertices = p.length / 3;
  for (let i = 0; i < t.length; i++) {
    if (t[i]! >= vertices) refuse('invalid_mesh', `Triangle ${Math.floor(i / 3)} refers to a missing vertex.`);
  }
  const b = { minX: Infinity, minY: Infinity, minZ: Infinity, maxX: -Infinity, maxY: -Infinity, maxZ: -Infinity };
  for (let i = 0; i < p.length; i += 3) {
    const x = p[i]!;
    const y = p[i + 1]!;
    const z = p[i + 2]!;
    // NaN fails every comparison, so test finiteness explicitly.
    if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) {
      refuse('invalid_mesh', `Vertex ${i / 3} has a coordinate that is not a finite number.`);
    }
    if (x < b.minX) b.minX = x;
    if (x > b.maxX) b.maxX = x;
    if (y < b.minY) b.minY = y;
    if (y > b.maxY) b.maxY = y;
    if (z < b.minZ) b.minZ = z;
    if (z > b.maxZ) b.maxZ = z;
  }
  return b;
}

/** Slicing plane of layer i: the middle of [i·h, min((i+1)·h, height)], as PrusaSlicer slices (first layer = h). */
export function planeZ(i: number, layerHeight: number, height: number): number {
  return (i * layerHeight + Math.min((i + 1) * layerHeight, height)) / 2;
}

export function layerCount(height: number, layerHeight: number): number {
  return Math.max(1, Math.ceil(height / layerHeight - 1e-9));
}

/** How the printer slows down at a contour's corners: the speeds it prints contours at, its acceleration and the
 *  jerk (the speed change it takes without slowing down). */
export interface CornerModel {
  speeds: number[];
  acceleration: number;
  jerk: number;
}

/** Seconds lost at a corner turning by the angle whose cosine is `cos`, at speed v: braking to the corner speed
 *  the jerk allows, v_c = jerk / (2·sin(θ/2)), and accelerating back, (v − v_c)² / (a·v). */
function cornerSeconds(cos: number, v: number, model: CornerModel): number {
  const sinHalf = Math.sqrt(Math.max(0, (1 - cos) / 2));
  const vc = sinHalf > 0 ? model.jerk / (2 * sinHalf) : v;
  return vc >= v ? 0 : ((v - vc) * (v - vc)) / (model.acceleration * v);
}

/**
 * Sweeps the mesh. `overhangSin`: a downward face whose normal has −n_z above this (sin of the support overhang
 * angle from vertical) needs support; null skips the support collection.
 */
export function sweepLayers(
  mesh: Mesh,
  layerHeight: number,
  overhangSin: number | null,
  corners: CornerModel = { speeds: [], acceleration: 1, jerk: 1 },
): LayerSweep {
  const b = checkMesh(mesh);
  const height = b.maxZ - b.minZ;
  if (!(height > 0)) refuse('flat_mesh', 'The mesh has no height, so it has no layers.');
  const n = layerCount(height, layerHeight);
  if (n > MAX_LAYERS) {
    refuse('too_many_layers', `The part would have ${n} layers; the estimator handles at most ${MAX_LAYERS}.`);
  }
  const { positions: p, indices: t } = mesh;
  const cx = (b.minX + b.maxX) / 2;
  const cy = (b.minY + b.maxY) / 2;
  const z0 = b.minZ;
  const lastPlane = planeZ(n - 1, layerHeight, height);
  // Layer i's plane for i < n − 1 is (i + ½)·h: the first layer index whose plane lies above z is ceil(z/h − ½).
  const firstAbove = (z: number) => Math.max(0, Math.ceil(z / layerHeight - 0.5));

  // One pass over the triangles: the layers each one spans (bucketed by its first layer, a counting sort by z),
  // the work the sweep will do (refused beyond MAX_SEGMENTS before any of it), the mesh's orientation (the sign of
  // its volume, so an inside-out file still has downward overhangs) and each triangle's normal direction in XY.
  const triangles = t.length / 3;
  const firstLayer = new Int32Array(triangles);
  const endLayer = new Int32Array(triangles);
  const normalXY = new Float32Array(triangles * 2);
  // Each face's sideways reach per layer (exposedReach), positive facing up in the file's own orientation.
  const faceReach = new Float32Array(triangles);
  let planned = 0;
  let volume6 = 0;
  for (let f = 0; f < t.length; f += 3) {
    const ia = t[f]! * 3;
    const ib = t[f + 1]! * 3;
    const ic = t[f + 2]! * 3;
    const za = p[ia + 2]! - z0;
    const zb = p[ib + 2]! - z0;
    const zc = p[ic + 2]! - z0;
    const lo = Math.min(za, zb, zc);
    const hi = Math.max(za, zb, zc);
    const tri = f / 3;
    // A superset of the layers whose plane lies in [lo, hi): the sweep checks each plane exactly.
    const first = Math.min(firstAbove(lo), n);
    const end = hi > lo ? Math.min(n, Math.ceil(hi / layerHeight - 0.5) + 1) : first;
    firstLayer[tri] = first;
    endLayer[tri] = end;
    if (end > first) {
      planned += end - first;
    }
    const ax = p[ia]! - cx;
    const ay = p[ia + 1]! - cy;
    const bx = p[ib]! - cx;
    const by = p[ib + 1]! - cy;
    const qx = p[ic]! - cx;
    const qy = p[ic + 1]! - cy;
    volume6 += ax * (by * zc - zb * qy) - ay * (bx * zc - zb * qx) + za * (bx * qy - by * qx);
    const nx = (by - ay) * (zc - za) - (zb - za) * (qy - ay);
    const ny = (zb - za) * (qx - ax) - (bx - ax) * (zc - za);
    const len = Math.sqrt(nx * nx + ny * ny);
    if (len > 0) {
      normalXY[tri * 2] = nx / len;
      normalXY[tri * 2 + 1] = ny / len;
    }
    // Twice the face's area seen from above; faces under a square micrometre (degenerate slivers) are left out.
    const nz = (bx - ax) * (qy - ay) - (by - ay) * (qx - ax);
    if (Math.abs(nz) > 2e-6) faceReach[tri] = Math.sign(nz) * (len > 0 ? (layerHeight * Math.abs(nz)) / len : Infinity);
  }
  if (planned > MAX_SEGMENTS) {
    refuse(
      'too_many_layers',
      `Slicing this mesh at ${layerHeight} mm would cut up to ${planned} triangle segments; the estimator handles at most ${MAX_SEGMENTS}.`,
    );
  }
  const orientation = volume6 < 0 ? -1 : 1;
  const bands = { z0, layerHeight, lastPlane, layers: n };
  const { top: topReach, bottom: bottomReach } = exposedReach(mesh, bands, faceReach, orientation);
  const critical = criticalBands(mesh, bands);
  const cornersMeasured = triangles <= MAX_CORNER_TRIANGLES;
  const turnCos = corners.speeds.length > 0 && cornersMeasured ? edgeTurns(t, p.length / 3, normalXY) : null;
  const speeds = corners.speeds.length;
  const cornerLoss = corners.speeds.map(() => new Float64Array(n));
  // Half the loss of a crossed edge's corner: the segment on the other side of the edge adds the other half.
  // Turns under 8° (cos > 0.99) slow nothing down worth counting.
  const addCorner = (layer: number, cos: number) => {
    for (let k = 0; k < speeds; k++) cornerLoss[k]![layer]! += cornerSeconds(cos, corners.speeds[k]!, corners) / 2;
  };

  const perimeter = new Float64Array(n);
  const area = new Float64Array(n);
  const supportStart = new Float64Array(n + 1); // difference array: overhang area added below its layer
  let overhangArea = 0;
  let segments = 0;
  const bedTolerance = layerHeight / 2;

  if (overhangSin !== null) {
    for (let f = 0; f < t.length; f += 3) {
      const za = p[t[f]! * 3 + 2]! - z0;
      const zb = p[t[f + 1]! * 3 + 2]! - z0;
      const zc = p[t[f + 2]! * 3 + 2]! - z0;
      if (Math.max(za, zb, zc) <= bedTolerance) continue; // resting on the bed
      const ia = t[f]! * 3;
      const ib = t[f + 1]! * 3;
      const ic = t[f + 2]! * 3;
      const ux = p[ib]! - p[ia]!;
      const uy = p[ib + 1]! - p[ia + 1]!;
      const uz = zb - za;
      const vx = p[ic]! - p[ia]!;
      const vy = p[ic + 1]! - p[ia + 1]!;
      const vz = zc - za;
      const nz = orientation * (ux * vy - uy * vx);
      if (nz >= 0) continue;
      const nx = uy * vz - uz * vy;
      const ny = uz * vx - ux * vz;
      const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
      if (len > 0 && -nz / len > overhangSin) {
        const projected = -nz / 2;
        overhangArea += projected;
        // Support under this face fills every layer whose plane lies below the face's centroid.
        const top = Math.min(firstAbove((za + zb + zc) / 3), n);
        supportStart[0]! += projected;
        supportStart[top]! -= projected;
      }
    }
  }

  // The sweep: each triangle is visited for the layers it spans, its corners read once.
  for (let tri = 0; tri < triangles; tri++) {
    const first = firstLayer[tri]!;
    const last = endLayer[tri]!;
    if (last <= first) continue;
    const f = tri * 3;
    const ia = t[f]! * 3;
    const ib = t[f + 1]! * 3;
    const ic = t[f + 2]! * 3;
    const ax = p[ia]! - cx;
    const ay = p[ia + 1]! - cy;
    const az = p[ia + 2]! - z0;
    const bx = p[ib]! - cx;
    const by = p[ib + 1]! - cy;
    const bz = p[ib + 2]! - z0;
    const qx = p[ic]! - cx;
    const qy = p[ic + 1]! - cy;
    const qz = p[ic + 2]! - z0;
    // Material on the left: segments run along ẑ × n = (−n_y, n_x), n the outward normal.
    const tx = -normalXY[tri * 2 + 1]! * orientation;
    const ty = normalXY[tri * 2]! * orientation;
    for (let i = first; i < last; i++) {
      const z = i === n - 1 ? lastPlane : (i + 0.5) * layerHeight;
      // A vertex counts as above the plane when z > plane: shared edges classify alike, so contours close.
      const sa = az > z;
      const sb = bz > z;
      const sc = qz > z;
      if (sa === sb && sb === sc) continue;
      let px: number;
      let py: number;
      let rx: number;
      let ry: number;
      let e1: number; // the two edges crossed, as half-edge indices
      let e2: number;
      if (sa === sb) {
        // c is alone: edges b–c and c–a cross.
        const s1 = (z - qz) / (az - qz);
        const s2 = (z - qz) / (bz - qz);
        px = qx + (ax - qx) * s1;
        py = qy + (ay - qy) * s1;
        rx = qx + (bx - qx) * s2;
        ry = qy + (by - qy) * s2;
        e1 = f + 1;
        e2 = f + 2;
      } else if (sa === sc) {
        const s1 = (z - bz) / (az - bz);
        const s2 = (z - bz) / (qz - bz);
        px = bx + (ax - bx) * s1;
        py = by + (ay - by) * s1;
        rx = bx + (qx - bx) * s2;
        ry = by + (qy - by) * s2;
        e1 = f;
        e2 = f + 1;
      } else {
        // sb === sc: a is alone.
        const s1 = (z - az) / (bz - az);
        const s2 = (z - az) / (qz - az);
        px = ax + (bx - ax) * s1;
        py = ay + (by - ay) * s1;
        rx = ax + (qx - ax) * s2;
        ry = ay + (qy - ay) * s2;
        e1 = f;
        e2 = f + 2;
      }
      if (turnCos) {
        const c1 = turnCos(e1);
        if (c1 <= 0.99) addCorner(i, c1);
        const c2 = turnCos(e2);
        if (c2 <= 0.99) addCorner(i, c2);
      }
      let dx = rx - px;
      let dy = ry - py;
      if (dx * tx + dy * ty < 0) {
        [px, py, rx, ry] = [rx, ry, px, py];
        dx = -dx;
        dy = -dy;
      }
      area[i]! += (px * ry - rx * py) / 2;
      perimeter[i]! += Math.sqrt(dx * dx + dy * dy);
      segments++;
    }
  }

  const supportArea = new Float64Array(n);
  let running = 0;
  for (let i = 0; i < n; i++) {
    area[i] = Math.max(0, area[i]!);
    running += supportStart[i]!;
    supportArea[i] = Math.max(0, running);
  }
  return {
    layers: n,
    height_mm: height,
    perimeter,
    area,
    supportArea,
    cornerLoss,
    cornersMeasured,
    overhangArea,
    sizeX: b.maxX - b.minX,
    sizeY: b.maxY - b.minY,
    segments,
    topReach,
    bottomReach,
    critical,
    bands,
    orientation,
  };
}

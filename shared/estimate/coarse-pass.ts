// The coarse stage's one pass over the triangles (docs/estimate.md, "Coarse to fine"): no sections, no polygons,
// no edge table. Each layer is a bin [i·h, (i+1)·h); each triangle adds to the bins its z-extent spans what it
// contributes there: the part's volume (divergence theorem with the field (x, 0, 0): a layer's section area is
// Σ x̄·Δy over the segments, and both are linear in z within each half of a triangle, so their product integrates
// exactly over a bin from its ends), its lateral area (Σ perimeter × height), the area of faces seen from above and from
// below, and the overhangs that need support. Work: O(triangles + the bins they span), stopped beyond MAX_SEGMENTS.
import type { Mesh } from '../model/mesh.ts';
import { refuse } from './errors.ts';
import { checkMesh, layerCount, MAX_LAYERS, MAX_SEGMENTS } from './layer-sweep.ts';

export interface CoarsePass {
  layers: number;
  height_mm: number;
  sizeX: number;
  sizeY: number;
  /** The part's volume and surface area, mm³ and mm². */
  volume_mm3: number;
  surface_mm2: number;
  /** Per layer bin: the part's volume inside it (mm³), its lateral area Σ|n_xy|·dA (mm²: the mean perimeter
   *  times the bin's height), and the bed-projected area of faces facing up, down, and down beyond the support
   *  angle (off the bed), mm². upShell (downShell): the share of up (down) whose shells lie beyond the walls
   *  (PassOptions.shellReach). */
  volume: Float64Array;
  lateral: Float64Array;
  up: Float64Array;
  down: Float64Array;
  upShell: Float64Array;
  downShell: Float64Array;
  overhang: Float64Array;
}

/** A bin's lower and upper height: the last bin ends at the part's top. */
export const binHeight = (pass: Pick<CoarsePass, 'layers' | 'height_mm'>, i: number, h: number): number =>
  i === pass.layers - 1 ? pass.height_mm - i * h : h;

/** Six times the signed volume of the mesh about its bounding box's centre: its sign is the mesh's orientation. */
function volume6Of(p: Float64Array, t: Uint32Array): number {
  let v = 0;
  for (let f = 0; f < t.length; f += 3) {
    const a = t[f]! * 3;
    const b = t[f + 1]! * 3;
    const c = t[f + 2]! * 3;
    v +=
      p[a]! * (p[b + 1]! * p[c + 2]! - p[b + 2]! * p[c + 1]!) -
      p[a + 1]! * (p[b]! * p[c + 2]! - p[b + 2]! * p[c]!) +
      p[a + 2]! * (p[b]! * p[c + 1]! - p[b + 1]! * p[c]!);
  }
  return v;
}

/** The three vertices' offsets sorted from the lowest to the highest. */
function byHeight(p: Float64Array, a: number, b: number, c: number): [number, number, number] {
  if (p[a + 2]! > p[b + 2]!) [a, b] = [b, a];
  if (p[b + 2]! > p[c + 2]!) [b, c] = [c, b];
  if (p[a + 2]! > p[b + 2]!) [a, b] = [b, a];
  return [a, b, c];
}

/** The triangle being added, its vertices sorted by height (z from the bed, x from the box's centre): ax, az, bx,
 *  bz, cx, cz. A scratch array rather than an object per triangle: 3DBenchy has 225,000 of them. */
const T = new Float64Array(6);
const [AX, AZ, BX, BZ, CX, CZ] = [0, 1, 2, 3, 4, 5];

/** The share of the triangle's widest cut that its cut at height z has (0 at the lowest and highest vertex, 1 at
 *  the middle one); `upper`: z is in the half above the middle vertex. */
function shareAt(z: number, upper: boolean): number {
  return upper ? (T[CZ]! - z) / (T[CZ]! - T[BZ]!) : (z - T[AZ]!) / (T[BZ]! - T[AZ]!);
}

/** The x of the cut's midpoint at height z. */
function midXAt(z: number, upper: boolean, share: number): number {
  const onLong = T[AX]! + ((T[CX]! - T[AX]!) * (z - T[AZ]!)) / (T[CZ]! - T[AZ]!);
  const onShort = upper ? T[CX]! + (T[BX]! - T[CX]!) * share : T[AX]! + (T[BX]! - T[AX]!) * share;
  return (onLong + onShort) / 2;
}

/** Scratch results of piece(): ∫ s dz and ∫ s·x̄ dz. */
let pieceShare = 0;
let pieceMoment = 0;

/** Adds ∫ s dz and ∫ s·x̄ dz over [lo, hi] within one half of the triangle to the scratch results: both factors are
 *  linear there, so ∫ f·g = d/6·(2·f₀g₀ + f₀g₁ + f₁g₀ + 2·f₁g₁) is exact. */
function piece(lo: number, hi: number, upper: boolean): void {
  if (!(hi > lo)) return;
  const s0 = shareAt(lo, upper);
  const s1 = shareAt(hi, upper);
  const x0 = midXAt(lo, upper, s0);
  const x1 = midXAt(hi, upper, s1);
  const d = hi - lo;
  pieceShare += (d * (s0 + s1)) / 2;
  pieceMoment += (d * (2 * s0 * x0 + s0 * x1 + s1 * x0 + 2 * s1 * x1)) / 6;
}

export interface PassOptions {
  layerHeight: number;
  /** A downward face whose −n_z exceeds this needs support (sin of the support angle); null: none collected. */
  overhangSin: number | null;
  /** How far in a surface's shells must reach to pass the walls: the walls' width over the top (bottom) layer
   *  count, mm (Infinity without such shells). A face moving sideways w = h·|n_z|/|n_xy| a layer exposes a ring w
   *  wide a layer, `layers`·w under its shells: the share 1 − reach/w of it lies beyond the walls. */
  shellReach: { top: number; bottom: number };
}

/** The per-bin arrays of a pass, in the order faceWeights() fills its weights. */
const PER_BIN = ['lateral', 'up', 'down', 'upShell', 'downShell', 'overhang'] as const;
const W = new Float64Array(PER_BIN.length);

/** What a face adds to each per-bin array per unit of ∫ s dz (its doubled normal n, its height dz). */
function faceWeights(nx: number, ny: number, nz: number, dz: number, steep: boolean, o: PassOptions): void {
  const xy = Math.sqrt(nx * nx + ny * ny);
  const z = Math.abs(nz);
  // The ring a layer exposes, and the share of it beyond the walls: all of a flat face's.
  const ring = xy > 0 ? (o.layerHeight * z) / xy : Infinity;
  const reach = nz > 0 ? o.shellReach.top : o.shellReach.bottom;
  const beyond = Number.isFinite(reach) ? Math.max(0, 1 - reach / ring) : 0;
  W[0] = xy / dz;
  W[1] = nz > 0 ? z / dz : 0;
  W[2] = nz < 0 ? z / dz : 0;
  W[3] = W[1] * beyond;
  W[4] = W[2] * beyond;
  W[5] = steep ? z / dz : 0;
}

/**
 * One pass over a placed mesh (millimetres, its lowest point on the bed). Throws EstimateError on an invalid, empty
 * or flat mesh, or beyond MAX_LAYERS layers or MAX_SEGMENTS triangle–bin pieces.
 */
export function coarsePass(mesh: Mesh, options: PassOptions): CoarsePass {
  const { layerHeight, overhangSin } = options;
  const box = checkMesh(mesh);
  const height = box.maxZ - box.minZ;
  if (!(height > 0)) refuse('flat_mesh', 'The mesh has no height, so it has no layers.');
  const n = layerCount(height, layerHeight);
  if (n > MAX_LAYERS) {
    refuse('too_many_layers', `The part would have ${n} layers; the estimator handles at most ${MAX_LAYERS}.`);
  }
  const { positions: p, indices: t } = mesh;
  const orientation = volume6Of(p, t) < 0 ? -1 : 1;
  const out: CoarsePass = {
    layers: n,
    height_mm: height,
    sizeX: box.maxX - box.minX,
    sizeY: box.maxY - box.minY,
    volume_mm3: 0,
    surface_mm2: 0,
    volume: new Float64Array(n),
    lateral: new Float64Array(n),
    up: new Float64Array(n),
    down: new Float64Array(n),
    upShell: new Float64Array(n),
    downShell: new Float64Array(n),
    overhang: new Float64Array(n),
  };
  const bins = PER_BIN.map((name) => out[name]);
  const cx = (box.minX + box.maxX) / 2;
  const bed = layerHeight / 2;
  // Bins a flat face tops (facing up) or floors (facing down); a micrometre's tolerance against rounding.
  const binBelow = (z: number) => Math.min(n - 1, Math.max(0, Math.ceil(z / layerHeight - 1e-6) - 1));
  const binAbove = (z: number) => Math.min(n - 1, Math.max(0, Math.floor(z / layerHeight + 1e-6)));
  let pieces = 0;
  for (let f = 0; f < t.length; f += 3) {
    const i0 = t[f]! * 3;
    const i1 = t[f + 1]! * 3;
    const i2 = t[f + 2]! * 3;
    const ux = p[i1]! - p[i0]!;
    const uy = p[i1 + 1]! - p[i0 + 1]!;
    const uz = p[i1 + 2]! - p[i0 + 2]!;
    const wx = p[i2]! - p[i0]!;
    const wy = p[i2 + 1]! - p[i0 + 1]!;
    const wz = p[i2 + 2]! - p[i0 + 2]!;
    const nx = orientation * (uy * wz - uz * wy);
    const ny = orientation * (uz * wx - ux * wz);
    const nz = orientation * (ux * wy - uy * wx);
    const doubleArea = Math.sqrt(nx * nx + ny * ny + nz * nz);
    out.surface_mm2 += doubleArea / 2;
    const [l, m, h] = byHeight(p, i0, i1, i2);
    T[AX] = p[l]! - cx;
    T[AZ] = p[l + 2]! - box.minZ;
    T[BX] = p[m]! - cx;
    T[BZ] = p[m + 2]! - box.minZ;
    T[CX] = p[h]! - cx;
    T[CZ] = p[h + 2]! - box.minZ;
    const az = T[AZ]!;
    const bz = T[BZ]!;
    const cz = T[CZ]!;
    // Support under a face steeper than the support angle, unless it rests on the bed (as layer-sweep.ts).
    const steep = overhangSin !== null && nz < 0 && cz > bed && -nz > overhangSin * doubleArea;
    const dz = cz - az;
    if (!(dz > 1e-9)) {
      // A flat face: no volume or lateral area of its own, its whole projection in one bin (∫ s dz = dz / 2).
      faceWeights(nx, ny, nz, 1, steep, options);
      const i = nz > 0 ? binBelow(az) : binAbove(az);
      for (let k = 0; k < bins.length; k++) bins[k]![i]! += W[k]! / 2;
      continue;
    }
    const first = binAbove(az);
    const last = binBelow(cz);
    pieces += last - first + 1;
    if (pieces > MAX_SEGMENTS) {
      refuse('too_many_layers', `This mesh spans more than ${MAX_SEGMENTS} triangle layers; too many to estimate.`);
    }
    faceWeights(nx, ny, nz, dz, steep, options);
    for (let i = first; i <= last; i++) {
      const lo = Math.max(az, i * layerHeight);
      const hi = i === n - 1 ? cz : Math.min(cz, (i + 1) * layerHeight);
      pieceShare = pieceMoment = 0;
      piece(lo, Math.min(hi, bz), false);
      piece(Math.max(lo, bz), hi, true);
      out.volume[i]! += (nx / dz) * pieceMoment;
      for (let k = 0; k < bins.length; k++) bins[k]![i]! += W[k]! * pieceShare;
    }
  }
  for (let i = 0; i < n; i++) out.volume_mm3 += out.volume[i]!;
  return out;
}

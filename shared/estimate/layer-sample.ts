// Which layers the polygon estimator computes, and how the others are filled in (docs/estimate.md, "Sampled
// layers"). Cutting, offsetting and classifying a layer with Clipper costs milliseconds; the sweep's perimeter and
// area of every layer cost microseconds. So the polygons are worked on a sample that holds every layer where the
// regions can change abruptly, and a stride between:
// - the first layers (the first is all bottom, the ones above carry its shells);
// - where a top or bottom surface may reach the infill area (a face shallow enough to move sideways, over one layer,
//   a good part of the perimeters' width: the sweep's topReach and bottomReach): the exposed layer itself and both
//   sides of the edge of its shells, the first layer they reach and the one beyond;
// - where the section's area or perimeter changes by more than CHANGE_SHARE from one layer to the next: both layers;
// - every SAMPLE_STRIDE-th layer, and the last one.
// Between two computed layers nothing jumps, so each layer in between is filled in from them with the sweep's
// perimeter and area as covariates: walls and loop lengths per mm of perimeter, the section per mm² of the sweep's
// area, the solid share of the infill area, all interpolated linearly in between. No top surface or bridge lies
// there: a surface that could reach the infill area is always computed.
import type { LayerRegions } from './layer-regions.ts';
import type { LayerSweep } from './layer-sweep.ts';
import type { WallPlan } from './motion-time.ts';

/** Parts with at most this many layers compute every layer (a few hundred milliseconds at most). */
export const MIN_SAMPLED_LAYERS = 40;
/** Between the layers the sample must hold, every this-many-th layer is computed. */
export const SAMPLE_STRIDE = 8;
/** A layer whose area or perimeter differs from the next one's by more than this share is computed, with it. */
export const CHANGE_SHARE = 0.05;
/** A surface is cut exactly when its faces may reach this share of the perimeters' width into the section: the
 *  infill area starts a whole width in, so a margin is left for corners and the simplified outline. */
export const REACH_SHARE = 0.95;

export interface SampleParams {
  perimeters: number;
  /** Perimeter line spacing, mm: the infill area starts perimeters × spacing inside the outline. */
  spacing_mm: number;
  top_solid_layers: number;
  bottom_solid_layers: number;
  /** Supports on: how far a layer may reach beyond the one below unsupported, mm; null with supports off. */
  overhang_step_mm: number | null;
}

export interface LayerSample {
  layers: number;
  top_solid_layers: number;
  bottom_solid_layers: number;
  /** Per layer: 1 where its regions and perimeter loops are computed from its polygons. */
  computed: Uint8Array;
  /** Per band b (between layers b − 1 and b, n + 1 of them): 1 where layer b − 1's top surface (layer b's bottom
   *  surface) may reach the infill area: it is cut, and where it does reach it, grown and carried exactly. */
  topCut: Uint8Array;
  bottomCut: Uint8Array;
  /** Per band b: 1 where layer b overhangs layer b − 1 beyond the support angle (supports on). */
  overhang: Uint8Array;
  /** Per layer: 1 where the support column is cut by the part and measured (supports on). */
  supported: Uint8Array;
}

/** The layers to compute, or null when the part has so few layers that every one is. `loops`: the number of loops
 *  (outlines and holes) of each layer's section. */
export function sampleLayers(
  sweep: Pick<LayerSweep, 'layers' | 'area' | 'perimeter' | 'topReach' | 'bottomReach'>,
  loops: ArrayLike<number>,
  q: SampleParams,
): LayerSample | null {
  const n = sweep.layers;
  if (n <= MIN_SAMPLED_LAYERS) return null;
  const s: LayerSample = {
    layers: n,
    top_solid_layers: q.top_solid_layers,
    bottom_solid_layers: q.bottom_solid_layers,
    computed: new Uint8Array(n),
    topCut: new Uint8Array(n + 1),
    bottomCut: new Uint8Array(n + 1),
    overhang: new Uint8Array(n + 1),
    supported: new Uint8Array(n),
  };
  const mark = (i: number) => {
    if (i >= 0 && i < n) s.computed[i] = 1;
  };
  // The first layer is all bottom, the next B − 1 carry its shells; the second is the first at full speed.
  for (let i = 0; i <= Math.max(q.bottom_solid_layers, 1); i++) mark(i);
  for (let i = 0; i < n; i += SAMPLE_STRIDE) mark(i);
  // The last layer's top is its whole section: its shells' edge is computed.
  mark(n - 1);
  addShellEdges(s, n - 1, 'top');
  const reach = REACH_SHARE * Math.max(q.perimeters, 0) * q.spacing_mm;
  for (let b = 0; b <= n; b++) {
    // A hole that opens or closes, or an island that starts, ends, splits or merges, may leave a surface anywhere
    // in the section, whatever the faces' slope: a pit's tip inside the part exposes the layer under it.
    const topology = b > 0 && b < n && loops[b - 1] !== loops[b];
    if (b > 0 && (b === n || topology || sweep.topReach[b]! > reach)) s.topCut[b] = 1;
    if (b < n && (b === 0 || topology || sweep.bottomReach[b]! > reach)) s.bottomCut[b] = 1;
  }
  for (let i = 0; i + 1 < n; i++) {
    if (changes(sweep.area[i]!, sweep.area[i + 1]!) || changes(sweep.perimeter[i]!, sweep.perimeter[i + 1]!)) {
      mark(i);
      mark(i + 1);
    }
  }
  if (q.overhang_step_mm !== null) {
    // The column under an overhang is measured where the sample is and on the layer under each overhang (a face
    // shallower than the support angle), which the overhang is cut from.
    s.supported.set(s.computed);
    for (let b = 1; b < n; b++) {
      if (sweep.bottomReach[b]! > q.overhang_step_mm || loops[b - 1] !== loops[b]) {
        s.overhang[b] = 1;
        s.supported[b - 1] = 1;
      }
    }
  }
  return s;
}

const changes = (a: number, b: number) => Math.abs(a - b) > CHANGE_SHARE * Math.max(a, b);

/** Marks as computed the layers either side of both ends of a surface's shells: for layer j's top surface, the
 *  shells span layers j − T + 1 … j; for its bottom surface j … j + B − 1. sampledRegions calls it for each cut
 *  surface that reaches the infill area. */
export function addShellEdges(s: LayerSample, j: number, kind: 'top' | 'bottom'): void {
  const [first, last] = kind === 'top' ? [j - s.top_solid_layers + 1, j] : [j, j + s.bottom_solid_layers - 1];
  for (const i of [first - 1, first, last, last + 1]) {
    if (i >= 0 && i < s.layers) s.computed[i] = 1;
  }
}

/** The computed layer at or before each layer, and the one at or after it (-1 past the ends). */
function neighbours(mask: Uint8Array): { before: Int32Array; after: Int32Array } {
  const n = mask.length;
  const before = new Int32Array(n);
  const after = new Int32Array(n);
  let last = -1;
  for (let i = 0; i < n; i++) before[i] = last = mask[i] ? i : last;
  last = -1;
  for (let i = n - 1; i >= 0; i--) after[i] = last = mask[i] ? i : last;
  return { before, after };
}

/** x's share of `of`, 0 where `of` is 0. */
const share = (x: number, of: number) => (of > 0 ? x / of : 0);

/**
 * Fills in the layers the sample left out (regions and wall plans are given on the computed layers): each from the
 * computed layers either side, through the sweep's perimeter and area (see the top of this file).
 */
export function fillLayers(
  s: LayerSample,
  sweep: Pick<LayerSweep, 'area' | 'perimeter'>,
  r: LayerRegions,
  plans: (WallPlan | null)[],
): void {
  const { before, after } = neighbours(s.computed);
  const { area: A, perimeter: P } = sweep;
  for (let i = 0; i < s.layers; i++) {
    if (s.computed[i]) continue;
    const a = before[i]!;
    const b = after[i]!;
    const t = (i - a) / (b - a);
    const lerp = (x: number, y: number) => x + (y - x) * t;
    const section = A[i]! * lerp(share(r.section[a]!, A[a]!), share(r.section[b]!, A[b]!));
    const coreOf = (k: number) => r.solid[k]! + r.sparse[k]!;
    // All walls on both sides (a thin wall), all walls here: no infill area from rounding.
    const walls =
      coreOf(a) + coreOf(b) > 0 ? P[i]! * lerp(share(r.walls[a]!, P[a]!), share(r.walls[b]!, P[b]!)) : section;
    const core = Math.max(0, section - walls);
    const solidShare = lerp(share(r.solid[a]!, coreOf(a)), share(r.solid[b]!, coreOf(b)));
    r.section[i] = section;
    r.walls[i] = section - core;
    r.solid[i] = core * Math.min(1, solidShare);
    // All solid on both sides (a top's shells), all solid here.
    r.sparse[i] = r.sparse[a]! + r.sparse[b]! > 0 ? core - r.solid[i]! : 0;
    const pa = plans[a];
    const pb = plans[b];
    if (pa && pb) plans[i] = planBetween(pa, pb, P[a]!, P[b]!, P[i]!, t);
  }
  if (s.supported.some((v) => v === 1)) fillSupport(s.supported, r.support);
}

/** A wall plan between two computed ones: lengths and cruise time per mm of perimeter, what acceleration and the
 *  corners add as is, contours and islands from the nearer layer. */
function planBetween(a: WallPlan, b: WallPlan, pa: number, pb: number, p: number, t: number): WallPlan {
  const lerp = (x: number, y: number) => x + (y - x) * t;
  const cruise = p * lerp(share(a.cruise_s, pa), share(b.cruise_s, pb));
  const near = t <= 0.5 ? a : b;
  return {
    contours: near.contours,
    islands: near.islands,
    length_mm: p * lerp(share(a.length_mm, pa), share(b.length_mm, pb)),
    cruise_s: cruise,
    planned_s: cruise + lerp(a.planned_s - a.cruise_s, b.planned_s - b.cruise_s),
  };
}

/** The support area of the layers whose column was not measured, linear between those where it was. */
function fillSupport(supported: Uint8Array, support: Float64Array): void {
  const { before, after } = neighbours(supported);
  for (let i = 0; i < supported.length; i++) {
    if (supported[i]) continue;
    const a = before[i]!;
    const b = after[i]!;
    if (a < 0 || b < 0) continue;
    support[i] = support[a]! + ((support[b]! - support[a]!) * (i - a)) / (b - a);
  }
}

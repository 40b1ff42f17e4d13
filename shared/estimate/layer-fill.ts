// The layers a sample left out (layer-sample.ts), filled in from the computed layers either side of each. Nothing
// jumps between two computed layers (every jump of the regions is in the sample), so each quantity follows the
// sweep's own per-layer perimeter and area, which every layer has, and only what they do not explain is
// interpolated linearly between the two computed layers:
// - the section per mm² of the sweep's area, the walls per mm of perimeter (a band along the outline);
// - the solid: the ring the shells would hold on a part narrowing or widening steadily (the area the layer T above
//   or B below lacks, less the perimeters' band, thinGuess), plus the computed layers' difference from it; none
//   where the nearer computed layer has none, all where both are all solid;
// - the perimeter loops' length and cruise time per mm of perimeter; what acceleration and the corners add, as is;
//   contours and islands from the nearer computed layer;
// - no top surface or bridge (any that reaches the infill area is on a computed layer); the support area linearly.
// Letting each computed layer stand for the layers nearest to it (weighting it by their count) was measured too:
// on the benchmark's models its estimates strayed up to 0.67 % from every layer's, against 0.16 % for weight here
// (docs/estimate.md, "Sampled layers").
import type { LayerRegions } from './layer-regions.ts';
import type { LayerSample } from './layer-sample.ts';
import type { LayerSweep } from './layer-sweep.ts';
import type { WallPlan } from './motion-time.ts';

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

/** Fills in the regions and wall plans of the layers the sample left out (given on the computed layers). */
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
    r.section[i] = section;
    r.walls[i] = section - core;
    // The solid: what the sweep's areas say the shells hold here, plus the computed layers' difference from it.
    const guess = (k: number) => thinGuess(A, P, k, s);
    const solid = guess(i) + lerp(r.solid[a]! - guess(a), r.solid[b]! - guess(b));
    // All solid on both sides (a top's shells), all solid here; none on the nearer side (where shells begin),
    // none here: whether a layer has solid at all counts like its contours do (a travel to it).
    const near = t <= 0.5 ? a : b;
    r.solid[i] =
      r.sparse[a]! + r.sparse[b]! === 0 ? core : r.solid[near] === 0 ? 0 : Math.max(0, Math.min(core, solid));
    r.sparse[i] = core - r.solid[i]!;
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
    small_loops: near.small_loops,
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

/** The solid a layer's shells would hold on a part that narrows or widens steadily, from the sweep alone: the ring
 *  between the layer and the one T above (B below), as wide as their areas' difference over the perimeter, less
 *  the perimeters' band. */
function thinGuess(A: Float64Array, P: Float64Array, i: number, s: LayerSample): number {
  const n = A.length;
  const p = P[i]!;
  if (!(p > 0)) return 0;
  const above = i + s.top_solid_layers < n ? A[i + s.top_solid_layers]! : 0;
  const below = i - s.bottom_solid_layers >= 0 ? A[i - s.bottom_solid_layers]! : 0;
  const ring = (other: number) => Math.max(0, (A[i]! - other) / p - s.band_mm);
  return Math.min(A[i]!, p * Math.max(ring(above), ring(below)));
}

/**
 * Computes more layers where two consecutive computed layers disagree on something a layer counts rather than
 * measures (its contours, islands and small perimeter loops; whether it has solid or sparse infill at all): the
 * layer halfway between, then halfway again, until the change is pinned to the layer it happens on. `compute`
 * computes a layer's regions and wall plan. Deterministic, and at most log2(SAMPLE_STRIDE) layers per change.
 */
export function refineLayers(
  s: LayerSample,
  r: LayerRegions,
  plans: (WallPlan | null)[],
  compute: (i: number) => void,
): void {
  const differ = (a: number, b: number) => {
    const [pa, pb] = [plans[a] ?? null, plans[b] ?? null];
    const counts = (p: WallPlan | null) => (p ? [p.contours, p.islands, p.small_loops] : []);
    return (
      counts(pa).some((v, k) => v !== counts(pb)[k]) ||
      r.solid[a]! > 0 !== r.solid[b]! > 0 ||
      r.sparse[a]! > 0 !== r.sparse[b]! > 0
    );
  };
  const gaps: [number, number][] = [];
  let last = -1;
  for (let i = 0; i < s.layers; i++) {
    if (!s.computed[i]) continue;
    if (last >= 0 && i - last > 1) gaps.push([last, i]);
    last = i;
  }
  while (gaps.length > 0) {
    const [a, b] = gaps.pop()!;
    if (b - a < 2 || !differ(a, b)) continue;
    const m = (a + b) >> 1;
    compute(m);
    gaps.push([a, m], [m, b]);
  }
}

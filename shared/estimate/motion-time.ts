// Print time of a layer's perimeter loops, planned along the real section contours the way a firmware-style motion
// planner (and PrusaSlicer's normal-mode time estimate) moves the nozzle: every segment gets a trapezoid (or
// triangle) speed profile with the print acceleration, and every vertex a junction speed from the classic jerk
// rule (the velocity change each axis may take without slowing down). Loops start and end at the jerk speed.
//
// Each of the `perimeters` loops of a contour follows the contour itself, its segments scaled so the loop is as
// long as the inset's (contourInsets: a smooth outline's inset by d is 2π·d shorter, a hole's 2π·d longer, a sharp
// spike's more): scaling keeps the turns, which is what the jerk rule reads, and costs no Clipper offset. A loop
// that does not fit (the contour is narrower than its inset) or would overfill the layer's wall area is dropped.
// Cost: O(perimeters × vertices) per layer, on loops already simplified to 12 µm by layer-polygons.ts.
import type { Path64, Paths64 } from 'clipper2-ts';
import { UNITS_PER_MM } from './layer-polygons.ts';

/** PrusaSlicer prints loops no longer than this at small_perimeter_speed (2π·6.5 mm, SMALL_PERIMETER_LENGTH). */
export const SMALL_PERIMETER_MM = 2 * Math.PI * 6.5;
/** Vertices planned per layer at most; beyond it a loop is planned on every k-th vertex (the contour coarsened). */
export const MAX_PLANNED_VERTICES_PER_LAYER = 200_000;

export interface WallMotion {
  perimeters: number;
  /** Line spacing of the perimeters, mm (loop k's centre line lies (k + ½)·spacing inside the contour). */
  spacing_mm: number;
  /** Inner perimeters' speed; the external loop and small loops run at `slow_mm_s`. */
  speed_mm_s: number;
  slow_mm_s: number;
  acceleration_mm_s2: number;
  /** Per-axis velocity change taken without slowing down (machine_max_jerk_x/y). */
  jerk_mm_s: number;
}

export interface WallPlan {
  /** Closed contours of the section (outer contours and holes), and of them the outer ones (islands). */
  contours: number;
  islands: number;
  /** Summed length of the planned loops, mm. */
  length_mm: number;
  /** Their time at constant speed (each loop at its speed), s. */
  cruise_s: number;
  /** Their planned time (acceleration and jerk), s: never below cruise_s. */
  planned_s: number;
  /** Inner loops short enough to run at the external loops' speed (small perimeters). */
  small_loops: number;
}

/** Per-contour scratch buffers, grown on demand and reused across calls (the planner runs per layer). */
let ux = new Float64Array(0);
let uy = new Float64Array(0);
let len = new Float64Array(0);
let junction = new Float64Array(0);
let exit = new Float64Array(0);

function ensure(n: number): void {
  if (ux.length >= n) return;
  const size = Math.max(n, ux.length * 2, 1024);
  ux = new Float64Array(size);
  uy = new Float64Array(size);
  len = new Float64Array(size);
  junction = new Float64Array(size);
  exit = new Float64Array(size);
}

/** Time over `d` mm entering at v0, leaving at v1, cruising at most at vc, accelerating and braking at a. */
export function segmentTime(d: number, v0: number, v1: number, vc: number, a: number): number {
  const accel = (vc * vc - v0 * v0) / (2 * a);
  const brake = (vc * vc - v1 * v1) / (2 * a);
  if (accel + brake <= d) return (vc - v0) / a + (vc - v1) / a + (d - accel - brake) / vc;
  // Never reaches vc: accelerates to the peak where the two ramps meet, then brakes.
  const peak = Math.sqrt(Math.max(v0 * v0, v1 * v1, (2 * a * d + v0 * v0 + v1 * v1) / 2));
  return (peak - v0) / a + (peak - v1) / a;
}

/** The largest change of one axis's velocity between two moves: the difference while the axis keeps its direction,
 *  the larger magnitude when it reverses (the classic jerk rule treats a reversal as a stop and a start). */
function axisJerk(before: number, after: number): number {
  if ((before >= 0 && after >= 0) || (before <= 0 && after <= 0)) return Math.abs(after - before);
  return Math.max(Math.abs(before), Math.abs(after));
}

/** The speed a move may start from or stop at without any axis changing by more than the jerk. */
function safeSpeed(v: number, dx: number, dy: number, jerk: number): number {
  return Math.abs(v * dx) > jerk || Math.abs(v * dy) > jerk ? Math.min(v, jerk) : v;
}

/**
 * Reads a contour (µm) into unit directions and lengths (mm), keeping every `step`-th vertex; returns the segment
 * count (0 for a degenerate contour) and their summed length.
 */
function readContour(path: Path64, step: number): { segments: number; length: number } {
  const n = path.length;
  let m = 0;
  let total = 0;
  ensure(Math.ceil(n / step) + 1);
  for (let i = 0; i < n; i += step) {
    const p = path[i]!;
    const q = path[Math.min(i + step, n) % n]!;
    const dx = (q.x - p.x) / UNITS_PER_MM;
    const dy = (q.y - p.y) / UNITS_PER_MM;
    const d = Math.hypot(dx, dy);
    if (d === 0) continue;
    ux[m] = dx / d;
    uy[m] = dy / d;
    len[m] = d;
    total += d;
    m++;
  }
  return { segments: m, length: total };
}

/** Junction speeds at every vertex (vertex i joins segment i − 1 to segment i) for a loop printed at v. */
function junctionSpeeds(m: number, v: number, jerk: number): void {
  for (let i = 0; i < m; i++) {
    const j = i === 0 ? m - 1 : i - 1;
    const worst = Math.max(axisJerk(v * ux[j]!, v * ux[i]!), axisJerk(v * uy[j]!, v * uy[i]!));
    let vj = worst > jerk ? (v * jerk) / worst : v;
    // When the jerk forces both moves down to about their start/stop speed anyway, the planner takes that speed.
    const before = safeSpeed(v, ux[j]!, uy[j]!, jerk);
    const after = safeSpeed(v, ux[i]!, uy[i]!, jerk);
    if (before > 0.99 * vj && after > 0.99 * vj) vj = after;
    junction[i] = vj;
  }
}

/**
 * Planned time of one closed loop of m segments (in the buffers), each `scale` × its length, at speed v: it starts
 * and stops at the seam, placed at the vertex with the lowest junction speed (where stopping costs least).
 */
function loopTime(m: number, scale: number, v: number, a: number, jerk: number): number {
  let seam = 0;
  for (let i = 1; i < m; i++) if (junction[i]! < junction[seam]!) seam = i;
  const rest = Math.min(v, jerk);
  // Backward pass: the speed leaving each segment must let the ones after it brake in time.
  let next = rest;
  for (let k = m - 1; k >= 0; k--) {
    const i = (seam + k) % m;
    exit[i] = next;
    const entryLimit = k === 0 ? rest : junction[i]!;
    next = Math.min(entryLimit, Math.sqrt(next * next + 2 * a * len[i]! * scale));
  }
  // Forward pass: and what each segment can reach from its entry speed; then the profile's time.
  let entry = rest;
  let t = 0;
  for (let k = 0; k < m; k++) {
    const i = (seam + k) % m;
    const d = len[i]! * scale;
    const out = Math.min(exit[i]!, Math.sqrt(entry * entry + 2 * a * d));
    t += segmentTime(d, entry, out, v, a);
    entry = out;
  }
  return t;
}

/** Miter joins longer than this many insets are cut (a spike's tip is lost, a slot's end is not extended far). */
const MITER_LIMIT = 2;

/**
 * The contour's signed area (mm², positive for outer contours) and the lengths of its insets by `insets` mm (the
 * loops' centre lines). Offsetting to the material's side by d moves each vertex along its miter: a vertex turning
 * by φ towards the material shortens the loop by 2·d·tan(φ/2), one turning away lengthens it as much, so a smooth
 * outline loses 2π·d and a sharp spike loses more. The shortening at a vertex is capped by its shorter edge.
 */
function contourInsets(path: Path64, insets: readonly number[]): { area: number; length: number; lengths: number[] } {
  const n = path.length;
  let twiceArea = 0;
  let length = 0;
  const change = insets.map(() => 0);
  for (let i = 0; i < n; i++) {
    const a = path[(i + n - 1) % n]!;
    const b = path[i]!;
    const c = path[(i + 1) % n]!;
    twiceArea += (a.x + b.x) * (b.y - a.y);
    const l1 = Math.hypot(b.x - a.x, b.y - a.y) / UNITS_PER_MM;
    const l2 = Math.hypot(c.x - b.x, c.y - b.y) / UNITS_PER_MM;
    length += l1;
    if (l1 === 0 || l2 === 0) continue;
    const cross = ((b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)) / (l1 * l2 * UNITS_PER_MM * UNITS_PER_MM);
    const dot = ((b.x - a.x) * (c.x - b.x) + (b.y - a.y) * (c.y - b.y)) / (l1 * l2 * UNITS_PER_MM * UNITS_PER_MM);
    // tan(φ/2) = sin φ / (1 + cos φ), kept within the miter limit.
    const halfTan = Math.max(-MITER_LIMIT, Math.min(MITER_LIMIT, cross / Math.max(1e-9, 1 + dot)));
    for (let k = 0; k < insets.length; k++) {
      const shorter = 2 * insets[k]! * halfTan;
      change[k]! -= shorter > 0 ? Math.min(shorter, l1, l2) : shorter;
    }
  }
  return {
    area: twiceArea / 2 / (UNITS_PER_MM * UNITS_PER_MM),
    length,
    lengths: change.map((d) => length + d),
  };
}

/** How far inside an outer contour of this area and length the material reaches: the inset distance at which
 *  the offset's area, A − L·d + π·d², first vanishes (a circle's radius, half a thin strip's width). */
function reach(area: number, length: number): number {
  const disc = length * length - 4 * Math.PI * area;
  return (length - Math.sqrt(Math.max(0, disc))) / (2 * Math.PI);
}

/**
 * The perimeter loops of one layer's section (outer contours counter-clockwise, holes clockwise, µm), planned.
 * `maxArea`: the layer's wall area, mm²; loops beyond it (innermost first) are not planned, so a wall between a
 * hole and the outside gets only the loops that fit in it.
 */
export function planLayerWalls(section: Paths64, w: WallMotion, maxArea = Infinity): WallPlan {
  const plan: WallPlan = {
    contours: section.length,
    islands: 0,
    length_mm: 0,
    cruise_s: 0,
    planned_s: 0,
    small_loops: 0,
  };
  let vertices = 0;
  for (const path of section) vertices += path.length;
  const step = Math.max(1, Math.ceil(vertices / MAX_PLANNED_VERTICES_PER_LAYER));
  // Loops per contour and inset, decided first so the innermost can be dropped when they overfill the walls.
  const insets = Array.from({ length: w.perimeters }, (_, k) => (k + 0.5) * w.spacing_mm);
  const contours = section.map((path) => {
    const { area, length, lengths: all } = contourInsets(path, insets);
    if (area > 0) plan.islands++;
    const lengths: number[] = [];
    for (let k = 0; k < w.perimeters; k++) {
      // A loop needs its whole line inside the material (holes: the outer contours bound them).
      if (area > 0 && insets[k]! + w.spacing_mm / 2 > reach(area, length) + 1e-9) break;
      if (all[k]! <= 0) break;
      lengths.push(all[k]!);
    }
    return { path, lengths };
  });
  let loops = 0;
  for (const c of contours) loops = Math.max(loops, c.lengths.length);
  const areaOf = (count: number) =>
    contours.reduce((sum, c) => sum + c.lengths.slice(0, count).reduce((s, l) => s + l, 0), 0) * w.spacing_mm;
  while (loops > 1 && areaOf(loops) > maxArea) loops--;
  for (const c of contours) {
    if (c.lengths.length === 0) continue;
    const { segments: m, length: planned } = readContour(c.path, step);
    if (m < 2 || planned <= 0) continue;
    let plannedSpeed = -1;
    for (let k = 0; k < Math.min(loops, c.lengths.length); k++) {
      const loopLength = c.lengths[k]!;
      const v = k === 0 || loopLength <= SMALL_PERIMETER_MM ? w.slow_mm_s : w.speed_mm_s;
      if (k > 0 && loopLength <= SMALL_PERIMETER_MM) plan.small_loops++;
      if (v !== plannedSpeed) {
        junctionSpeeds(m, v, w.jerk_mm_s);
        plannedSpeed = v;
      }
      plan.length_mm += loopLength;
      plan.cruise_s += loopLength / v;
      plan.planned_s += loopTime(m, loopLength / planned, v, w.acceleration_mm_s2, w.jerk_mm_s);
    }
  }
  return plan;
}

/** A retraction and its deretraction: 0.8 mm each way at 35 mm/s (the default material's; the material's own
 *  retraction is not part of the estimator's settings), about the 0.09 s the slicer's estimate gives them. */
export const RETRACTION_PAIR_S = 2 * segmentTime(0.8, 1.5, 1.5, 35, 1250);

/** A retraction of `length` mm and its deretraction at their speeds, and a lift of `lift` mm up and down at `zSpeed`
 *  around the travel (a shop's own config: docs/estimate.md, "A shop's own speeds"). */
export function retractionPairSeconds(
  length: number,
  speeds: { retract: number; deretract: number; acceleration: number },
  lift: number,
  zSpeed: number,
): number {
  const filament =
    length > 0
      ? segmentTime(length, 0, 0, speeds.retract, speeds.acceleration) +
        segmentTime(length, 0, 0, speeds.deretract, speeds.acceleration)
      : 0;
  return filament + (lift > 0 ? (2 * lift) / zSpeed : 0);
}

/** A travel of `distance` mm from rest to rest at speed v and acceleration a, with a retraction around it. */
export function hopTime(distance: number, v: number, a: number, retraction = RETRACTION_PAIR_S): number {
  return retraction + (distance > 0 ? segmentTime(distance, 0, 0, v, a) : 0);
}

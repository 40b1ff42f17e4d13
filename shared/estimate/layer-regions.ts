// PrusaSlicer's regions of every layer, from the section polygons with real offsets and differences (Clipper2):
// - walls: the band between the section and its inset by `perimeters` line spacings, plus whatever is left inside
//   narrower than one line (Arachne's thin walls and gap fill fill it: thin_walls and gap_fill_enabled are on);
// - top and bottom shells: what the layers above (below) do not cover, opened by a tenth of a line (PrusaSlicer's
//   detect_surfaces_type) and grown by EXTERNAL_INFILL_MARGIN into the infill area, then carried down
//   `top_solid_layers` (up `bottom_solid_layers`) layers, so shallow slopes get their shells;
// - bridges: bottom surfaces above the first layer that rest on air, printed with round lines one nozzle wide;
// - sparse infill: the rest of the inset (solid_infill_below_area is 0 in the base config: no small-island rule);
// - supports: overhangs beyond the threshold angle, less the bridges (held on two sides: bridges.ts), carried down
//   until they land on the bed or on the part below.
import { difference, EndType, FillRule, inflatePaths, intersect, JoinType, type Paths64 } from 'clipper2-ts';
import { type BridgeRule, SUPPORT_MARGIN_MM, withoutBridges } from './bridges.ts';
import { UNITS_PER_MM } from './layer-polygons.ts';

/** PrusaSlicer 2.5 grows top and bottom surfaces this far into the infill beneath them (EXTERNAL_INFILL_MARGIN). */
export const EXTERNAL_INFILL_MARGIN_MM = 3;
/** Area units: µm² → mm². */
const MM2 = UNITS_PER_MM * UNITS_PER_MM;

export interface RegionParams {
  layer_height_mm: number;
  perimeters: number;
  /** Perimeter and infill line spacing, mm. */
  spacing_mm: number;
  /** External perimeter width, mm (surfaces are opened by a tenth of it). */
  external_width_mm: number;
  top_solid_layers: number;
  bottom_solid_layers: number;
  /** Support on: the overhang allowed per layer (h / tan(threshold)), mm; null with supports off. */
  overhang_step_mm: number | null;
  /** Gap between support and the part in XY, mm. */
  support_gap_mm: number;
  /** Which overhangs `dont_support_bridges` leaves unsupported (bridges.ts): the slicer version's rule (default
   *  `edges`, PrusaSlicer 2.6 and later). */
  bridge_rule?: BridgeRule;
}

/** Areas per layer, mm². */
export interface LayerRegions {
  section: Float64Array;
  walls: Float64Array;
  /** Solid infill (top and bottom shells, bridges included). */
  solid: Float64Array;
  /** Of the solid: the layer's own top surface (printed slower, with thinner lines). */
  top: Float64Array;
  /** Of the solid: bottom surfaces resting on air above the first layer (bridge flow). */
  bridge: Float64Array;
  sparse: Float64Array;
  support: Float64Array;
}

export const area = (paths: Paths64): number => {
  let a = 0;
  for (const path of paths) {
    let s = 0;
    for (let i = 0, j = path.length - 1; i < path.length; j = i++) {
      s += (path[j]!.x + path[i]!.x) * (path[i]!.y - path[j]!.y);
    }
    a += s / 2;
  }
  return a / MM2;
};
export const offset = (paths: Paths64, mm: number): Paths64 =>
  paths.length === 0 ? [] : inflatePaths(paths, mm * UNITS_PER_MM, JoinType.Miter, EndType.Polygon, 3);
export const opening = (paths: Paths64, mm: number): Paths64 => offset(offset(paths, -mm), mm);
export const minus = (a: Paths64, b: Paths64): Paths64 =>
  a.length === 0 ? [] : b.length === 0 ? a : difference(a, b, FillRule.NonZero);
export const and = (a: Paths64, b: Paths64): Paths64 =>
  a.length === 0 || b.length === 0 ? [] : intersect(a, b, FillRule.NonZero);
/** (∪ parts) ∩ b in one Clipper pass: every part is a Clipper result (outer loops counter-clockwise, holes
 *  clockwise), so each one adds 0 or 1 to the winding number and the non-zero rule reads the concatenation as their
 *  union. Saves a union per layer. */
export const unionAnd = (parts: Paths64[], b: Paths64): Paths64 => and(parts.flat(), b);
/** (a ∪ b) − c, the union done by the difference's non-zero fill when both are non-empty (Clipper results, as above). */
export const unionMinus = (a: Paths64, b: Paths64, c: Paths64): Paths64 => {
  if (a.length === 0 || b.length === 0) return minus(a.length === 0 ? b : a, c);
  return difference([...a, ...b], c, FillRule.NonZero);
};

/** Regions of n layers, all zero. */
export function emptyRegions(n: number): LayerRegions {
  const zeros = () => new Float64Array(n);
  return {
    section: zeros(),
    walls: zeros(),
    solid: zeros(),
    top: zeros(),
    bridge: zeros(),
    sparse: zeros(),
    support: zeros(),
  };
}

/** The regions of every layer from its section polygons (µm, simplified, non-overlapping: layerPolygons). */
export function layerRegions(raw: Paths64[], q: RegionParams): LayerRegions {
  const n = raw.length;
  const sections = raw;
  const band = q.perimeters * q.spacing_mm;
  const out = emptyRegions(n);
  // A prism repeats its section layer after layer: such a layer reuses the previous one's offsets, and nothing is
  // exposed between the two (the same geometry gives the same figures, without the Clipper work).
  const repeated = sections.map((s, i) => i > 0 && samePaths(s, sections[i - 1]!));
  // Infill area of each layer: the inset past the walls, without what is narrower than a line (left to the walls).
  const cores: Paths64[] = [];
  for (let i = 0; i < n; i++) {
    const s = sections[i]!;
    cores.push(repeated[i] ? cores[i - 1]! : offset(offset(s, -band - q.spacing_mm / 2), q.spacing_mm / 2));
  }
  const open = q.external_width_mm / 10;
  // Exposed top (bottom) surface of each layer, grown into its infill area.
  const exposed = (s: Paths64, neighbour: Paths64, same: boolean) => (same ? [] : opening(minus(s, neighbour), open));
  const tops = sections.map((s, i) => grow(exposed(s, sections[i + 1] ?? [], repeated[i + 1] === true), cores[i]!));
  const bottoms = sections.map((s, i) => grow(i === 0 ? s : exposed(s, sections[i - 1]!, repeated[i]!), cores[i]!));
  for (let i = 0; i < n; i++) {
    const core = cores[i]!;
    out.section[i] = area(sections[i]!);
    const coreArea = area(core);
    out.walls[i] = Math.max(0, out.section[i]! - coreArea);
    const shells: Paths64[] = [];
    // Shells carry both the surfaces as sliced and as grown (discover_horizontal_shells): on a dome, an upper
    // layer's edge sliver lies inside the infill area of the layers below it.
    for (let k = 0; k < q.top_solid_layers && i + k < n; k++) shells.push(tops[i + k]!.surface, tops[i + k]!.grown);
    for (let k = 0; k < q.bottom_solid_layers && i - k >= 0; k++) {
      shells.push(bottoms[i - k]!.surface, bottoms[i - k]!.grown);
    }
    const solid = unionAnd(shells, core);
    out.solid[i] = Math.min(coreArea, area(solid));
    out.top[i] = Math.min(out.solid[i]!, area(tops[i]!.inside));
    out.bridge[i] = i > 0 ? Math.min(out.solid[i]! - out.top[i]!, area(bottoms[i]!.inside)) : 0;
    out.sparse[i] = Math.max(0, coreArea - out.solid[i]!);
  }
  if (q.overhang_step_mm !== null) supportColumns(sections, repeated, q, out.support);
  return out;
}

/** A top or bottom surface, its part inside the layer's infill area (`core`) and that part grown into it. */
export interface Surface {
  surface: Paths64;
  /** Also the layer's top (bridge) area. */
  inside: Paths64;
  grown: Paths64;
}

/** Only the part of a surface inside the infill area is grown (a slope's sliver under the perimeters is not):
 *  PrusaSlicer grows the fill surfaces, not the slices ("growing the slices puts too much solid infill inside
 *  nearly-vertical slopes"). */
export function grow(surface: Paths64, core: Paths64): Surface {
  const inside = and(surface, core);
  const grown = inside.length === 0 ? [] : and(offset(inside, EXTERNAL_INFILL_MARGIN_MM), core);
  return { surface, inside, grown };
}

/** Whether two sections are the same loops, point for point (a repeated layer of a prism). */
export function samePaths(a: Paths64, b: Paths64): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) {
    const pa = a[k]!;
    const pb = b[k]!;
    if (pa.length !== pb.length) return false;
    for (let j = 0; j < pa.length; j++) if (pa[j]!.x !== pb[j]!.x || pa[j]!.y !== pb[j]!.y) return false;
  }
  return true;
}

/** Support area per layer: each layer's overhang (what reaches further out than `overhang_step_mm` beyond the layer
 *  below) carried down layer by layer, cut where the part is (less the XY gap), so it lands on the part below. */
function supportColumns(sections: Paths64[], repeated: boolean[], q: RegionParams, support: Float64Array): void {
  let column: Paths64 = [];
  for (let i = sections.length - 1; i >= 1; i--) {
    // A layer that repeats the one below overhangs nothing, and the column above it is already cut by that part.
    if (repeated[i]) {
      support[i - 1] = support[i]!;
      continue;
    }
    const overhang = overhangOf(sections[i]!, sections[i - 1]!, q);
    column = unionMinus(column, overhang, offset(sections[i - 1]!, q.support_gap_mm));
    support[i - 1] = area(column);
  }
}

/** What `upper` needs supported beyond `lower`, the layer under it: what reaches further out than the overhang step,
 *  less its bridges (dont_support_bridges, bridges.ts). */
export function overhangOf(upper: Paths64, lower: Paths64, q: RegionParams): Paths64 {
  const beyond = minus(upper, offset(lower, q.overhang_step_mm!));
  if (beyond.length === 0) return [];
  // Opened by a tenth of a line only (numerical slivers): a slope's overhang is a thin sliver on every layer.
  const reach = opening(beyond, q.external_width_mm / 10);
  // The perimeters' width (half the external line, its spacing, the inner loops' spacings: what 2.6+ calls the
  // shell) plus the margin the contacts are grown by: the edge band `edges` keeps supported.
  const edge = q.external_width_mm / 2 + Math.max(0, q.perimeters) * q.spacing_mm + SUPPORT_MARGIN_MM;
  return withoutBridges(reach, lower, q.bridge_rule ?? 'edges', upper, edge);
}

// PrusaSlicer's `dont_support_bridges` (on: the base config leaves its default). Two rules, by slicer version:
// - 2.5 (`anchored`): an overhang that the layer below holds on two sides, or all around, is printed as a bridge
//   across the gap and gets no support under it; one held on one side only (a shelf, a wing of a T) is supported.
//   Each overhang island is judged by its anchors: where the island, grown by ANCHOR_MM, lands on the layer below.
//   Two separate anchors, or one that rings the island, make it a bridge.
// - 2.6 and later (`edges`): every bottom surface over air gets a bridge direction, held or not, so the infill area
//   of any overhang counts as bridged and only its edge is supported: the band of the overhang within the
//   perimeters' width of the outline, widened by the 1.5 mm support margin the contacts are grown by. A piece of
//   that band held at both ends (a straight perimeter across a gap) is a bridge too and gets none.
import {
  area,
  difference,
  EndType,
  FillRule,
  inflatePaths,
  intersect,
  JoinType,
  type Paths64,
  union,
} from 'clipper2-ts';
import { UNITS_PER_MM } from './layer-polygons.ts';

/** How far beyond its edge an overhang looks for the layer below it, mm: about two line widths. */
export const ANCHOR_MM = 1;
/** An anchor smaller than this holds nothing (a corner grazing the layer below), mm². */
const MIN_ANCHOR_MM2 = 0.5;
const MM2 = UNITS_PER_MM * UNITS_PER_MM;
/** Signed area of one loop, mm²: outer loops positive, holes negative (Clipper's orientation). */
const signedArea = (path: Paths64[number]): number => area(path) / MM2;

/** Whether an island (one outer loop) is held by the layer below on two sides or all around. */
function isBridge(island: Paths64, below: Paths64): boolean {
  const grown = inflatePaths(island, ANCHOR_MM * UNITS_PER_MM, JoinType.Miter, EndType.Polygon, 3);
  const anchors = intersect(grown, below, FillRule.NonZero).filter((p) => Math.abs(signedArea(p)) >= MIN_ANCHOR_MM2);
  const outer = anchors.filter((p) => signedArea(p) > 0).length;
  const holes = anchors.length - outer;
  return outer >= 2 || (outer === 1 && holes >= 1);
}

/** Which slicer's bridge rule to follow (see the top of this file). */
export type BridgeRule = 'anchored' | 'edges';
/** PrusaSlicer grows support contacts by this much (SUPPORT_MATERIAL_MARGIN), mm. */
export const SUPPORT_MARGIN_MM = 1.5;

/** The bridge rule of a PrusaSlicer version ("2.9.2"): `anchored` before 2.6, `edges` from 2.6 on. */
export function bridgeRuleOf(version: string): BridgeRule {
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (!m) return 'edges';
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major < 2 || (major === 2 && minor < 6) ? 'anchored' : 'edges';
}

/** The overhang less its bridges: what PrusaSlicer supports when `dont_support_bridges` is on. `section` is the
 *  layer's own section and `edgeMm` the supported band's width (perimeters plus the support margin) for `edges`. */
export function withoutBridges(
  overhang: Paths64,
  below: Paths64,
  rule: BridgeRule = 'anchored',
  section: Paths64 = [],
  edgeMm = 0,
): Paths64 {
  if (overhang.length === 0 || below.length === 0) return overhang;
  if (rule === 'edges') {
    const inner = inflatePaths(section, -edgeMm * UNITS_PER_MM, JoinType.Miter, EndType.Polygon, 3);
    const band = inner.length === 0 ? overhang : difference(overhang, inner, FillRule.NonZero);
    return band.length === 0 ? [] : notBridged(band, below, edgeMm);
  }
  return notBridged(overhang, below, 0);
}

/** Whether an island is a straight strip (no wider than `widthMm` along its length): a band along one straight
 *  edge, not one that turns a corner (a shelf's U, a free end's three sides). */
function isStraight(island: Paths64[number], widthMm: number): boolean {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const p of island)
    [x0, y0, x1, y1] = [Math.min(x0, p.x), Math.min(y0, p.y), Math.max(x1, p.x), Math.max(y1, p.y)];
  const length = Math.hypot(x1 - x0, y1 - y0) / UNITS_PER_MM;
  return signedArea(island) <= STRAIGHT_SLACK * widthMm * length;
}
/** A strip's area is at most its width × its bounding box's diagonal; a corner adds its width again at least. */
const STRAIGHT_SLACK = 1.2;

/** The islands of `overhang` that are not bridges: held on two sides or all around, and (with `stripMm` > 0, the
 *  edge bands of `edges`) a straight strip, as a perimeter across a gap is. */
function notBridged(overhang: Paths64, below: Paths64, stripMm: number): Paths64 {
  // Islands are the outer loops; a hole inside an overhang island (rare) stays with the island it lies in.
  const islands = union(overhang, FillRule.NonZero);
  const outers = islands.filter((p) => signedArea(p) > 0);
  const kept = outers.filter((p) => !(isBridge([p], below) && (stripMm === 0 || isStraight(p, stripMm))));
  // With holes, each outer loop was judged alone: cut the holes back out of what is kept.
  if (outers.length === islands.length || kept.length === 0) return kept;
  return intersect(kept, islands, FillRule.NonZero);
}

// PrusaSlicer's `dont_support_bridges` (on: the base config leaves its default): an overhang that the layer below
// holds on two sides, or all around, is printed as a bridge across the gap and gets no support under it; one held
// on one side only (a shelf, a wing of a T) is supported. Each overhang island is judged by its anchors: where the
// island, grown by ANCHOR_MM, lands on the layer below. Two separate anchors, or one that rings the island, make
// it a bridge.
import { area, EndType, FillRule, inflatePaths, intersect, JoinType, type Paths64, union } from 'clipper2-ts';
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

/** The overhang less its bridges: what PrusaSlicer supports when `dont_support_bridges` is on. */
export function withoutBridges(overhang: Paths64, below: Paths64): Paths64 {
  if (overhang.length === 0 || below.length === 0) return overhang;
  // Islands are the outer loops; a hole inside an overhang island (rare) stays with the island it lies in.
  const islands = union(overhang, FillRule.NonZero);
  const outers = islands.filter((p) => signedArea(p) > 0);
  const kept = outers.filter((p) => !isBridge([p], below));
  // With holes, each outer loop was judged alone: cut the holes back out of what is kept.
  if (outers.length === islands.length || kept.length === 0) return kept;
  return intersect(kept, islands, FillRule.NonZero);
}

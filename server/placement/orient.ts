// Finding an orientation in which a model fits a build volume (docs/placement.md). A model that fits as uploaded
// keeps its orientation (the designer's choice of what rests on the plate). Otherwise it is turned about Z on the
// plate, keeping its up direction; failing that it is laid down on another side of its bounding box, the side with
// the most flat area first (lying flat on its largest face), then the lowest. On each side, turns of 0° and 90°
// are tried before the other whole degrees, which fit long parts diagonally.
import { EndType, inflatePathsD, JoinType } from 'clipper2-ts';
import type { FlatAreas, ModelShape } from '../mesh/index.ts';

type P = [number, number];
export type Side = keyof FlatAreas;

export interface Volume {
  x: number;
  y: number;
  z: number;
}

/** Degrees about the plate's X, then Y, then Z axis (PrusaSlicer's --rotate-x, --rotate-y, --rotate). */
export interface Rotation {
  x: number;
  y: number;
  z: number;
}

export type OrientationName = 'as_uploaded' | 'turned' | 'laid_down';

export interface Orientation {
  orientation: OrientationName;
  rotation: Rotation;
  /** The side of the model's bounding box that rests on the plate. */
  down: Side;
  /** Size after placement, mm. */
  dimensions: Volume;
}

/** What the search reads of a file: its canonical bounding box and hulls (null shape: files stored before it). */
export interface ShapeFacts {
  min: [number, number, number];
  max: [number, number, number];
  footprint: P[];
  shape: ModelShape | null;
}

export interface Resting {
  side: Side;
  tilt: { x: number; y: number };
  height: number;
  outline: P[];
}

const TOLERANCE_MM = 1e-6;
/**
 * PrusaSlicer places a part on the bed only with room around its slanted edges: it treats the outline as grown
 * with mitred corners, and the bed as grown by as much, so an axis-aligned part may touch the bed's edges while a
 * turned one needs more room. Measured on the 250 × 210 mm plate with 8 mm bars turned 3–40°, every refusal and
 * every success fits a growth between 0.65 and 1.11 mm on 2.5 ("Objects could not fit on the bed") and between
 * 2.99 and 3.20 mm on 2.9 ("All objects are outside of the print volume"); 3.5 mm keeps clear of both.
 */
export const ARRANGE_GROWTH_MM = 3.5;

/** The rotation (degrees about X, then Y) that brings each side of the bounding box down onto the plate. */
export const SIDE_TILTS: Record<Side, { x: number; y: number }> = {
  '-z': { x: 0, y: 0 },
  '+z': { x: 180, y: 0 },
  '-x': { x: 0, y: -90 },
  '+x': { x: 0, y: 90 },
  '-y': { x: 90, y: 0 },
  '+y': { x: -90, y: 0 },
};

/** Each side laid down: its height and its outline on the plate (the points turned by SIDE_TILTS). */
export function restings(f: ShapeFacts, factor: number): Resting[] {
  const size = ([0, 1, 2] as const).map((k) => (f.max[k] - f.min[k]) * factor);
  const rect = (a: 0 | 1 | 2, b: 0 | 1 | 2): P[] => [
    [f.min[a], f.min[b]],
    [f.max[a], f.min[b]],
    [f.max[a], f.max[b]],
    [f.min[a], f.max[b]],
  ];
  const xy = f.footprint.length ? f.footprint : rect(0, 1);
  const xz = f.shape?.xz ?? rect(0, 2);
  const yz = f.shape?.yz ?? rect(1, 2);
  const map = (pts: P[], fn: (p: P) => P) => pts.map((p) => fn([p[0] * factor, p[1] * factor]));
  return [
    { side: '-z', tilt: SIDE_TILTS['-z'], height: size[2]!, outline: map(xy, (p) => p) },
    { side: '+z', tilt: SIDE_TILTS['+z'], height: size[2]!, outline: map(xy, ([x, y]) => [x, -y]) },
    { side: '-x', tilt: SIDE_TILTS['-x'], height: size[0]!, outline: map(yz, ([y, z]) => [-z, y]) },
    { side: '+x', tilt: SIDE_TILTS['+x'], height: size[0]!, outline: map(yz, ([y, z]) => [z, y]) },
    { side: '-y', tilt: SIDE_TILTS['-y'], height: size[1]!, outline: map(xz, ([x, z]) => [x, -z]) },
    { side: '+y', tilt: SIDE_TILTS['+y'], height: size[1]!, outline: map(xz, ([x, z]) => [x, z]) },
  ];
}

/** Extents of an outline turned by `deg` counter-clockwise about Z. */
export function extentsAt(outline: P[], deg: number): { x: number; y: number } {
  const a = (deg * Math.PI) / 180;
  const c = Math.cos(a),
    s = Math.sin(a);
  let minU = Infinity,
    maxU = -Infinity,
    minV = Infinity,
    maxV = -Infinity;
  for (const [px, py] of outline) {
    const u = px * c - py * s,
      v = px * s + py * c;
    if (u < minU) minU = u;
    if (u > maxU) maxU = u;
    if (v < minV) minV = v;
    if (v > maxV) maxV = v;
  }
  return { x: maxU - minU, y: maxV - minV };
}

const TURNS = [0, 90, ...Array.from({ length: 180 }, (_, d) => d).filter((d) => d !== 0 && d !== 90)];

/** The first turn about Z (0°, 90°, then each whole degree) at which the outline fits the plate. */
export function fittingTurn(
  outline: P[],
  plate: { x: number; y: number },
): { deg: number; x: number; y: number } | null {
  const grown = grownOutline(outline);
  const g = 2 * ARRANGE_GROWTH_MM;
  for (const deg of TURNS) {
    const e = extentsAt(outline, deg);
    const room = grown ? extentsAt(grown, deg) : { x: e.x + g, y: e.y + g };
    if (room.x <= plate.x + g + TOLERANCE_MM && room.y <= plate.y + g + TOLERANCE_MM) return { deg, ...e };
  }
  return null;
}

/** The outline grown by ARRANGE_GROWTH_MM with mitred corners; null for an outline with no area (a line, a point). */
function grownOutline(outline: P[]): P[] | null {
  const [grown] = inflatePathsD(
    [outline.map(([x, y]) => ({ x, y }))],
    ARRANGE_GROWTH_MM,
    JoinType.Miter,
    EndType.Polygon,
    2,
    6,
  );
  return grown && grown.length >= 3 ? grown.map((p): P => [p.x, p.y]) : null;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Where the model goes, or null when it fits the volume in no orientation. `factor` scales the canonical mesh. */
export function orient(f: ShapeFacts, factor: number, volume: Volume): Orientation | null {
  const flat = f.shape?.flat;
  const candidates = restings(f, factor)
    .filter((r) => r.height <= volume.z + TOLERANCE_MM)
    .map((r) => ({ r, turn: fittingTurn(r.outline, volume) }))
    .filter((c): c is { r: Resting; turn: NonNullable<typeof c.turn> } => c.turn !== null);
  const upright = candidates.find((c) => c.r.side === '-z');
  const pick =
    upright ??
    candidates.sort((a, b) => (flat ? round(flat[b.r.side]) - round(flat[a.r.side]) : 0) || a.r.height - b.r.height)[0];
  if (!pick) return null;
  const name: OrientationName = pick.r.side !== '-z' ? 'laid_down' : pick.turn.deg === 0 ? 'as_uploaded' : 'turned';
  return {
    orientation: name,
    rotation: { ...pick.r.tilt, z: pick.turn.deg },
    down: pick.r.side,
    dimensions: { x: round(pick.turn.x), y: round(pick.turn.y), z: round(pick.r.height) },
  };
}

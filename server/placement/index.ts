// Placement of a stored file on a printer: its unit and scale, the orientation it is printed in, its size after
// both, and the transform the slicer applies to the canonical mesh (docs/placement.md). Quotes, printability and
// the file record all read it from here, so they never disagree.
import type { Measurements } from '../../shared/model/measure.ts';
import type { ModelShape } from '../mesh/index.ts';
import type { SliceTransform } from '../slicer/index.ts';
import { checkFeatures, type ThinWallsWarning, type TooSmallRefusal } from './features.ts';
import { type OrientationName, orient, type Rotation, type ShapeFacts, type Volume } from './orient.ts';
import { type UnitSuspectWarning, unitSuspect } from './unit-check.ts';
import { meshFactor, sourceUnit, type Unit } from './units.ts';

/** What placement reads of a stored file (files/sql.ts's FileRow has these fields). */
export interface PlacedFile {
  /** The canonical mesh's measurements (millimetres) and the unit the file declared. */
  measurements: Measurements & { unit: string };
  footprint: [number, number][];
  unit: Unit;
  scale: number;
  shape: ModelShape | null;
  /** Counts the file's rescales: a quote says which version it placed. */
  revision: number;
}

/** The `placement` a quote states. */
export interface Placement {
  unit: Unit;
  scale: number;
  orientation: OrientationName;
  rotation: Rotation;
  dimensions: Volume;
}

type Vec3 = [number, number, number];
interface Measured {
  bbox: { min: Vec3; max: Vec3; size: Vec3 };
  unit?: string;
}

const measured = (file: PlacedFile) => file.measurements as unknown as Measured;

/** Canonical mesh → printed millimetres for this file. */
export function fileFactor(file: PlacedFile): number {
  return meshFactor(file.unit, sourceUnit(measured(file).unit), file.scale);
}

/** Size as printed before any rotation, mm. */
export function scaledSize(file: PlacedFile): Volume {
  const [x, y, z] = measured(file).bbox.size.map((v) => v * fileFactor(file)) as [number, number, number];
  return { x, y, z };
}

export function unitWarning(file: PlacedFile): UnitSuspectWarning | null {
  const s = scaledSize(file);
  return unitSuspect(Math.max(s.x, s.y, s.z), file.unit);
}

function shapeFacts(file: PlacedFile): ShapeFacts {
  const { min, max } = measured(file).bbox;
  return { min, max, footprint: file.footprint, shape: file.shape };
}

/** The placement on a build volume and its slicer transform, or null when no orientation fits. */
type Placed = { placement: Placement; transform: SliceTransform } | null;

/**
 * Placements already worked out, by file (as read: a rescale reads a new row) and build volume: an upload's likely
 * choices mostly share a printer, and a placement search is tens of ms of the event loop's time for a large part.
 */
const placedBefore = new WeakMap<PlacedFile, Map<string, Placed>>();

export function placeFile(file: PlacedFile, volume: Volume): Placed {
  const key = `${volume.x} ${volume.y} ${volume.z}`;
  const known = placedBefore.get(file) ?? new Map<string, Placed>();
  placedBefore.set(file, known);
  if (!known.has(key)) known.set(key, searchPlacement(file, volume));
  return known.get(key)!;
}

function searchPlacement(file: PlacedFile, volume: Volume): Placed {
  const factor = fileFactor(file);
  const found = orient(shapeFacts(file), factor, volume);
  if (!found) return null;
  const { orientation, rotation, dimensions } = found;
  return {
    placement: { unit: file.unit, scale: file.scale, orientation, rotation, dimensions },
    transform: { scale: factor, rotate_x: rotation.x, rotate_y: rotation.y, rotate_z: rotation.z },
  };
}

/** Why a quote cannot be printed: recorded as the failed quote's error (details explain the numbers). */
export interface PlacementRefusal {
  code: 'exceeds_build_volume';
  message: string;
  status: 422;
  details: { dimensions: Volume; build_volume: Volume; exceeds: Exceeded[] };
}

/** An axis too large as uploaded. */
interface Exceeded {
  axis: 'x' | 'y' | 'z';
  size_mm: number;
  limit_mm: number;
}

/**
 * What a quote keeps: the placement it states and slices with, any unit warning, or why nothing fits, and the
 * file revision it was placed from (quotes placed before revisions were kept have none).
 */
export type QuotePlacement = { warnings: (UnitSuspectWarning | ThinWallsWarning)[]; file_revision?: number } & (
  | { placement: Placement; transform: SliceTransform; refusal: null }
  | { placement: null; transform: null; refusal: PlacementRefusal | TooSmallRefusal }
);

type Printer = {
  bed_size_x: number;
  bed_size_y: number;
  bed_size_z: number;
  nozzle_diameter: number;
  layer_height: number;
};

/**
 * Where a quote prints the file; a model that fits in no orientation, or too thin to print with these options
 * (placement/features.ts), gets a refusal, so it is never sliced. Thin walls are a warning.
 */
export function placeForQuote(file: PlacedFile, printer: Printer) {
  const volume = { x: printer.bed_size_x, y: printer.bed_size_y, z: printer.bed_size_z };
  const warning = unitWarning(file);
  const m = scaledMeasurements(file);
  const features = checkFeatures({ ...m, size: m.bbox.size }, printer);
  const warnings = [...(warning ? [warning] : []), ...(features.warning ? [features.warning] : [])];
  const placed = placeFile(file, volume);
  const result: QuotePlacement =
    placed && features.refusal
      ? { placement: null, transform: null, refusal: features.refusal, warnings, file_revision: file.revision }
      : placed
        ? { ...placed, refusal: null, warnings, file_revision: file.revision }
        : {
            placement: null,
            transform: null,
            refusal: refusal(scaledSize(file), volume),
            warnings,
            file_revision: file.revision,
          };
  return result;
}

function refusal(size: Volume, volume: Volume): PlacementRefusal {
  const mm = (v: number) => `${+v.toFixed(1)} mm`;
  const exceeds = (['x', 'y', 'z'] as const)
    .filter((axis) => size[axis] > volume[axis])
    .map((axis) => ({ axis, size_mm: +size[axis].toFixed(3), limit_mm: volume[axis] }));
  const named = exceeds.map((e) => `${e.axis} ${mm(e.size_mm)} > ${mm(e.limit_mm)}`).join(', ');
  return {
    code: 'exceeds_build_volume',
    status: 422,
    message:
      `The model (${mm(size.x)} × ${mm(size.y)} × ${mm(size.z)}) does not fit the ${volume.x} × ${volume.y} × ${volume.z} mm ` +
      `build volume in any orientation (as uploaded: ${named}; no turn on the plate or side laid down fits either).`,
    details: { dimensions: roundVolume(size), build_volume: volume, exceeds },
  };
}

const roundVolume = (v: Volume): Volume => ({ x: +v.x.toFixed(3), y: +v.y.toFixed(3), z: +v.z.toFixed(3) });

/** Measurements as printed: the canonical ones scaled by the file's unit and scale. */
export function scaledMeasurements(file: PlacedFile): PlacedFile['measurements'] {
  const m = file.measurements;
  const f = fileFactor(file);
  if (f === 1) return m;
  // Rounded to a nanometre, so 1.5 in reads 38.1 mm rather than 38.099999999999994.
  const nm = (x: number) => Math.round(x * 1e6) / 1e6;
  const scale = (v: [number, number, number]) => v.map((x) => nm(x * f)) as [number, number, number];
  return {
    ...m,
    bbox: { min: scale(m.bbox.min), max: scale(m.bbox.max), size: scale(m.bbox.size) },
    volume_mm3: nm(m.volume_mm3 * f ** 3),
    surface_area_mm2: nm(m.surface_area_mm2 * f ** 2),
    ...(m.extent_sums ? { extent_sums: scale(m.extent_sums) } : {}),
  };
}

export type { Volume } from './orient.ts';
// The folder's front door: what other folders use of it.
export { fittingTurn } from './orient.ts';
export type { UnitSuspectWarning } from './unit-check.ts';
export type { Unit, UnitSource } from './units.ts';
export { sourceUnit, UNITS, unitNamed } from './units.ts';

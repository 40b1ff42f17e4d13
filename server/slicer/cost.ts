// What a slice will cost before it runs (docs/limits.md, "Slicer time"). PrusaSlicer's time grows with the mesh it
// loads and cuts (triangles), the contours it offsets and orders on every layer (surface over layer height), the
// area it fills (volume over layer height, by infill density), the islands it travels between, and supports. Each
// term is measured from the file's stored measurements and the quote's settings, without touching the mesh, so the
// check is free; the coefficients are seconds on a reference machine, fitted on real slices (bench/slice-cost.ts)
// and scaled at run time by how fast this server's recent slices really were.
import type { Measurements } from '../../shared/model/index.ts';
import type { ResolvedSettings } from '../../shared/settings.ts';

export interface CostInputs {
  triangles: number;
  bodies: number;
  /** As printed (unit, scale and orientation applied). */
  surface_area_mm2: number;
  volume_mm3: number;
  height_mm: number;
  /** Σ of the triangles' extents along the printed up axis, mm; null when the file predates that measure. */
  segments_mm: number | null;
  layer_height: number;
  fill_density: number;
  perimeters: number;
  support: boolean;
}

type Printer = Pick<ResolvedSettings['printer'], 'layer_height' | 'fill_density' | 'perimeters' | 'support_material'>;

/** Rotation of the mesh onto the plate, degrees about x, then y (a turn about z does not change what is up). */
export interface UpRotation {
  x: number;
  y: number;
}

/**
 * The triangles' extents summed along the printed up axis: exact for quarter turns, and for any other rotation
 * the bound Σ |u_k| · extent_k over the axes, u being the up direction in the mesh's own axes.
 */
export function upExtentSum(sums: [number, number, number], r: UpRotation): number {
  const rad = Math.PI / 180;
  const [a, b] = [r.x * rad, r.y * rad];
  const up = [-Math.sin(b), Math.sin(a) * Math.cos(b), Math.cos(a) * Math.cos(b)];
  const clean = (v: number) => (Math.abs(v) < 1e-9 ? 0 : Math.abs(v));
  return up.reduce((sum, u, k) => sum + clean(u) * sums[k]!, 0);
}

type Measured = Pick<Measurements, 'triangles' | 'bodies' | 'surface_area_mm2' | 'volume_mm3' | 'extent_sums'>;

/** The cost inputs of a mesh measured at print size (`m` already scaled), standing `heightMm` tall. */
export function costInputsOf(
  m: Measured,
  heightMm: number,
  p: Printer,
  rotation: UpRotation = { x: 0, y: 0 },
): CostInputs {
  return {
    triangles: m.triangles,
    bodies: Math.max(1, m.bodies),
    surface_area_mm2: m.surface_area_mm2,
    volume_mm3: m.volume_mm3,
    height_mm: heightMm,
    segments_mm: m.extent_sums ? upExtentSum(m.extent_sums, rotation) : null,
    layer_height: p.layer_height,
    fill_density: p.fill_density,
    perimeters: p.perimeters,
    support: p.support_material,
  };
}

/** The model's terms, each in units whose coefficient is seconds. */
export function costTerms(i: CostInputs): number[] {
  const lh = Math.max(0.01, i.layer_height);
  const layers = Math.max(1, i.height_mm / lh);
  const contour = i.surface_area_mm2 / lh; // mm of contour over all layers, near enough
  const section = i.volume_mm3 / lh; // mm² of section over all layers
  // Segments cut over all layers: each triangle is cut once per layer it spans (without the measure: a triangle
  // spans about its own size, √(area / triangles)).
  const segments = (i.segments_mm ?? Math.sqrt(i.surface_area_mm2 * i.triangles)) / lh;
  // Islands cut per layer, summed: each body spans about its own size in height (a cube of its surface).
  const bodyHeight = Math.min(i.height_mm, Math.sqrt(i.surface_area_mm2 / i.bodies / 6));
  const islandLayers = (i.bodies * Math.max(lh, bodyHeight)) / lh;
  const support = i.support ? 1 : 0;
  return [
    1,
    i.triangles / 1e5,
    segments / 1e5,
    (contour * (1 + Math.max(1, i.perimeters))) / 3 / 1e5,
    (section * (0.05 + i.fill_density / 100)) / 1e5,
    layers / 1e3,
    islandLayers / 1e5,
    (support * contour) / 1e5,
    (support * islandLayers) / 1e5,
  ];
}

export const COST_TERM_NAMES = [
  'start',
  'triangles',
  'segments',
  'contours',
  'fill',
  'layers',
  'islands',
  'support',
  'support_islands',
] as const;

/** Seconds per term on the reference machine (bench/slice-cost.ts prints a fresh fit). */
export const COST_COEFFICIENTS: readonly number[] = [0.1853, 0, 4.324, 0, 0, 0, 6.1566, 0, 9.5213];

/** Predicted seconds on the reference machine. */
export function referenceSeconds(i: CostInputs, coefficients: readonly number[] = COST_COEFFICIENTS): number {
  return costTerms(i).reduce((sum, t, k) => sum + t * coefficients[k]!, 0);
}

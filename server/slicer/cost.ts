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
  layer_height: number;
  fill_density: number;
  perimeters: number;
  support: boolean;
}

type Printer = Pick<ResolvedSettings['printer'], 'layer_height' | 'fill_density' | 'perimeters' | 'support_material'>;

/** The cost inputs of a mesh measured at print size (`m` already scaled), standing `heightMm` tall. */
export function costInputsOf(
  m: Pick<Measurements, 'triangles' | 'bodies' | 'surface_area_mm2' | 'volume_mm3'>,
  heightMm: number,
  p: Printer,
): CostInputs {
  return {
    triangles: m.triangles,
    bodies: Math.max(1, m.bodies),
    surface_area_mm2: m.surface_area_mm2,
    volume_mm3: m.volume_mm3,
    height_mm: heightMm,
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
  // Segments cut over all layers: each triangle crosses about its own size over the layer height, and a
  // triangle's size is about √(area / triangles).
  const segments = Math.sqrt(i.surface_area_mm2 * i.triangles) / lh;
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
export const COST_COEFFICIENTS: readonly number[] = [1, 1, 1, 1, 1, 1, 1, 1, 1];

/** Predicted seconds on the reference machine. */
export function referenceSeconds(i: CostInputs, coefficients: readonly number[] = COST_COEFFICIENTS): number {
  return costTerms(i).reduce((sum, t, k) => sum + t * coefficients[k]!, 0);
}

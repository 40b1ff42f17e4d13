// The coarse stage's features (docs/estimate.md, "Coarse to fine"): what one pass over the triangles gives
// (coarse-pass.ts), turned into the same physical model's volume and time terms as the fine stage, with regions
// guessed per layer from the pass's bins instead of cut from polygons: walls as a band along the mean perimeter, solid
// shells from the surfaces seen from above (below) within the top (bottom) layer count, bridges from the downward
// surfaces, sparse infill the rest, support columns from the steep overhangs down to the bed. A few milliseconds for
// 3DBenchy, so the first figure can show right after the parse; the polygon features then replace it.
import type { Mesh } from '../model/mesh.ts';
import { binHeight, type CoarsePass, coarsePass } from './coarse-pass.ts';
import { computeFeatures, type Features, type TimeTerms, type VolumeTerms } from './features.ts';
import type { LayerRegions } from './layer-regions.ts';
import { type EstimateSettings, type SliceParams, sliceParams } from './params.ts';

/** Bump when the coarse features change meaning: a coarse calibration fitted on others must not be applied. */
export const COARSE_FEATURES_VERSION = 1;

export interface CoarseFeatures {
  /** COARSE_FEATURES_VERSION; a separate series from the fine features' FEATURES_VERSION. */
  coarse_version: number;
  /** The settings the features were computed with (as the fine features'). */
  basis: Features['basis'];
  triangles: number;
  layers: number;
  height_mm: number;
  size_mm: [x: number, y: number];
  volume_mm3: number;
  surface_mm2: number;
  /** Σ|n_xy|·dA: the perimeter summed over the layers times the layer height. */
  lateral_mm2: number;
  /** Bed-projected area of the faces facing up and down. */
  up_mm2: number;
  down_mm2: number;
  /** The first layer's mean section area. */
  footprint_mm2: number;
  /** Bed-projected area of the overhangs beyond the support angle (0 without supports). */
  overhang_area_mm2: number;
  volume_terms: VolumeTerms;
  time_terms: TimeTerms;
}

const sum = (a: Float64Array) => a.reduce((s, v) => s + v, 0);

/** Σ a[from..to] within the array's bounds. */
function window(a: Float64Array, from: number, to: number): number {
  let s = 0;
  for (let k = Math.max(0, from); k <= Math.min(a.length - 1, to); k++) s += a[k]!;
  return s;
}

const wallsWidth = (q: SliceParams) => q.perimeters * q.spacing_mm;

/** Each layer's regions from the pass's bins (the section area and perimeter are the bin's means). */
export function coarseRegions(pass: CoarsePass, q: SliceParams): { regions: LayerRegions; perimeter: Float64Array } {
  const n = pass.layers;
  const h = q.layer_height_mm;
  const arrays = () => new Float64Array(n);
  const r: LayerRegions = {
    section: arrays(),
    walls: arrays(),
    solid: arrays(),
    top: arrays(),
    bridge: arrays(),
    sparse: arrays(),
    support: arrays(),
  };
  const perimeter = arrays();
  const bandWidth = wallsWidth(q);
  // The support under layer i: every steep overhang above it, down to the bed (the pass cannot see a part below).
  let above = 0;
  for (let i = n - 1; i >= 0; i--) {
    r.support[i] = q.supports ? above : 0;
    above += pass.overhang[i]!;
  }
  for (let i = 0; i < n; i++) {
    const height = binHeight(pass, i, h);
    const area = Math.max(0, pass.volume[i]! / height);
    const p = pass.lateral[i]! / height;
    let band = Math.min(area, p * bandWidth);
    let core = area - band;
    // A core narrower than one line gets no infill of its own: the walls fill it (gap fill, thin walls).
    if (p > 0 && (2 * core) / p < q.spacing_mm) {
      band = area;
      core = 0;
    }
    // The shells of the surfaces within the top (bottom) layer count above (below), beyond the walls.
    const tops = window(pass.upShell, i, i + q.top_solid_layers - 1);
    const bottoms = window(pass.downShell, i - q.bottom_solid_layers + 1, i);
    const solid = i === 0 ? core : Math.min(core, tops + bottoms);
    r.section[i] = area;
    r.walls[i] = band;
    r.solid[i] = solid;
    r.top[i] = Math.min(solid, pass.upShell[i]!);
    r.bridge[i] = i === 0 ? 0 : Math.min(solid - r.top[i]!, pass.downShell[i]!);
    r.sparse[i] = core - solid;
    perimeter[i] = p;
  }
  return { regions: r, perimeter };
}

/**
 * The coarse features of a placed mesh (millimetres, printed as oriented, its lowest point on the bed) for these
 * settings. Throws EstimateError as extractFeatures does (invalid, empty or flat mesh, invalid settings, too many
 * layers).
 */
export function extractCoarseFeatures(mesh: Mesh, settings: EstimateSettings): CoarseFeatures {
  const q = sliceParams(settings);
  const overhangSin = q.supports ? Math.sin(((q.support_overhang_angle ?? 45) * Math.PI) / 180) : null;
  const reach = (layers: number) => (layers > 0 ? wallsWidth(q) / layers : Infinity);
  const pass = coarsePass(mesh, {
    layerHeight: q.layer_height_mm,
    overhangSin,
    shellReach: { top: reach(q.top_solid_layers), bottom: reach(q.bottom_solid_layers) },
  });
  const { regions, perimeter } = coarseRegions(pass, q);
  const n = pass.layers;
  // No corners are measured here: the calibration's walls and first-layer coefficients carry their mean share.
  const zeros = new Float64Array(n);
  const sweep = {
    layers: n,
    height_mm: pass.height_mm,
    perimeter,
    cornerLoss: [zeros, zeros, zeros],
    cornersMeasured: false,
    overhangArea: q.supports ? sum(pass.overhang) : 0,
    sizeX: pass.sizeX,
    sizeY: pass.sizeY,
  };
  const terms = computeFeatures(sweep, regions, null, q, mesh.indices.length / 3);
  return {
    coarse_version: COARSE_FEATURES_VERSION,
    basis: terms.basis,
    triangles: terms.triangles,
    layers: n,
    height_mm: pass.height_mm,
    size_mm: [pass.sizeX, pass.sizeY],
    volume_mm3: pass.volume_mm3,
    surface_mm2: pass.surface_mm2,
    lateral_mm2: sum(pass.lateral),
    up_mm2: sum(pass.up),
    down_mm2: sum(pass.down),
    footprint_mm2: regions.section[0]!,
    overhang_area_mm2: sweep.overhangArea,
    volume_terms: terms.volume_terms,
    time_terms: terms.time_terms,
  };
}

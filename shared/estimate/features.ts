// From a mesh and the slice settings to a plain, JSON-serialisable feature set: the layer cross-sections summed
// into regions (walls, solid top/bottom, sparse infill, support) and the physical model's volume and time per kind
// of extrusion. predict() only multiplies these terms by calibrated coefficients (docs/estimate.md).

import type { Paths64 } from 'clipper2-ts';
import type { Mesh } from '../model/mesh.ts';
import { bridgeRuleOf } from './bridges.ts';
import { fillLayers, refineLayers } from './layer-fill.ts';
import { layerPolygons } from './layer-polygons.ts';
import { type LayerRegions, layerRegions, type RegionParams } from './layer-regions.ts';
import { type LayerSample, sampleLayers } from './layer-sample.ts';
import { type LayerSweep, sweepLayers } from './layer-sweep.ts';
import { hopTime, planLayerWalls, type WallMotion, type WallPlan } from './motion-time.ts';
import {
  basisOf,
  type EstimateSettings,
  INFILL_ANCHOR_MM,
  SKIRT_DISTANCE_MM,
  type SliceBasis,
  type SliceParams,
  SUPPORT_INTERFACE_LAYERS,
  sliceParams,
} from './params.ts';
import { sampledRegions } from './sampled-regions.ts';

/** Bump when features change meaning: a calibration fitted on other features must not be applied to these. */
export const FEATURES_VERSION = 8;

/** Extruded volume per kind of extrusion, mm³, before calibration. */
export interface VolumeTerms {
  walls: number;
  solid: number;
  sparse: number;
  /** Infill anchors: sparse lines joined along the perimeters (PrusaSlicer's infill_anchor). */
  anchors: number;
  support: number;
  skirt: number;
}

/** Print time per kind of motion, s, before calibration. */
export interface TimeTerms {
  walls: number;
  solid: number;
  sparse: number;
  support: number;
  first_layer: number;
  /** Perimeter loops planned along the section contours: what acceleration and the jerk at every vertex add to
   *  their time at constant speed (with the area model's fallback: slowing down at the mesh's sharp edges). */
  corners: number;
  /** One per layer (the prior counts 0.2 s each): the layer change's retraction, z move and travel to the layer's
   *  first contour. */
  layer_changes: number;
  /** Travel with retraction to every contour's loops and to every island's infill regions. */
  travel: number;
  /** Extra time of layers slowed down to the minimum layer time for cooling. */
  cooling: number;
}

export interface Features {
  version: number;
  /** The settings the features were computed with. */
  basis: SliceBasis & { infill: number; support_density: number };
  triangles: number;
  layers: number;
  height_mm: number;
  size_mm: [x: number, y: number];
  /** Sums over all layers, mm and mm². */
  perimeter_mm: number;
  section_area_mm2: number;
  wall_area_mm2: number;
  solid_area_mm2: number;
  top_surface_area_mm2: number;
  sparse_area_mm2: number;
  /** Bed-projected area of overhangs beyond the support angle, and the support columns under them (0 without
   *  supports). */
  overhang_area_mm2: number;
  support_column_mm3: number;
  /** false when the corners were not measured (time_terms.corners = 0): no polygons for the planner and more than
   *  MAX_CORNER_TRIANGLES triangles for the mesh edges. */
  corners_measured: boolean;
  /** true when the regions came from section polygons; false above MAX_POLYGON_SEGMENTS, where they come from
   *  area differences (less exact on slopes and thin parts). */
  polygons: boolean;
  /** Bottom surfaces resting on air, printed as bridges, mm² summed over layers. */
  bridge_area_mm2: number;
  volume_terms: VolumeTerms;
  time_terms: TimeTerms;
}

/** What a layer change takes (retraction, z move, travel to the layer's start) in the physical model: the prior of
 *  its time term (calibration.ts). */
const PRIOR_LAYER_CHANGE_S = 0.2;

/** Solid area of each layer: what is not covered by the `top` layers above or the `bottom` layers below. Area
 *  differences stand in for polygon differences: blind to a section that moves sideways (docs/estimate.md). A
 *  bitmap of each section, compared cell by cell, was tried and fitted the real slices worse. */
function exposedArea(area: Float64Array, i: number, top: number, bottom: number): { top: number; bottom: number } {
  const n = area.length;
  let above = top > 0 ? Infinity : area[i]!;
  for (let k = 1; k <= top; k++) above = Math.min(above, i + k < n ? area[i + k]! : 0);
  let below = bottom > 0 ? Infinity : area[i]!;
  for (let k = 1; k <= bottom; k++) below = Math.min(below, i - k >= 0 ? area[i - k]! : 0);
  return { top: Math.max(0, area[i]! - above), bottom: Math.max(0, area[i]! - below) };
}

/** The regions from the sweep's areas and perimeters alone (above MAX_POLYGON_SEGMENTS): a band of walls along
 *  the perimeter, solid shells from area differences, support columns down to the bed. */
function regionsFromSweep(sweep: LayerSweep, q: SliceParams): LayerRegions {
  const n = sweep.layers;
  const r: LayerRegions = {
    section: sweep.area,
    walls: new Float64Array(n),
    solid: new Float64Array(n),
    top: new Float64Array(n),
    bridge: new Float64Array(n),
    sparse: new Float64Array(n),
    support: q.supports ? sweep.supportArea : new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    const area = sweep.area[i]!;
    const perimeter = sweep.perimeter[i]!;
    let band = Math.min(area, perimeter * q.perimeters * q.spacing_mm);
    let core = area - band;
    // A core narrower than one line gets no infill of its own: the walls fill it (gap fill, thin walls).
    if (perimeter > 0 && (2 * core) / perimeter < q.spacing_mm) {
      band = area;
      core = 0;
    }
    const exposed = exposedArea(sweep.area, i, q.top_solid_layers, q.bottom_solid_layers);
    r.walls[i] = band;
    r.solid[i] = Math.min(core, exposed.top + exposed.bottom);
    r.top[i] = Math.min(r.solid[i]!, Math.max(0, area - (i + 1 < n ? sweep.area[i + 1]! : 0)));
    r.sparse[i] = core - r.solid[i]!;
  }
  return r;
}

/** Time of `length` mm of lines `segment` mm long at speed v with acceleration a (trapezoid or triangle profile). */
function lineTime(length: number, segment: number, v: number, a: number): number {
  if (length <= 0) return 0;
  const lines = length / segment;
  const perLine = segment >= (v * v) / a ? segment / v + v / a : 2 * Math.sqrt(segment / a);
  return lines * perLine;
}

/** The layer's perimeter loops planned along its contours: `band` is its wall area. */
function planWalls(section: Paths64, i: number, band: number, q: SliceParams): WallPlan {
  const first = i === 0;
  const motion: WallMotion = {
    perimeters: q.perimeters,
    spacing_mm: q.spacing_mm,
    speed_mm_s: first ? q.motion.first_layer_mm_s : q.motion.perimeter_mm_s,
    slow_mm_s: first ? q.motion.first_layer_mm_s : q.motion.external_perimeter_mm_s,
    acceleration_mm_s2: q.motion.perimeter_acceleration_mm_s2,
    jerk_mm_s: q.jerk_mm_s,
  };
  return planLayerWalls(section, motion, band * 1.05);
}

/** The wall plans of the sample's computed layers, null for the others. */
function planLayers(sections: Paths64[], r: LayerRegions, sample: LayerSample, q: SliceParams) {
  return sections.map((section, i) => (sample.computed[i] ? planWalls(section, i, r.walls[i]!, q) : null));
}

/** What computeFeatures reads of a sweep: the coarse stage (coarse-features.ts) gives the same from its bins. */
export type SweepTotals = Pick<
  LayerSweep,
  'layers' | 'height_mm' | 'perimeter' | 'cornerLoss' | 'cornersMeasured' | 'overhangArea' | 'sizeX' | 'sizeY'
>;

/** Regions per layer → the physical model's volume and time terms (plans: the perimeter loops planned along the
 *  contours; null where there are no polygons, as in the fallback and the coarse stage). */
export function computeFeatures(
  sweep: SweepTotals,
  r: LayerRegions,
  plans: (WallPlan | null)[] | null,
  q: SliceParams,
  triangles: number,
): Features {
  const polygons = plans !== null;
  const h = q.layer_height_mm;
  const n = sweep.layers;
  const m = q.motion;
  const a = m.infill_acceleration_mm_s2;
  const s = q.spacing_mm;
  const st = q.thin_spacing_mm;
  const skirtLength = 2 * (sweep.sizeX + sweep.sizeY) + 2 * Math.PI * SKIRT_DISTANCE_MM;
  const sums = { perimeter: 0, area: 0, wall: 0, solid: 0, top: 0, bridge: 0, sparse: 0, column: 0, anchors: 0 };
  // Bridges (thick_bridges): round lines one nozzle wide, spaced a nozzle + 0.05 mm apart (BRIDGE_EXTRA_SPACING).
  const bridgePitch = q.nozzle_diameter_mm + 0.05;
  const bridgeThickness = ((Math.PI / 4) * q.nozzle_diameter_mm ** 2) / bridgePitch;
  // Sparse lines end on the perimeters and are joined along them by anchors up to INFILL_ANCHOR_MM long; line ends
  // lie a pitch·√2 apart along the boundary (lines at 45°) and every other gap is joined (the lines zigzag), so
  // anchors cover this share of it.
  const anchorCover = q.infill > 0 ? Math.min(1, (INFILL_ANCHOR_MM * q.infill) / (s * Math.SQRT2)) / 2 : 0;
  const time: TimeTerms = {
    walls: 0,
    solid: 0,
    sparse: 0,
    support: 0,
    first_layer: 0,
    corners: 0,
    layer_changes: n,
    cooling: 0,
    travel: 0,
  };
  const interfaceArea = q.supports ? SUPPORT_INTERFACE_LAYERS * sweep.overhangArea : 0;
  let supportBody = 0;
  for (let i = 0; i < n; i++) {
    const area = r.section[i]!;
    const perimeter = sweep.perimeter[i]!;
    const band = r.walls[i]!;
    const solid = r.solid[i]!;
    const topSurface = r.top[i]!;
    const bridge = r.bridge[i]!;
    const sparse = r.sparse[i]!;
    // Anchors run inside the sparse region, between its lines.
    const anchors = sparse > 0 ? Math.min(perimeter * anchorCover, (sparse * (1 - q.infill)) / s) : 0;
    sums.anchors += anchors;
    const supportArea = q.supports ? r.support[i]! : 0;
    // The support's first layer is dense (90 %) for adhesion.
    const supportFill = supportArea * (i === 0 ? Math.max(0.9, q.support_density) : q.support_density);
    sums.perimeter += perimeter;
    sums.area += area;
    sums.wall += band;
    sums.solid += solid;
    sums.top += topSurface;
    sums.bridge += bridge;
    sums.sparse += sparse;
    sums.column += supportArea * h;
    supportBody += supportFill;
    // Infill lines span the section: about 2·area/perimeter long (a square's half side, a strip's width).
    const segment = Math.max(perimeter > 0 ? (2 * area) / perimeter : 1, 0.5);
    const lengths = band / s + solid / s + (q.infill * sparse) / s + supportFill / st;
    const plan = plans ? plans[i]! : null;
    // What the planned loops leave of the walls, narrower than a line, Arachne mostly absorbs by widening them.
    const gapFill = 0;
    // A hop (retract, travel, deretract) to each contour's loops and to each island's regions of infill, as far as
    // an island is wide; the first of the layer is the layer change's own.
    const contours = plan ? plan.contours : 1;
    const islands = plan ? Math.max(1, plan.islands) : 1;
    const regionKinds =
      Number(solid - topSurface - bridge > 0) +
      Number(topSurface > 0) +
      Number(bridge > 0) +
      Number(q.infill * sparse > 0) +
      Number(supportFill > 0);
    const hops = area > 0 ? Math.max(0, contours + islands * regionKinds - 1) : 0;
    const travel =
      hops * hopTime(Math.sqrt(area / islands), m.travel_mm_s, m.travel_acceleration_mm_s2, m.retraction_s);
    time.travel += travel;
    let layerTime = travel;
    if (i === 0) {
      const v1 = m.first_layer_mm_s;
      const firstLayer = plan
        ? lineTime(lengths - band / s + skirtLength, segment, v1, a) + plan.planned_s + gapFill / v1
        : lineTime(lengths + skirtLength, segment, v1, a) + q.perimeters * sweep.cornerLoss[2]![0]!;
      time.first_layer += firstLayer;
      layerTime += firstLayer;
    } else {
      let walls: number;
      let corners: number;
      if (plan) {
        walls = plan.cruise_s + gapFill / m.gap_fill_mm_s;
        corners = plan.planned_s - plan.cruise_s;
      } else {
        // Inner perimeters at their speed, the external one at its own: each loop slows down at the same corners.
        const loops = q.perimeters > 0 ? band / s / q.perimeters : 0;
        walls = q.perimeters > 0 ? loops * ((q.perimeters - 1) / m.perimeter_mm_s + 1 / m.external_perimeter_mm_s) : 0;
        corners = q.perimeters > 0 ? (q.perimeters - 1) * sweep.cornerLoss[0]![i]! + sweep.cornerLoss[1]![i]! : 0;
      }
      time.corners += corners;
      const top = topSurface / st / m.top_solid_infill_mm_s;
      const solidTime =
        lineTime((solid - topSurface - bridge) / s, segment, m.solid_infill_mm_s, a) +
        bridge / bridgePitch / m.bridge_mm_s;
      const sparseTime = lineTime((q.infill * sparse) / s, segment, m.infill_mm_s, a) + anchors / m.infill_mm_s;
      const supportTime = lineTime(supportFill / st, Math.max(segment, 1), m.support_mm_s, a);
      time.walls += walls;
      time.solid += top + solidTime;
      time.sparse += sparseTime;
      time.support += supportTime;
      layerTime += walls + corners + top + solidTime + sparseTime + supportTime;
    }
    // Cooling: a short layer's extrusions are slowed until the layer, its travel and layer change included, lasts
    // the minimum layer time, but never below the minimum print speed (travel keeps its speed).
    const moving = travel + PRIOR_LAYER_CHANGE_S;
    const slowest = lengths / m.min_print_speed_mm_s + moving;
    time.cooling += Math.max(0, Math.min(m.slowdown_below_layer_time_s, slowest) - layerTime - PRIOR_LAYER_CHANGE_S);
  }
  if (q.supports) time.support += interfaceArea / st / m.support_interface_mm_s; // interface layers: solid
  return {
    version: FEATURES_VERSION,
    basis: { ...basisOf(q), infill: q.infill, support_density: q.support_density },
    triangles,
    layers: n,
    height_mm: sweep.height_mm,
    size_mm: [sweep.sizeX, sweep.sizeY],
    perimeter_mm: sums.perimeter,
    section_area_mm2: sums.area,
    wall_area_mm2: sums.wall,
    solid_area_mm2: sums.solid,
    top_surface_area_mm2: sums.top,
    sparse_area_mm2: sums.sparse,
    overhang_area_mm2: q.supports ? sweep.overhangArea : 0,
    support_column_mm3: sums.column,
    corners_measured: polygons || sweep.cornersMeasured,
    polygons,
    bridge_area_mm2: sums.bridge,
    volume_terms: {
      walls: sums.wall * h,
      solid: (sums.solid - sums.bridge) * h + sums.bridge * bridgeThickness,
      sparse: sums.sparse * h * q.infill,
      anchors: sums.anchors * s * h,
      support: (supportBody + interfaceArea) * h,
      skirt: skirtLength * s * h,
    },
    time_terms: time,
  };
}

/** The PrusaSlicer version the product slices with by default (the widget's worker assumes it). */
export const DEFAULT_SLICER_VERSION = '2.9.2';

export interface FeatureOptions {
  /** Version of the PrusaSlicer whose slice is estimated ("2.5.0", "2.9.2"): it decides which overhangs are
   *  bridges under `dont_support_bridges` (bridges.ts). Default: DEFAULT_SLICER_VERSION. */
  slicerVersion?: string;
  /** Work every layer's polygons instead of a sample of them (layer-sample.ts): the reference the sample is
   *  measured against, slower on a tall part (3DBenchy: 1.65 times the sample's CPU). Default false. */
  everyLayer?: boolean;
}

/**
 * Geometry features of a placed mesh (millimetres, printed as oriented; its lowest point is taken as the bed) for
 * the given settings. Throws EstimateError on an empty, non-finite or flat mesh, invalid settings, or more layers
 * or segments than the estimator's bounds.
 */
export function extractFeatures(mesh: Mesh, settings: EstimateSettings, options: FeatureOptions = {}): Features {
  const q = sliceParams(settings);
  const overhangSin = q.supports ? Math.sin(((q.support_overhang_angle ?? 45) * Math.PI) / 180) : null;
  // The mesh edges' corners are needed only without polygons (the planner reads the contours): then a second sweep
  // measures them, so a mesh within the polygon bound skips the edge table.
  const sweep = sweepLayers(mesh, q.layer_height_mm, overhangSin);
  const polygons = layerPolygons(mesh, q.layer_height_mm);
  if (!polygons) {
    const withCorners = sweepLayers(mesh, q.layer_height_mm, overhangSin, {
      speeds: [q.motion.perimeter_mm_s, q.motion.external_perimeter_mm_s, q.motion.first_layer_mm_s],
      acceleration: q.motion.perimeter_acceleration_mm_s2,
      jerk: q.jerk_mm_s,
    });
    return computeFeatures(withCorners, regionsFromSweep(withCorners, q), null, q, mesh.indices.length / 3);
  }
  const rp = regionParams(q, options.slicerVersion ?? DEFAULT_SLICER_VERSION);
  // The regions are worked on a sample of the layers (layer-sample.ts): parts with few layers get every one.
  const loops = polygons.sections.map((section) => section.length);
  const sample = options.everyLayer ? null : sampleLayers(mesh, sweep, loops, rp);
  if (!sample) {
    const regions = layerRegions(polygons.sections, rp);
    const plans = polygons.sections.map((section, i) => planWalls(section, i, regions.walls[i]!, q));
    return computeFeatures(sweep, regions, plans, q, mesh.indices.length / 3);
  }
  const sampled = sampledRegions(polygons.sections, sample, rp);
  const { regions } = sampled;
  const plans = planLayers(polygons.sections, regions, sample, q);
  refineLayers(sample, regions, plans, (i) => {
    sampled.computeLayer(i);
    plans[i] = planWalls(polygons.sections[i]!, i, regions.walls[i]!, q);
  });
  fillLayers(sample, sweep, regions, plans);
  return computeFeatures(sweep, regions, plans, q, mesh.indices.length / 3);
}

/** What the polygon regions read of the slice parameters. */
export function regionParams(q: SliceParams, slicerVersion: string): RegionParams {
  return {
    layer_height_mm: q.layer_height_mm,
    perimeters: q.perimeters,
    spacing_mm: q.spacing_mm,
    external_width_mm: 1.125 * q.nozzle_diameter_mm,
    top_solid_layers: q.top_solid_layers,
    bottom_solid_layers: q.bottom_solid_layers,
    overhang_step_mm: q.supports
      ? q.layer_height_mm / Math.tan(((90 - (q.support_overhang_angle ?? 45)) * Math.PI) / 180)
      : null,
    support_gap_mm: 0.5 * 1.125 * q.nozzle_diameter_mm,
    bridge_rule: bridgeRuleOf(slicerVersion),
  };
}

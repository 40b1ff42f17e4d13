// The slice-relevant numbers the estimator works from, derived from resolved settings the way the slicer config
// derives PrusaSlicer's options (docs/prusaslicer-mapping.md): the wall count clamp, auto extrusion widths that
// follow the nozzle, half speed for external perimeters and top surfaces, support density sliced at halvings of
// 100 %, first layer as high as the others. Kept here, not imported from server/, so the browser can run it.
import type { ResolvedMaterial, ResolvedPrinter } from '../settings.ts';
import { refuse } from './errors.ts';
import { RETRACTION_PAIR_S } from './motion-time.ts';

/** What the estimator reads of resolved settings (the quote section changes no slice). */
export interface EstimateSettings {
  printer: ResolvedPrinter;
  material: Pick<ResolvedMaterial, 'density' | 'diameter'>;
  /** The slice's own speeds and accelerations per feature, where a shop's imported config states them; absent, the
   *  service's mapping of `print_speed` (referenceMotion). */
  motion?: FeatureMotion;
}

/**
 * Speeds (mm/s) and accelerations (mm/s²) per kind of extrusion, as the slice will run them. The service's own
 * config drives every feature from one print speed; a shop's PrusaSlicer config (docs/profiles.md) sets each feature
 * on its own (45 mm/s perimeters, 25 mm/s external ones and 80 mm/s infill on an MK3S), and an estimate that read one
 * speed for all would be a third too fast.
 */
export interface FeatureMotion {
  perimeter_mm_s: number;
  /** External and small perimeters. */
  external_perimeter_mm_s: number;
  infill_mm_s: number;
  solid_infill_mm_s: number;
  top_solid_infill_mm_s: number;
  bridge_mm_s: number;
  gap_fill_mm_s: number;
  support_mm_s: number;
  support_interface_mm_s: number;
  first_layer_mm_s: number;
  travel_mm_s: number;
  perimeter_acceleration_mm_s2: number;
  infill_acceleration_mm_s2: number;
  travel_acceleration_mm_s2: number;
  /** A retraction and its deretraction around a travel, with the lift if the config lifts the nozzle, s. */
  retraction_s: number;
  /** Cooling: a layer faster than this is slowed down to it, never below min_print_speed_mm_s. */
  slowdown_below_layer_time_s: number;
  min_print_speed_mm_s: number;
}

/** The settings a feature set was computed with: predict() refuses features computed for other ones. */
export interface SliceBasis {
  layer_height_mm: number;
  perimeters: number;
  top_solid_layers: number;
  bottom_solid_layers: number;
  nozzle_diameter_mm: number;
  /** Degrees from vertical; null with supports off. */
  support_overhang_angle: number | null;
  /** Extrusion speed (print_speed clamped to max_print_speed), mm/s. */
  speed_mm_s: number;
  first_layer_speed_mm_s: number;
  acceleration_mm_s2: number;
  jerk_mm_s: number;
  /** Travel moves between islands and regions. */
  travel_speed_mm_s: number;
  travel_acceleration_mm_s2: number;
}

export interface SliceParams extends SliceBasis {
  motion: FeatureMotion;
  /** Sparse infill density, 0..1. */
  infill: number;
  /** Support body density as sliced (a halving of 100 %), 0..1; 0 with supports off or at 0 %. */
  support_density: number;
  supports: boolean;
  /** Line spacing of perimeters and infill (auto width 1.125 × nozzle), mm. */
  spacing_mm: number;
  /** Line spacing of top infill and support (auto width 1 × nozzle), mm. */
  thin_spacing_mm: number;
  filament_density_g_cm3: number;
}

/** Cooling (base-config.ts): a layer printed faster than this is slowed down to it... */
export const SLOWDOWN_BELOW_LAYER_TIME_S = 5;
/** ...but no extrusion below this speed. */
export const MIN_PRINT_SPEED_MM_S = 10;
/** Support interface layers and skirt distance pinned in base-config.ts. */
export const SUPPORT_INTERFACE_LAYERS = 3;
export const SKIRT_DISTANCE_MM = 6;
/** infill_anchor = 600 % of the 0.45 mm infill width (base-config.ts). */
export const INFILL_ANCHOR_MM = 2.7;

const finitePositive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

/** The service's own config (slicer/config.ts, base-config.ts): one print speed for inner perimeters, infill and
 *  support, half of it for external perimeters, top surfaces, bridges and gap fill; one acceleration. */
export function referenceMotion(p: ResolvedPrinter): FeatureMotion {
  const v = Math.min(p.print_speed, p.max_print_speed);
  return {
    perimeter_mm_s: v,
    external_perimeter_mm_s: v / 2,
    infill_mm_s: v,
    solid_infill_mm_s: v,
    top_solid_infill_mm_s: v / 2,
    bridge_mm_s: v / 2,
    gap_fill_mm_s: v / 2,
    support_mm_s: v,
    support_interface_mm_s: v,
    first_layer_mm_s: Math.min(p.first_layer_speed, p.max_print_speed),
    travel_mm_s: p.travel_speed,
    perimeter_acceleration_mm_s2: p.acceleration_print,
    infill_acceleration_mm_s2: p.acceleration_print,
    travel_acceleration_mm_s2: p.acceleration_travel,
    retraction_s: RETRACTION_PAIR_S,
    slowdown_below_layer_time_s: SLOWDOWN_BELOW_LAYER_TIME_S,
    min_print_speed_mm_s: MIN_PRINT_SPEED_MM_S,
  };
}

/** A stated motion, checked: every figure a finite number above 0 (the layer time may be 0: no slowdown). */
function checkedMotion(m: FeatureMotion): FeatureMotion {
  if (typeof m !== 'object' || m === null) refuse('invalid_settings', 'motion must be an object.');
  for (const [name, v] of Object.entries(m)) {
    const mayBeZero = name === 'slowdown_below_layer_time_s' || name === 'retraction_s';
    const ok = mayBeZero ? finiteNonNegative(v) : finitePositive(v);
    if (!ok) refuse('invalid_settings', `motion.${name} must be a finite number above 0 (got ${String(v)}).`);
  }
  return m;
}
const finiteNonNegative = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** PrusaSlicer's spacing of adjacent extrusions of width w and height h (rounded sides): w − h·(1 − π/4). */
export const flowSpacing = (width: number, height: number): number => width - height * (1 - Math.PI / 4);

function supportDensityUsed(percent: number): number {
  if (percent <= 0) return 0;
  const level = Math.min(Math.max(Math.round(Math.log2(100 / percent)), 0), 6);
  return 1 / 2 ** level;
}

/** Checks the fields the estimator uses and derives its numbers; throws EstimateError('invalid_settings'). */
export function sliceParams(s: EstimateSettings): SliceParams {
  const p = s?.printer;
  const m = s?.material;
  if (!p || !m) refuse('invalid_settings', 'The settings need a printer and a material section.');
  const positive = {
    layer_height: p.layer_height,
    nozzle_diameter: p.nozzle_diameter,
    print_speed: p.print_speed,
    max_print_speed: p.max_print_speed,
    first_layer_speed: p.first_layer_speed,
    acceleration_print: p.acceleration_print,
    jerk_print: p.jerk_print,
    travel_speed: p.travel_speed,
    acceleration_travel: p.acceleration_travel,
    density: m.density,
  };
  for (const [name, v] of Object.entries(positive)) {
    if (!finitePositive(v)) refuse('invalid_settings', `${name} must be a finite number above 0 (got ${String(v)}).`);
  }
  const counts = {
    perimeters: p.perimeters,
    min_wall_count: p.min_wall_count,
    max_wall_count: p.max_wall_count,
    top_solid_layers: p.top_solid_layers,
    bottom_solid_layers: p.bottom_solid_layers,
  };
  for (const [name, v] of Object.entries(counts)) {
    if (!finiteNonNegative(v) || !Number.isInteger(v) || v > 100) {
      refuse('invalid_settings', `${name} must be a whole number from 0 to 100 (got ${String(v)}).`);
    }
  }
  if (!finiteNonNegative(p.fill_density) || p.fill_density > 100) {
    refuse('invalid_settings', `fill_density must be a percentage from 0 to 100 (got ${String(p.fill_density)}).`);
  }
  if (p.support_material) {
    if (!finiteNonNegative(p.support_density) || p.support_density > 100) {
      refuse('invalid_settings', `support_density must be a percentage from 0 to 100 (got ${p.support_density}).`);
    }
    if (!finiteNonNegative(p.support_overhang_angle) || p.support_overhang_angle > 90) {
      refuse('invalid_settings', `support_overhang_angle must be 0 to 90 degrees (got ${p.support_overhang_angle}).`);
    }
  }
  if (p.layer_height > p.nozzle_diameter) {
    refuse('invalid_settings', 'layer_height must not exceed nozzle_diameter.');
  }
  const perimeters = Math.min(Math.max(p.perimeters, p.min_wall_count), Math.max(p.min_wall_count, p.max_wall_count));
  const h = p.layer_height;
  return {
    layer_height_mm: h,
    perimeters,
    top_solid_layers: p.top_solid_layers,
    bottom_solid_layers: p.bottom_solid_layers,
    nozzle_diameter_mm: p.nozzle_diameter,
    support_overhang_angle: p.support_material ? p.support_overhang_angle : null,
    speed_mm_s: Math.min(p.print_speed, p.max_print_speed),
    first_layer_speed_mm_s: Math.min(p.first_layer_speed, p.max_print_speed),
    acceleration_mm_s2: p.acceleration_print,
    jerk_mm_s: p.jerk_print,
    travel_speed_mm_s: p.travel_speed,
    travel_acceleration_mm_s2: p.acceleration_travel,
    infill: p.fill_density / 100,
    supports: p.support_material === true,
    support_density: p.support_material ? supportDensityUsed(p.support_density) : 0,
    spacing_mm: flowSpacing(1.125 * p.nozzle_diameter, h),
    thin_spacing_mm: flowSpacing(p.nozzle_diameter, h),
    filament_density_g_cm3: m.density,
    motion: s.motion ? checkedMotion(s.motion) : referenceMotion(p),
  };
}

/** The part of the params the features depend on (speeds included: the per-layer cooling slowdown needs them). */
export function basisOf(p: SliceParams): SliceBasis {
  return {
    layer_height_mm: p.layer_height_mm,
    perimeters: p.perimeters,
    top_solid_layers: p.top_solid_layers,
    bottom_solid_layers: p.bottom_solid_layers,
    nozzle_diameter_mm: p.nozzle_diameter_mm,
    support_overhang_angle: p.support_overhang_angle,
    speed_mm_s: p.speed_mm_s,
    first_layer_speed_mm_s: p.first_layer_speed_mm_s,
    acceleration_mm_s2: p.acceleration_mm_s2,
    jerk_mm_s: p.jerk_mm_s,
    travel_speed_mm_s: p.travel_speed_mm_s,
    travel_acceleration_mm_s2: p.travel_acceleration_mm_s2,
  };
}

// The speeds and accelerations a slice will run per kind of extrusion, read from the PrusaSlicer options it is
// sliced with, for the instant estimate (shared/estimate, FeatureMotion). Only a shop's imported config needs it:
// the service's own config drives every feature from one print speed, which the estimator knows by itself. Read as
// PrusaSlicer reads them: a percentage is of the speed it derives from, 0 is automatic (the maximum print speed,
// within the filament's volumetric limit), and accelerations of 0 fall back to the default, then to the machine's
// limits when the config emits them or applies them to its estimate.
import { type EstimateSettings, type FeatureMotion, retractionPairSeconds } from '../../shared/estimate/index.ts';
import type { ResolvedSettings } from '../../shared/settings.ts';
import { buildSliceConfig, type SliceSettings } from './config.ts';

type Options = Record<string, string>;

/** The first number of a value (per-extruder lists: the first extruder); NaN when there is none. */
function numberOf(options: Options, key: string): number {
  const raw = options[key]?.split(',')[0]?.trim() ?? '';
  return raw.endsWith('%') ? Number.NaN : Number(raw === '' ? Number.NaN : raw);
}

/** A speed stated in mm/s or as a percentage of `base`. */
function speedOf(options: Options, key: string, base: number): number {
  const raw = options[key]?.split(',')[0]?.trim() ?? '';
  if (raw.endsWith('%')) return (base * Number(raw.slice(0, -1))) / 100;
  return numberOf(options, key);
}

/** Slower than this never prints; a value that is not a positive number reads as automatic. */
const positive = (v: number) => (Number.isFinite(v) && v > 0 ? v : 0);

function limitsApply(options: Options): boolean {
  const usage = options.machine_limits_usage ?? 'time_estimate_only';
  return usage === 'emit_to_gcode' || usage === 'time_estimate_only';
}

/** A retraction, its deretraction and the lift around a travel, as the config states them. */
function retractionOf(o: Options): number {
  const retract = positive(numberOf(o, 'retract_speed')) || 35;
  const limits = limitsApply(o);
  const zLimit = limits ? positive(numberOf(o, 'machine_max_feedrate_z')) : 0;
  const zStated = positive(numberOf(o, 'travel_speed_z')) || zLimit || 10;
  return retractionPairSeconds(
    Math.max(0, numberOf(o, 'retract_length') || 0),
    {
      retract,
      deretract: positive(numberOf(o, 'deretract_speed')) || retract,
      acceleration: (limits && positive(numberOf(o, 'machine_max_acceleration_retracting'))) || 1250,
    },
    Math.max(0, numberOf(o, 'retract_lift') || 0),
    zLimit ? Math.min(zStated, zLimit) : zStated,
  );
}

/** What the estimator reads of a quote's settings: with the slice's own motion where they carry imported options. */
export function estimateSettingsOf(settings: SliceSettings): EstimateSettings {
  const base = { printer: settings.printer, material: settings.material };
  return settings.imported ? { ...base, motion: motionOfOptions(buildSliceConfig(settings).options, settings) } : base;
}

export function motionOfOptions(o: Options, settings: ResolvedSettings): FeatureMotion {
  const h = settings.printer.layer_height;
  const width = 1.125 * settings.printer.nozzle_diameter;
  const volumetric = [numberOf(o, 'filament_max_volumetric_speed'), numberOf(o, 'max_volumetric_speed')]
    .map(positive)
    .filter((v) => v > 0);
  const maxPrint = positive(numberOf(o, 'max_print_speed')) || 80;
  // Automatic speeds (0) print as fast as the volumetric limit lets them, within the maximum print speed.
  const auto = Math.min(maxPrint, ...volumetric.map((v) => v / (h * width)));
  const speed = (v: number) => {
    const stated = positive(v) || auto;
    return volumetric.length ? Math.min(stated, ...volumetric.map((q) => q / (h * width))) : stated;
  };
  const perimeter = speed(numberOf(o, 'perimeter_speed'));
  const infill = speed(numberOf(o, 'infill_speed'));
  const solid = speed(speedOf(o, 'solid_infill_speed', infill));
  const support = speed(numberOf(o, 'support_material_speed'));
  const machine = limitsApply(o)
    ? positive(Math.min(numberOf(o, 'machine_max_acceleration_extruding'), numberOf(o, 'machine_max_acceleration_x')))
    : 0;
  const accel = (key: string) => {
    const stated = positive(numberOf(o, key)) || positive(numberOf(o, 'default_acceleration')) || machine || 1500;
    return machine ? Math.min(stated, machine) : stated;
  };
  const travelMachine = limitsApply(o) ? positive(numberOf(o, 'machine_max_acceleration_travel')) : 0;
  const travelStated = positive(numberOf(o, 'travel_acceleration')) || travelMachine || accel('default_acceleration');
  return {
    perimeter_mm_s: perimeter,
    external_perimeter_mm_s: speed(speedOf(o, 'external_perimeter_speed', perimeter)),
    infill_mm_s: infill,
    solid_infill_mm_s: solid,
    top_solid_infill_mm_s: speed(speedOf(o, 'top_solid_infill_speed', solid)),
    bridge_mm_s: speed(numberOf(o, 'bridge_speed')),
    gap_fill_mm_s: speed(numberOf(o, 'gap_fill_speed')),
    support_mm_s: support,
    support_interface_mm_s: speed(speedOf(o, 'support_material_interface_speed', support)),
    first_layer_mm_s: speed(speedOf(o, 'first_layer_speed', perimeter)),
    travel_mm_s: positive(numberOf(o, 'travel_speed')) || settings.printer.travel_speed,
    perimeter_acceleration_mm_s2: accel('perimeter_acceleration'),
    infill_acceleration_mm_s2: accel('infill_acceleration'),
    travel_acceleration_mm_s2: travelMachine ? Math.min(travelStated, travelMachine) : travelStated,
    retraction_s: retractionOf(o),
    slowdown_below_layer_time_s:
      o.cooling?.split(',')[0]?.trim() === '0' ? 0 : Math.max(0, numberOf(o, 'slowdown_below_layer_time') || 0),
    min_print_speed_mm_s: positive(numberOf(o, 'min_print_speed')) || 10,
  };
}

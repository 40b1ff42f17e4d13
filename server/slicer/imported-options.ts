// How a shop's imported options meet the service's own (docs/profiles.md, "How the slice uses the config"): the
// options a request or offer setting stands for are written over the imported ones, and the options that keep the
// G-code in the one shape we read win over everything.
import { BASE_OPTIONS } from './base-config.ts';

/**
 * A shop's own PrusaSlicer options (imported: docs/profiles.md), resolved for one quote: the options of its printer
 * and material profiles, where each came from, and the settings (`section.field`) the request or the offer set
 * explicitly, whose options are written over the imported ones. Other settings came from profiles and leave the
 * imported options as they are.
 */
export interface ImportedOptions {
  options: Record<string, string>;
  sources: Record<string, string>;
  explicit: string[];
}

const SPEEDS = ['printer_config.print_speed', 'printer_config.first_layer_speed', 'printer_config.travel_speed'];
const ACCELS = ['printer_config.acceleration_print', 'printer_config.acceleration_travel'];

/** The PrusaSlicer options (as config.ts generates them) each explicit setting stands for. */
const OPTIONS_OF: Readonly<Record<string, readonly string[]>> = {
  'printer_config.bed_size_x': ['bed_shape'],
  'printer_config.bed_size_y': ['bed_shape'],
  'printer_config.bed_size_z': ['max_print_height'],
  'printer_config.nozzle_diameter': ['nozzle_diameter'],
  // The shop's first layer stays its own: PrusaSlicer prints any layer height over it.
  'printer_config.layer_height': ['layer_height'],
  'printer_config.perimeters': ['perimeters'],
  'printer_config.min_wall_count': ['perimeters'],
  'printer_config.max_wall_count': ['perimeters'],
  'printer_config.top_solid_layers': ['top_solid_layers'],
  'printer_config.bottom_solid_layers': ['bottom_solid_layers'],
  'printer_config.fill_density': ['fill_density'],
  'printer_config.infill_pattern': ['fill_pattern'],
  'printer_config.print_speed': [
    'perimeter_speed',
    'infill_speed',
    'support_material_speed',
    'bridge_speed',
    'gap_fill_speed',
    'ironing_speed',
  ],
  'printer_config.first_layer_speed': ['first_layer_speed', 'first_layer_speed_over_raft'],
  'printer_config.travel_speed': ['travel_speed'],
  'printer_config.max_print_speed': ['max_print_speed'],
  'printer_config.acceleration_print': ['machine_max_acceleration_extruding'],
  'printer_config.acceleration_travel': ['machine_max_acceleration_travel'],
  'printer_config.acceleration_retraction': ['machine_max_acceleration_retracting', 'machine_max_acceleration_e'],
  'printer_config.jerk_print': ['machine_max_jerk_x', 'machine_max_jerk_y'],
  'printer_config.jerk_retraction': ['machine_max_jerk_e'],
  'printer_config.support_material': [
    'support_material',
    'support_material_threshold',
    'support_material_spacing',
    'min_layer_height',
    'max_layer_height',
  ],
  'printer_config.support_overhang_angle': ['support_material_threshold'],
  'printer_config.support_density': ['support_material_spacing'],
  'printer_config.min_layer_height': ['min_layer_height'],
  'printer_config.max_layer_height': ['max_layer_height'],
  'material_config.retraction_distance': ['retract_length'],
  'material_config.retraction_speed': ['retract_speed', 'machine_max_feedrate_e'],
};

/** A request's acceleration is the machine limit: the shop's per-feature M204 values would override it. */
const ACCEL_FEATURES = [
  'default_acceleration',
  'perimeter_acceleration',
  'infill_acceleration',
  'bridge_acceleration',
  'first_layer_acceleration',
  'first_layer_acceleration_over_raft',
  'external_perimeter_acceleration',
  'solid_infill_acceleration',
  'top_solid_infill_acceleration',
];
/** A request's retraction stands over the filament's own override of the printer's. */
const FILAMENT_RETRACT: Readonly<Record<string, string>> = {
  'material_config.retraction_distance': 'filament_retract_length',
  'material_config.retraction_speed': 'filament_retract_speed',
};

/** Sparse patterns PrusaSlicer slices at 100 % (it refuses the others there, as its GUI says). */
const SOLID_CAPABLE = new Set([
  'rectilinear',
  'alignedrectilinear',
  'monotonic',
  'concentric',
  'hilbertcurve',
  'archimedeanchords',
  'octagramspiral',
]);

export function explicitOptions(
  generated: Record<string, string>,
  explicit: string[],
  imported: Record<string, string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  const take = (key: string) => {
    if (generated[key] !== undefined) out[key] = generated[key];
  };
  for (const field of explicit) {
    for (const key of OPTIONS_OF[field] ?? []) take(key);
    const override = FILAMENT_RETRACT[field];
    if (override) out[override] = 'nil';
  }
  // Axis limits must not undercut an explicit speed or acceleration (config.ts sizes them from all of them).
  if (explicit.some((f) => SPEEDS.includes(f)))
    for (const k of ['machine_max_feedrate_x', 'machine_max_feedrate_y']) take(k);
  if (explicit.some((f) => ACCELS.includes(f))) {
    for (const k of ['machine_max_acceleration_x', 'machine_max_acceleration_y']) take(k);
    for (const k of ACCEL_FEATURES) out[k] = '0';
  }
  // A request for solid infill on a shop pattern that cannot be solid gets rectilinear, as PrusaSlicer's GUI offers.
  const pattern = out.fill_pattern ?? imported.fill_pattern ?? '';
  if (out.fill_density === '100%' && !SOLID_CAPABLE.has(pattern)) out.fill_pattern = 'rectilinear';
  return out;
}

/** Options no config may change: the G-code's shape (what we read), its name, and scripts that never run. */
const PINNED = [
  'printer_technology',
  'use_relative_e_distances',
  'gcode_comments',
  'gcode_label_objects',
  'remaining_times',
  'silent_mode',
  'thumbnails',
  'post_process',
  'output_filename_format',
  'binary_gcode',
  'complete_objects',
  'notes',
  'printer_notes',
  'filament_notes',
];

const RESETS_E = /\bG92\s+E0\b/;

export function pinned(imported: ImportedOptions): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of PINNED) if (BASE_OPTIONS[key] !== undefined) out[key] = BASE_OPTIONS[key];
  // Relative E needs the extruder reset each layer (PrusaSlicer refuses to slice without): a shop's own layer
  // G-code that lacks it gets it appended.
  const layer = imported.options.layer_gcode ?? BASE_OPTIONS.layer_gcode ?? '';
  const before = imported.options.before_layer_gcode ?? BASE_OPTIONS.before_layer_gcode ?? '';
  if (!RESETS_E.test(layer) && !RESETS_E.test(before)) out.layer_gcode = layer ? `${layer}\\nG92 E0` : 'G92 E0';
  return out;
}

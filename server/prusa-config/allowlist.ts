// Which PrusaSlicer options a shop's config may bring, and why the others may not. A config is code: its
// post_process runs any command, its print-host keys are credentials, its G-code blocks end up in the file we
// time. Only the options listed here (those that shape the slice, its time or its material) reach the slicer, each
// checked against a sane range so a hostile value is a 400 naming the key, never a slicer crash.
// The kind of each option (printer, print, filament) follows PrusaSlicer's own preset groups as the vendor bundle
// /usr/share/PrusaSlicer/profiles/PrusaResearch.ini files them under [printer:], [print:] and [filament:].
import { PRUSA_FILL_PATTERNS } from '../slicer/index.ts';

export type PresetKind = 'printer' | 'print' | 'filament';

/** How a value is checked. Numbers are finite and within [min, max]; lists hold at most MAX_LIST_ITEMS. */
type Check =
  | { t: 'num'; min: number; max: number; int?: boolean; pct?: boolean; pctMax?: number; list?: boolean; nil?: boolean }
  | { t: 'enum'; values: readonly string[] }
  | { t: 'bed' }
  | { t: 'gcode' };

export interface AllowedOption {
  kind: PresetKind;
  check: Check;
}

export const MAX_LIST_ITEMS = 16;
export const MAX_VALUE_CHARS = 4096;
export const MAX_GCODE_CHARS = 64 * 1024;

const num = (min: number, max: number, more: Partial<Extract<Check, { t: 'num' }>> = {}): Check => ({
  t: 'num',
  min,
  max,
  ...more,
});
const int = (min: number, max: number, more: Partial<Extract<Check, { t: 'num' }>> = {}) =>
  num(min, max, { int: true, ...more });
const bool = int(0, 1);
const oneOf = (...values: string[]): Check => ({ t: 'enum', values });

const SPEED = num(0, 2000); // mm/s
const SPEED_OR_PCT = num(0, 2000, { pct: true });
const ACCEL = num(0, 200_000); // mm/s²
const WIDTH = num(0, 20, { pct: true }); // mm, or % of the nozzle
const PAIR = (min: number, max: number) => num(min, max, { list: true }); // machine limits: normal, silent
const FILL_PATTERNS = oneOf(...PRUSA_FILL_PATTERNS);
const SURFACE_PATTERNS = oneOf(
  'rectilinear',
  'monotonic',
  'monotoniclines',
  'alignedrectilinear',
  'concentric',
  'hilbertcurve',
  'archimedeanchords',
  'octagramspiral',
);

function group(kind: PresetKind, check: Check, keys: string[]): [string, AllowedOption][] {
  return keys.map((k) => [k, { kind, check }]);
}

/** Custom G-code blocks: they change the print time, so they are kept only when the import asks for it. */
export const CUSTOM_GCODE: Readonly<Record<string, PresetKind>> = {
  start_gcode: 'printer',
  end_gcode: 'printer',
  before_layer_gcode: 'printer',
  layer_gcode: 'printer',
  toolchange_gcode: 'printer',
  between_objects_gcode: 'printer',
  color_change_gcode: 'printer',
  pause_print_gcode: 'printer',
  template_custom_gcode: 'printer',
  start_filament_gcode: 'filament',
  end_filament_gcode: 'filament',
};

export const ALLOWED: ReadonlyMap<string, AllowedOption> = new Map([
  // Printer: the machine, its limits (the time estimate runs on them) and its retraction.
  ...group('printer', { t: 'bed' }, ['bed_shape']),
  ...group('printer', num(1, 10_000), ['max_print_height']),
  ...group('printer', num(0.05, 5, { list: true }), ['nozzle_diameter']),
  ...group('printer', num(0, 5, { list: true }), ['min_layer_height', 'max_layer_height']),
  ...group('printer', num(-50, 50), ['z_offset']),
  ...group('printer', oneOf('emit_to_gcode', 'time_estimate_only', 'ignore'), ['machine_limits_usage']),
  // The firmware flavour changes the time estimate (Marlin 1 takes one acceleration for printing and travel,
  // Marlin 2 and Klipper tell them apart). Every flavour PrusaSlicer writes extrusion for (relative E is pinned).
  ...group(
    'printer',
    oneOf(
      'marlin',
      'marlin2',
      'klipper',
      'reprap',
      'reprapfirmware',
      'repetier',
      'smoothie',
      'sprinter',
      'teacup',
      'makerware',
      'sailfish',
      'mach3',
      'machinekit',
    ),
    ['gcode_flavor'],
  ),
  // Travel lift shapes (2.8 and later): ramps and obstacle lifts change travel time.
  ...group('printer', num(0, 1, { list: true, int: true }), ['travel_ramping_lift', 'travel_lift_before_obstacle']),
  ...group('printer', num(0, 100, { list: true }), ['travel_max_lift']),
  ...group('printer', num(0, 90, { list: true }), ['travel_slope']),
  ...group('printer', PAIR(0, 200_000), [
    'machine_max_acceleration_e',
    'machine_max_acceleration_extruding',
    'machine_max_acceleration_retracting',
    'machine_max_acceleration_travel',
    'machine_max_acceleration_x',
    'machine_max_acceleration_y',
    'machine_max_acceleration_z',
  ]),
  ...group('printer', PAIR(0, 5000), [
    'machine_max_feedrate_e',
    'machine_max_feedrate_x',
    'machine_max_feedrate_y',
    'machine_max_feedrate_z',
    'machine_min_extruding_rate',
    'machine_min_travel_rate',
  ]),
  ...group('printer', PAIR(0, 1000), [
    'machine_max_jerk_e',
    'machine_max_jerk_x',
    'machine_max_jerk_y',
    'machine_max_jerk_z',
  ]),
  ...group('printer', num(0, 10_000, { list: true }), ['retract_lift_above', 'retract_lift_below']),
  ...group('printer', num(0, 100, { list: true }), [
    'retract_length',
    'retract_length_toolchange',
    'retract_lift',
    'retract_restart_extra',
    'retract_restart_extra_toolchange',
    'retract_before_travel',
  ]),
  ...group('printer', num(0, 1000, { list: true }), ['retract_speed', 'deretract_speed']),
  ...group('printer', num(0, 100, { list: true, pct: true }), ['retract_before_wipe']),
  ...group('printer', num(0, 1, { list: true, int: true }), ['retract_layer_change', 'wipe']),
  ...group('printer', bool, ['use_firmware_retraction', 'variable_layer_height']),
  // Print: layers, walls, infill, supports, skirt and brim, speeds, accelerations, widths.
  ...group('print', num(0.01, 5), ['layer_height']),
  ...group('print', num(0.01, 5, { pct: true }), ['first_layer_height']),
  ...group('print', int(0, 100), ['perimeters', 'top_solid_layers', 'bottom_solid_layers', 'skirts', 'raft_layers']),
  ...group('print', int(0, 10_000), [
    'skirt_height',
    'infill_every_layers',
    'solid_infill_every_layers',
    'support_material_interface_layers',
    'support_material_enforce_layers',
    'support_material_interface_contact_loops',
  ]),
  ...group('print', int(-1, 100), ['support_material_bottom_interface_layers']),
  ...group('print', num(0, 100), [
    'top_solid_min_thickness',
    'bottom_solid_min_thickness',
    'skirt_distance',
    'min_skirt_length',
    'brim_width',
    'brim_separation',
    'support_material_contact_distance',
    'support_material_bottom_contact_distance',
    'support_material_spacing',
    'support_material_interface_spacing',
    'support_material_closing_radius',
    'raft_contact_distance',
    'raft_expansion',
    'raft_first_layer_expansion',
    'infill_anchor_max',
    'gcode_resolution',
    'resolution',
    'slice_closing_radius',
    'elefant_foot_compensation',
    'fuzzy_skin_thickness',
    'fuzzy_skin_point_dist',
    'ironing_spacing',
    'wall_distribution_count',
  ]),
  ...group('print', num(-10, 10), ['xy_size_compensation']),
  ...group('print', num(0, 100_000), ['solid_infill_below_area']),
  ...group('print', num(0, 100, { pct: true, pctMax: 100 }), [
    'fill_density',
    'raft_first_layer_density',
    'support_material_xy_spacing',
    'infill_overlap',
    'ironing_flowrate',
    'min_feature_size',
    'min_bead_width',
    'wall_transition_filter_deviation',
  ]),
  ...group('print', num(0, 10_000, { pct: true }), ['infill_anchor', 'wall_transition_length']),
  ...group('print', num(-360, 360), ['fill_angle', 'bridge_angle', 'support_material_angle', 'wall_transition_angle']),
  ...group('print', int(0, 90), ['support_material_threshold']),
  ...group('print', num(0, 10), ['bridge_flow_ratio']),
  ...group('print', bool, [
    'support_material',
    'support_material_auto',
    'support_material_buildplate_only',
    'support_material_with_sheath',
    'support_material_synchronize_layers',
    'dont_support_bridges',
    'extra_perimeters',
    'thin_walls',
    'overhangs',
    'gap_fill_enabled',
    'external_perimeters_first',
    'infill_only_where_needed',
    'infill_first',
    'interface_shells',
    'thick_bridges',
    'ironing',
    'spiral_vase',
    'avoid_crossing_perimeters',
    'only_retract_when_crossing_perimeters',
    // PrusaSlicer 2.6 and later (2.5 ignores them): slow-downs on overhangs, widths, seams and first-layer walls.
    'enable_dynamic_overhang_speeds',
    'avoid_crossing_curled_overhangs',
    'extra_perimeters_on_overhangs',
    'automatic_extrusion_widths',
    'automatic_infill_combination',
    'only_one_perimeter_first_layer',
    'staggered_inner_seams',
    'prefer_clockwise_movements',
    'scarf_seam_entire_loop',
    'scarf_seam_on_inner_perimeters',
    'scarf_seam_only_on_smooth',
  ]),
  // 0/1 up to 2.5; 2.9 names its levels.
  ...group('print', oneOf('0', '1', 'none', 'ensure_critical_only', 'ensure_moderate', 'ensure_all'), [
    'ensure_vertical_shell_thickness',
  ]),
  ...group('print', oneOf('none', 'all', 'topmost'), ['top_one_perimeter_type']),
  ...group('print', oneOf('nowhere', 'contours', 'everywhere'), ['scarf_seam_placement']),
  ...group('print', num(0, 1000), ['scarf_seam_length', 'scarf_seam_max_segment_length']),
  ...group('print', num(0, 1000, { pct: true }), [
    'scarf_seam_start_height',
    'seam_gap_distance',
    'automatic_infill_combination_max_layer_height',
  ]),
  // Organic supports' shape (support_material_style = organic).
  ...group('print', num(0, 1000), [
    'support_tree_angle',
    'support_tree_angle_slow',
    'support_tree_branch_diameter',
    'support_tree_branch_diameter_angle',
    'support_tree_branch_diameter_double_wall',
    'support_tree_branch_distance',
    'support_tree_tip_diameter',
  ]),
  ...group('print', num(0, 1000, { pct: true }), ['support_tree_top_rate']),
  ...group('print', num(0, 10_000, { pct: true }), ['avoid_crossing_perimeters_max_detour']),
  ...group('print', FILL_PATTERNS, ['fill_pattern']),
  ...group('print', SURFACE_PATTERNS, ['top_fill_pattern', 'bottom_fill_pattern']),
  ...group('print', oneOf('random', 'nearest', 'aligned', 'rear'), ['seam_position']),
  ...group('print', oneOf('classic', 'arachne'), ['perimeter_generator']),
  ...group('print', oneOf('grid', 'snug', 'organic'), ['support_material_style']),
  ...group('print', oneOf('rectilinear', 'rectilinear-grid', 'honeycomb'), ['support_material_pattern']),
  ...group('print', oneOf('auto', 'rectilinear', 'concentric'), ['support_material_interface_pattern']),
  ...group('print', oneOf('no_brim', 'outer_only', 'inner_only', 'outer_and_inner'), ['brim_type']),
  ...group('print', oneOf('top', 'topmost', 'solid'), ['ironing_type']),
  ...group('print', oneOf('none', 'external', 'all'), ['fuzzy_skin']),
  ...group('print', oneOf('disabled', 'limited', 'enabled'), ['draft_shield']),
  ...group('print', oneOf('regular', 'even_odd', 'close_holes'), ['slicing_mode']),
  ...group('print', SPEED, [
    'perimeter_speed',
    'infill_speed',
    'support_material_speed',
    'bridge_speed',
    'gap_fill_speed',
    'ironing_speed',
    'travel_speed',
    'travel_speed_z',
    'max_print_speed',
  ]),
  ...group('print', SPEED_OR_PCT, [
    'external_perimeter_speed',
    'small_perimeter_speed',
    'solid_infill_speed',
    'top_solid_infill_speed',
    'support_material_interface_speed',
    'first_layer_speed',
    'first_layer_speed_over_raft',
    'overhang_speed_0',
    'overhang_speed_1',
    'overhang_speed_2',
    'overhang_speed_3',
    'over_bridge_speed',
  ]),
  ...group('print', SPEED, ['first_layer_infill_speed']),
  ...group('print', num(0, 1000), [
    'max_volumetric_speed',
    'max_volumetric_extrusion_rate_slope_positive',
    'max_volumetric_extrusion_rate_slope_negative',
  ]),
  ...group('print', ACCEL, [
    'default_acceleration',
    'perimeter_acceleration',
    'infill_acceleration',
    'bridge_acceleration',
    'first_layer_acceleration',
    'first_layer_acceleration_over_raft',
    'external_perimeter_acceleration',
    'solid_infill_acceleration',
    'top_solid_infill_acceleration',
    'travel_acceleration',
  ]),
  ...group('print', WIDTH, [
    'extrusion_width',
    'first_layer_extrusion_width',
    'perimeter_extrusion_width',
    'external_perimeter_extrusion_width',
    'infill_extrusion_width',
    'solid_infill_extrusion_width',
    'top_infill_extrusion_width',
    'support_material_extrusion_width',
  ]),
  // Filament: what it weighs and costs, how fast it may flow, and the cooling slow-down that stretches layers.
  ...group('filament', num(0.5, 5, { list: true }), ['filament_diameter']),
  ...group('filament', num(0, 30, { list: true }), ['filament_density']),
  ...group('filament', num(0, 1_000_000, { list: true }), ['filament_cost']),
  ...group('filament', num(0, 100_000, { list: true }), ['filament_spool_weight']),
  ...group('filament', num(0, 1000, { list: true }), ['filament_max_volumetric_speed']),
  ...group('filament', num(0, 10, { list: true }), ['extrusion_multiplier']),
  ...group('filament', num(0, 1, { list: true, int: true }), ['cooling', 'filament_soluble']),
  ...group('filament', num(0, 10_000, { list: true }), ['slowdown_below_layer_time', 'fan_below_layer_time']),
  ...group('filament', num(0, 1000, { list: true }), ['min_print_speed']),
  ...group('filament', num(0, 100, { list: true, nil: true }), [
    'filament_retract_length',
    'filament_retract_lift',
    'filament_retract_restart_extra',
    'filament_retract_before_travel',
  ]),
  ...group('filament', num(0, 10_000, { list: true, nil: true }), [
    'filament_retract_lift_above',
    'filament_retract_lift_below',
  ]),
  ...group('filament', num(0, 1000, { list: true, nil: true }), ['filament_retract_speed', 'filament_deretract_speed']),
  ...group('filament', num(0, 1, { list: true, int: true, nil: true }), [
    'filament_retract_layer_change',
    'filament_wipe',
  ]),
  ...group('filament', num(0, 100, { list: true, pct: true, nil: true }), ['filament_retract_before_wipe']),
]);

/** Names, not options: the import reads the preset names from them; nothing else is taken. */
export const NAME_KEYS = new Set(['printer_settings_id', 'print_settings_id', 'filament_settings_id']);

/** Refused classes: the reason is shown to the merchant. A key matching none of these and not allowed is ignored. */
const REFUSED: { test: (key: string) => boolean; reason: string; secret?: boolean }[] = [
  {
    test: (k) => k === 'print_host' || k.startsWith('printhost_') || k === 'host_type',
    reason: 'print-host address or credential: never stored, never sent back',
    secret: true,
  },
  { test: (k) => k === 'post_process', reason: 'runs a command on the slicing server: never run' },
  {
    test: (k) => k === 'output_filename_format',
    reason: 'output path and file name are the service’s own',
  },
  { test: (k) => k === 'gcode_substitutions', reason: 'rewrites the G-code the service reads: never applied' },
  { test: (k) => k === 'binary_gcode', reason: "the service's own slices are text G-code: pinned off" },
  { test: (k) => k.startsWith('thumbnails'), reason: 'thumbnails are not rendered by the service' },
  {
    test: (k) =>
      [
        'use_relative_e_distances',
        'use_volumetric_e',
        'gcode_comments',
        'gcode_label_objects',
        'remaining_times',
        'silent_mode',
        'printer_technology',
        'extrusion_axis',
        'complete_objects',
      ].includes(k),
    reason: 'pinned: the service reads the G-code in one known shape',
  },
];

export type Verdict =
  | { as: 'allowed'; option: AllowedOption }
  | { as: 'gcode'; kind: PresetKind }
  | { as: 'name' }
  | { as: 'refused'; reason: string; secret: boolean }
  | { as: 'ignored'; reason: string };

const IGNORED_REASON = {
  unknown: 'not on the allowlist of options that shape the slice, its time or its material',
  gcode: 'custom G-code changes the print time: dropped unless the import sets keep_custom_gcode',
};

/** What the import does with one option. */
export function classify(key: string): Verdict {
  const allowed = ALLOWED.get(key);
  if (allowed) return { as: 'allowed', option: allowed };
  const gcodeKind = CUSTOM_GCODE[key];
  if (gcodeKind) return { as: 'gcode', kind: gcodeKind };
  if (NAME_KEYS.has(key)) return { as: 'name' };
  const refused = REFUSED.find((r) => r.test(key));
  if (refused) return { as: 'refused', reason: refused.reason, secret: !!refused.secret };
  return { as: 'ignored', reason: IGNORED_REASON.unknown };
}

export const GCODE_IGNORED_REASON = IGNORED_REASON.gcode;

const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/** Why a value is not acceptable for an allowed option, or null. Values are PrusaSlicer text. */
export function valueProblem(check: Check, value: string): string | null {
  if (/[\r\n]/.test(value)) return 'contains a line break';
  if (check.t === 'gcode')
    return value.length > MAX_GCODE_CHARS ? `is longer than ${MAX_GCODE_CHARS} characters` : null;
  if (value.length > MAX_VALUE_CHARS) return `is longer than ${MAX_VALUE_CHARS} characters`;
  if (check.t === 'enum') return check.values.includes(value) ? null : `must be one of ${check.values.join(', ')}`;
  if (check.t === 'bed') return bedProblem(value);
  const items = check.list ? value.split(',') : [value];
  if (items.length > MAX_LIST_ITEMS) return `lists more than ${MAX_LIST_ITEMS} values`;
  for (const item of items) {
    const problem = numberProblem(check, item.trim());
    if (problem) return problem;
  }
  return null;
}

function numberProblem(check: Extract<Check, { t: 'num' }>, text: string): string | null {
  if (check.nil && text === 'nil') return null;
  const pct = check.pct && text.endsWith('%');
  const body = pct ? text.slice(0, -1) : text;
  if (!NUMBER.test(body)) return `must be a number${check.pct ? ' or a percentage' : ''}, not "${text.slice(0, 40)}"`;
  const n = Number(body);
  if (!Number.isFinite(n)) return 'must be a finite number';
  if (check.int && !Number.isInteger(n)) return 'must be a whole number';
  const [min, max] = pct ? [0, check.pctMax ?? 10_000] : [check.min, check.max];
  if (n < min || n > max) return `must be between ${min} and ${max}${pct ? '%' : ''}`;
  return null;
}

/** bed_shape: 3 to 64 points "XxY", each coordinate within ±10 m. */
function bedProblem(value: string): string | null {
  const points = value.split(',');
  if (points.length < 3 || points.length > 64) return 'must list 3 to 64 points';
  for (const p of points) {
    const xy = p.trim().split('x');
    if (xy.length !== 2 || xy.some((c) => !NUMBER.test(c) || Math.abs(Number(c)) > 10_000))
      return `has a point "${p.slice(0, 40)}" that is not XxY in millimetres`;
  }
  return null;
}

// An Orca Slicer / Bambu Studio preset (JSON: type machine|process|filament, name, inherits, options as strings
// or arrays of strings) as a PresetSet of PrusaSlicer options. Only options with a true PrusaSlicer equivalent
// are translated (the table below); every other option is reported as ignored with its reason. An `inherits`
// names a system preset of that slicer, which this service does not have: reported, not followed.
import { ALLOWED } from './allowlist.ts';
import type { FlatPreset, PresetSet } from './config-set.ts';
import { ConfigError, type ImportNote, MAX_CONFIG_BYTES, MAX_CONFIG_KEYS, type ReadConfig } from './notes.ts';

/** Orca option -> PrusaSlicer option, where both mean the same thing in the same unit. */
export const ORCA_TO_PRUSA: Readonly<Record<string, string>> = {
  // machine
  printable_area: 'bed_shape',
  printable_height: 'max_print_height',
  nozzle_diameter: 'nozzle_diameter',
  min_layer_height: 'min_layer_height',
  max_layer_height: 'max_layer_height',
  retraction_length: 'retract_length',
  retraction_speed: 'retract_speed',
  deretraction_speed: 'deretract_speed',
  retraction_minimum_travel: 'retract_before_travel',
  retract_when_changing_layer: 'retract_layer_change',
  retract_before_wipe: 'retract_before_wipe',
  z_hop: 'retract_lift',
  wipe: 'wipe',
  machine_max_acceleration_e: 'machine_max_acceleration_e',
  machine_max_acceleration_extruding: 'machine_max_acceleration_extruding',
  machine_max_acceleration_retracting: 'machine_max_acceleration_retracting',
  machine_max_acceleration_travel: 'machine_max_acceleration_travel',
  machine_max_acceleration_x: 'machine_max_acceleration_x',
  machine_max_acceleration_y: 'machine_max_acceleration_y',
  machine_max_acceleration_z: 'machine_max_acceleration_z',
  machine_max_speed_e: 'machine_max_feedrate_e',
  machine_max_speed_x: 'machine_max_feedrate_x',
  machine_max_speed_y: 'machine_max_feedrate_y',
  machine_max_speed_z: 'machine_max_feedrate_z',
  machine_max_jerk_e: 'machine_max_jerk_e',
  machine_max_jerk_x: 'machine_max_jerk_x',
  machine_max_jerk_y: 'machine_max_jerk_y',
  machine_max_jerk_z: 'machine_max_jerk_z',
  machine_min_extruding_rate: 'machine_min_extruding_rate',
  machine_min_travel_rate: 'machine_min_travel_rate',
  // process
  layer_height: 'layer_height',
  initial_layer_print_height: 'first_layer_height',
  wall_loops: 'perimeters',
  top_shell_layers: 'top_solid_layers',
  bottom_shell_layers: 'bottom_solid_layers',
  top_shell_thickness: 'top_solid_min_thickness',
  bottom_shell_thickness: 'bottom_solid_min_thickness',
  sparse_infill_density: 'fill_density',
  sparse_infill_pattern: 'fill_pattern',
  top_surface_pattern: 'top_fill_pattern',
  bottom_surface_pattern: 'bottom_fill_pattern',
  seam_position: 'seam_position',
  wall_generator: 'perimeter_generator',
  infill_direction: 'fill_angle',
  outer_wall_speed: 'external_perimeter_speed',
  inner_wall_speed: 'perimeter_speed',
  small_perimeter_speed: 'small_perimeter_speed',
  sparse_infill_speed: 'infill_speed',
  internal_solid_infill_speed: 'solid_infill_speed',
  top_surface_speed: 'top_solid_infill_speed',
  support_speed: 'support_material_speed',
  support_interface_speed: 'support_material_interface_speed',
  bridge_speed: 'bridge_speed',
  gap_infill_speed: 'gap_fill_speed',
  travel_speed: 'travel_speed',
  initial_layer_speed: 'first_layer_speed',
  default_acceleration: 'default_acceleration',
  inner_wall_acceleration: 'perimeter_acceleration',
  sparse_infill_acceleration: 'infill_acceleration',
  bridge_acceleration: 'bridge_acceleration',
  initial_layer_acceleration: 'first_layer_acceleration',
  line_width: 'extrusion_width',
  initial_layer_line_width: 'first_layer_extrusion_width',
  outer_wall_line_width: 'external_perimeter_extrusion_width',
  inner_wall_line_width: 'perimeter_extrusion_width',
  sparse_infill_line_width: 'infill_extrusion_width',
  internal_solid_infill_line_width: 'solid_infill_extrusion_width',
  top_surface_line_width: 'top_infill_extrusion_width',
  support_line_width: 'support_material_extrusion_width',
  enable_support: 'support_material',
  support_threshold_angle: 'support_material_threshold',
  support_on_build_plate_only: 'support_material_buildplate_only',
  raft_layers: 'raft_layers',
  skirt_loops: 'skirts',
  skirt_distance: 'skirt_distance',
  skirt_height: 'skirt_height',
  brim_width: 'brim_width',
  bridge_flow: 'bridge_flow_ratio',
  detect_thin_wall: 'thin_walls',
  spiral_mode: 'spiral_vase',
  elefant_foot_compensation: 'elefant_foot_compensation',
  ensure_vertical_shell_thickness: 'ensure_vertical_shell_thickness',
  // filament
  filament_diameter: 'filament_diameter',
  filament_density: 'filament_density',
  filament_cost: 'filament_cost',
  filament_max_volumetric_speed: 'filament_max_volumetric_speed',
  filament_flow_ratio: 'extrusion_multiplier',
  slow_down_for_layer_cooling: 'cooling',
  slow_down_layer_time: 'slowdown_below_layer_time',
  slow_down_min_speed: 'min_print_speed',
  filament_retraction_length: 'filament_retract_length',
  filament_retraction_speed: 'filament_retract_speed',
  filament_z_hop: 'filament_retract_lift',
};

/** Orca option values that name the same thing differently in PrusaSlicer. */
const VALUE_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  fill_pattern: { zigzag: 'rectilinear' },
  top_fill_pattern: { monotonicline: 'monotoniclines', zigzag: 'rectilinear' },
  bottom_fill_pattern: { monotonicline: 'monotoniclines', zigzag: 'rectilinear' },
  seam_position: { back: 'rear' },
};

/** Keys that describe the preset rather than the print. */
const META = new Set([
  'type',
  'name',
  'from',
  'setting_id',
  'instantiation',
  'version',
  'filament_id',
  'is_custom_defined',
]);

const KIND = { machine: 'printer', process: 'print', filament: 'filament' } as const;

function textOf(key: string, v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(Number(v));
  if (Array.isArray(v) && v.every((x) => typeof x === 'string') && v.length <= 64) return v.join(',');
  throw new ConfigError(key, 'must be a string or an array of at most 64 strings');
}

function parseJson(text: string): Record<string, unknown> {
  if (text.length > MAX_CONFIG_BYTES) throw new ConfigError('file', `is larger than ${MAX_CONFIG_BYTES} bytes`, 413);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ConfigError('file', 'is not valid JSON');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw new ConfigError('file', 'must be one Orca Slicer or Bambu Studio preset object');
  if (Object.keys(doc).length > MAX_CONFIG_KEYS)
    throw new ConfigError('file', `holds more than ${MAX_CONFIG_KEYS} options`, 413);
  return doc as Record<string, unknown>;
}

/** One Orca/Bambu preset as a PresetSet holding one preset of its kind, plus what could not be translated. */
export function readOrcaPreset(text: string): ReadConfig {
  const doc = parseJson(text);
  const kind = KIND[doc.type as keyof typeof KIND];
  if (!kind) throw new ConfigError('type', 'must be "machine", "process" or "filament"');
  const name = typeof doc.name === 'string' && doc.name.trim() ? doc.name.trim().slice(0, 200) : `Imported ${kind}`;
  const preset: FlatPreset = { name, options: {}, sources: {} };
  const ignored: ImportNote[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if (META.has(key)) continue;
    if (key === 'inherits') {
      if (typeof value === 'string' && value)
        ignored.push({
          key,
          reason: `names the system preset "${value.slice(0, 200)}", which this service does not have: only the options in this file are imported`,
        });
      continue;
    }
    const prusa = ORCA_TO_PRUSA[key];
    if (!prusa) {
      ignored.push({ key, reason: 'has no PrusaSlicer option of the same meaning' });
      continue;
    }
    const raw = textOf(key, value);
    const translated = VALUE_NAMES[prusa]?.[raw] ?? raw;
    const allowed = ALLOWED.get(prusa)?.check;
    if (allowed?.t === 'enum' && !allowed.values.includes(translated)) {
      ignored.push({ key, reason: `"${raw.slice(0, 40)}" has no PrusaSlicer ${prusa} of the same meaning` });
      continue;
    }
    preset.options[prusa] = translated;
    preset.sources[prusa] = name;
  }
  const set: PresetSet = { printer: null, prints: [], filaments: [] };
  if (kind === 'printer') set.printer = preset;
  else if (kind === 'print') set.prints.push(preset);
  else set.filaments.push(preset);
  return { set, ignored };
}

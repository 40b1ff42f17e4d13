// PrusaSlicer options we pin regardless of the request, so a slice depends only on the mesh, the resolved settings
// and the slicer's version, never on the binary's defaults or a user's PrusaSlicer presets. Values start from
// `prusa-slicer --save` defaults; departures are commented. Request-driven options live in config.ts.
// One set serves 2.9 (the slicer setup installs) and 2.5 (the fallback): each version ignores, without a word,
// a key it does not know, so an option only one of them has is pinned here for that one (checked against both
// `--help-fff` lists by test/slicer.test.ts).

// Options 2.9 added (2.5 ignores them), at 2.9's own defaults unless commented.
const ADDED_IN_2_9: Readonly<Record<string, string>> = {
  binary_gcode: '0', // 2.9 can write binary G-code, which gcode-stats.ts cannot read
  arc_fitting: 'disabled', // G2/G3 arcs would change the time estimate and the moves we sum
  automatic_extrusion_widths: '0',
  automatic_infill_combination: '0',
  avoid_crossing_curled_overhangs: '0',
  enable_dynamic_overhang_speeds: '0',
  extra_perimeters_on_overhangs: '0',
  only_one_perimeter_first_layer: '0',
  top_one_perimeter_type: 'none',
  first_layer_infill_speed: '0',
  over_bridge_speed: '0',
  external_perimeter_acceleration: '0', // 0 as default_acceleration below: the machine limits apply
  solid_infill_acceleration: '0',
  top_solid_infill_acceleration: '0',
  wipe_tower_acceleration: '0',
  travel_max_lift: '0',
  travel_ramping_lift: '0',
  travel_slope: '0',
  travel_lift_before_obstacle: '0',
  filament_infill_max_speed: '0',
  filament_infill_max_crossing_speed: '0',
  filament_shrinkage_compensation_xy: '0%',
  filament_shrinkage_compensation_z: '0%',
  scarf_seam_placement: 'nowhere',
  seam_gap_distance: '15%',
  staggered_inner_seams: '0',
  prefer_clockwise_movements: '0',
  interlocking_beam: '0',
  nozzle_high_flow: '0',
};

export const BASE_OPTIONS: Readonly<Record<string, string>> = {
  printer_technology: 'FFF',
  // G-code shape: Marlin 2, relative E (easy to sum; needs the per-layer G92 E0), no verbose comments.
  gcode_flavor: 'marlin2',
  use_relative_e_distances: '1',
  layer_gcode: 'G92 E0',
  before_layer_gcode: '',
  gcode_comments: '0',
  gcode_label_objects: '0',
  remaining_times: '0', // no M73 lines: smaller file, nothing we read
  thumbnails: '',
  start_gcode: 'G28 ; home all axes\\nG1 Z5 F5000 ; lift nozzle',
  end_gcode: 'M104 S0\\nM140 S0\\nM107\\nM84',
  // Per-extruder string lists must be quoted: an empty bare value makes 2.5 read garbage.
  start_filament_gcode: '""',
  end_filament_gcode: '""',
  toolchange_gcode: '',
  template_custom_gcode: '',
  color_change_gcode: 'M600',
  pause_print_gcode: 'M601',
  post_process: '', // never run scripts
  notes: '',
  printer_notes: '',
  filament_notes: '""',
  output_filename_format: 'out.gcode',
  // Time estimate: machine limits drive it (set per request in config.ts), normal mode only.
  machine_limits_usage: 'time_estimate_only',
  silent_mode: '0',
  default_acceleration: '0', // 0 = no M204 in the G-code, so the machine limits apply throughout
  perimeter_acceleration: '0',
  infill_acceleration: '0',
  bridge_acceleration: '0',
  first_layer_acceleration: '0',
  first_layer_acceleration_over_raft: '0',
  machine_max_acceleration_z: '500,500',
  machine_max_feedrate_z: '12,12',
  machine_max_jerk_z: '0.4,0.4',
  machine_min_extruding_rate: '0,0',
  machine_min_travel_rate: '0,0',
  // Geometry and extrusion: auto widths follow the nozzle (1.125 × nozzle, 1 × for top and support).
  extrusion_width: '0',
  first_layer_extrusion_width: '0',
  perimeter_extrusion_width: '0',
  external_perimeter_extrusion_width: '0',
  infill_extrusion_width: '0',
  solid_infill_extrusion_width: '0',
  top_infill_extrusion_width: '0',
  support_material_extrusion_width: '0',
  extrusion_multiplier: '1',
  perimeter_generator: 'arachne',
  extra_perimeters: '0', // off (default on): perimeters stays the wall count the request clamps
  // A boolean in 2.5; 2.9 reads this 0 as 'partial', its equivalent of 2.5's off (PrusaSlicer's legacy mapping).
  ensure_vertical_shell_thickness: '0',
  thin_walls: '1',
  overhangs: '1',
  gap_fill_enabled: '1',
  external_perimeters_first: '0',
  seam_position: 'aligned',
  top_solid_min_thickness: '0', // solid layer counts come from the request alone
  bottom_solid_min_thickness: '0',
  top_fill_pattern: 'monotonic',
  bottom_fill_pattern: 'monotonic',
  fill_angle: '45',
  infill_anchor: '600%',
  infill_anchor_max: '50',
  infill_overlap: '25%',
  infill_every_layers: '1',
  infill_only_where_needed: '0', // 2.5 only (2.9 dropped it; off there)
  infill_first: '0',
  solid_infill_every_layers: '0',
  solid_infill_below_area: '0', // default 70 mm²; 0 so small regions get the requested density too
  bridge_angle: '0',
  bridge_flow_ratio: '1',
  thick_bridges: '1',
  ironing: '0',
  fuzzy_skin: 'none',
  spiral_vase: '0',
  complete_objects: '0',
  interface_shells: '0',
  xy_size_compensation: '0',
  elefant_foot_compensation: '0',
  z_offset: '0',
  resolution: '0',
  gcode_resolution: '0.0125',
  slice_closing_radius: '0.049',
  slicing_mode: 'regular',
  max_volumetric_speed: '0',
  filament_max_volumetric_speed: '0',
  max_volumetric_extrusion_rate_slope_positive: '0',
  max_volumetric_extrusion_rate_slope_negative: '0',
  avoid_crossing_perimeters: '0',
  travel_speed_z: '0',
  // Adhesion: one skirt loop (consumes filament on real prints), no brim, no raft.
  skirts: '1',
  skirt_distance: '6',
  skirt_height: '1',
  min_skirt_length: '0',
  draft_shield: 'disabled',
  brim_width: '0',
  brim_type: 'outer_only',
  raft_layers: '0',
  // Supports: automatic, from the build plate and from the model, snug style, three interface layers.
  // Snug, not grid: grid style snaps the support's outline to a grid as coarse as the line pitch, so a sparser
  // density widens the support (docs/prusaslicer-mapping.md#support-density). config.ts writes the density,
  // threshold and layer bounds when supports are on; these values stand while they are off.
  support_material: '0',
  support_material_threshold: '0',
  support_material_spacing: '2.5',
  min_layer_height: '0.07',
  max_layer_height: '0',
  support_material_auto: '1',
  support_material_buildplate_only: '0',
  support_material_style: 'snug',
  support_material_pattern: 'rectilinear',
  support_material_angle: '0',
  support_material_contact_distance: '0.2',
  support_material_bottom_contact_distance: '0',
  support_material_interface_layers: '3',
  support_material_bottom_interface_layers: '-1',
  support_material_interface_spacing: '0',
  support_material_interface_pattern: 'rectilinear',
  support_material_interface_contact_loops: '0',
  raft_first_layer_density: '90%', // the support's first layer, dense for adhesion (raft_layers = 0)
  raft_first_layer_expansion: '3',
  support_material_xy_spacing: '50%',
  support_material_enforce_layers: '0',
  support_material_with_sheath: '1',
  support_material_synchronize_layers: '0',
  support_material_closing_radius: '2',
  dont_support_bridges: '1',
  // Cooling: automatic slow-down of short layers is part of real print time.
  cooling: '1',
  fan_below_layer_time: '60',
  slowdown_below_layer_time: '5',
  min_print_speed: '10',
  disable_fan_first_layers: '1',
  full_fan_speed_layer: '0',
  // Retraction details beyond length and speed.
  retract_before_travel: '2',
  retract_layer_change: '1',
  retract_lift: '0',
  retract_restart_extra: '0',
  retract_before_wipe: '0%',
  deretract_speed: '0', // 0 = same as retract_speed
  wipe: '0',
  use_firmware_retraction: '0',
  only_retract_when_crossing_perimeters: '0',
  // Single extruder, single material.
  single_extruder_multi_material: '0',
  wipe_tower: '0',
  ooze_prevention: '0',
  variable_layer_height: '1',
  extruder_offset: '0x0',
  filament_soluble: '0',
  filament_cost: '0',
  filament_spool_weight: '0',
  // Neither time nor extrusion depends on these (test/slice-effects.test.ts): the G-code is measured, never
  // printed, so they keep PrusaSlicer's defaults and the request's values are only validated and reported.
  // Volume = filament length × the reference filament's cross-section; grams and the real filament's length
  // are computed from it when a quote is priced.
  filament_diameter: '1.75',
  filament_density: '0',
  temperature: '200',
  first_layer_temperature: '200',
  bed_temperature: '0',
  first_layer_bed_temperature: '0',
  max_fan_speed: '100',
  bridge_fan_speed: '100',
  min_fan_speed: '35',
  fan_always_on: '0',
  ...ADDED_IN_2_9,
};

/** Options BASE_OPTIONS pins for one version only: the other ignores them (test/slicer.test.ts checks the lists). */
export const ONLY_IN_2_5: readonly string[] = ['infill_only_where_needed'];
export const ONLY_IN_2_9: readonly string[] = [...Object.keys(ADDED_IN_2_9), 'travel_acceleration']; // + config.ts's

/** The filament diameter every slice uses (filament_diameter above): its length × cross-section is the volume. */
export const REFERENCE_FILAMENT_DIAMETER = 1.75;

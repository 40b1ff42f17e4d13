// Resolved settings -> PrusaSlicer .ini (2.9; 2.5 reads it too, see base-config.ts). Pure: same settings, same text. Only settings that change the
// extruded volume or the print time are written (the others are pinned in base-config.ts), so the text is the
// slicing cache key. The spec-field -> option table, with the reasons, is docs/prusaslicer-mapping.md.
import type { ResolvedMaterial, ResolvedPrinter, ResolvedSettings } from '../../shared/settings.ts';
import { BASE_OPTIONS, REFERENCE_FILAMENT_DIAMETER } from './base-config.ts';
import { explicitOptions, type ImportedOptions, pinned } from './imported-options.ts';
import { mapInfillPattern, type PatternUsed } from './patterns.ts';

export type { ImportedOptions };

/** Resolved settings, with the shop's imported options when its profiles carry any. */
export type SliceSettings = ResolvedSettings & { imported?: ImportedOptions };

export interface SliceConfig {
  /** Every option written, by PrusaSlicer name. */
  options: Record<string, string>;
  /** The .ini text handed to `prusa-slicer --load`. */
  ini: string;
  patternUsed: PatternUsed;
  /** perimeters after the min/max wall count clamp. */
  perimeters: number;
  /** The filament diameter sliced with: PrusaSlicer's E lengths are in this filament. */
  filamentDiameter: number;
}

/** Formats a number for the .ini: finite, no exponent, at most 6 decimals. */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`cannot write non-finite number ${n} to the slicer config`);
  return String(Number(n.toFixed(6)));
}

const pct = (n: number): string => `${fmt(n)}%`;
const pair = (n: number): string => `${fmt(n)},${fmt(n)}`; // machine limits: normal and silent mode
const clamp = (n: number, lo: number, hi: number): number => Math.min(Math.max(n, lo), hi);

export function effectivePerimeters(p: ResolvedPrinter): number {
  return clamp(p.perimeters, p.min_wall_count, Math.max(p.min_wall_count, p.max_wall_count));
}

function bedOptions(p: ResolvedPrinter): Record<string, string> {
  const [x, y] = [fmt(p.bed_size_x), fmt(p.bed_size_y)];
  return { bed_shape: `0x0,${x}x0,${x}x${y},0x${y}`, max_print_height: fmt(p.bed_size_z) };
}

function layerOptions(p: ResolvedPrinter): Record<string, string> {
  return {
    nozzle_diameter: fmt(p.nozzle_diameter),
    layer_height: fmt(p.layer_height),
    first_layer_height: fmt(p.layer_height), // layers = height / layer_height, the API has no separate first-layer field
    perimeters: fmt(effectivePerimeters(p)),
    top_solid_layers: fmt(p.top_solid_layers),
    bottom_solid_layers: fmt(p.bottom_solid_layers),
    fill_density: pct(p.fill_density),
  };
}

// One request speed drives every extrusion feature; quality features run at half, as printer profiles do.
function speedOptions(p: ResolvedPrinter, m: ResolvedMaterial): Record<string, string> {
  const speed = Math.min(p.print_speed, p.max_print_speed);
  const first = Math.min(p.first_layer_speed, p.max_print_speed);
  const xyMax = Math.max(p.travel_speed, speed, first);
  return {
    perimeter_speed: fmt(speed),
    external_perimeter_speed: '50%',
    small_perimeter_speed: '50%',
    infill_speed: fmt(speed),
    solid_infill_speed: '100%',
    top_solid_infill_speed: '50%',
    support_material_speed: fmt(speed),
    support_material_interface_speed: '100%',
    bridge_speed: fmt(speed / 2),
    gap_fill_speed: fmt(speed / 2),
    ironing_speed: fmt(speed / 2),
    first_layer_speed: fmt(first),
    first_layer_speed_over_raft: fmt(first),
    travel_speed: fmt(p.travel_speed),
    max_print_speed: fmt(p.max_print_speed),
    // Axis feed limits must not undercut the requested speeds, or the estimate would silently cap them.
    machine_max_feedrate_x: pair(xyMax),
    machine_max_feedrate_y: pair(xyMax),
    machine_max_feedrate_e: pair(Math.max(120, m.retraction_speed)),
  };
}

// With machine_limits_usage = time_estimate_only and no M204/M205 in the G-code, PrusaSlicer's time
// estimator runs with these limits from the first move to the last.
function motionOptions(p: ResolvedPrinter): Record<string, string> {
  const xy = Math.max(p.acceleration_print, p.acceleration_travel);
  return {
    machine_max_acceleration_extruding: pair(p.acceleration_print),
    machine_max_acceleration_travel: pair(p.acceleration_travel),
    // 2.9's time estimate ignores the machine's travel limit until the G-code sets one (M204 T, from this option);
    // 2.5 ignores the option and applies the limit. Same travel acceleration on both.
    travel_acceleration: fmt(p.acceleration_travel),
    machine_max_acceleration_retracting: pair(p.acceleration_retraction),
    machine_max_acceleration_x: pair(xy),
    machine_max_acceleration_y: pair(xy),
    machine_max_acceleration_e: pair(Math.max(10000, p.acceleration_retraction)),
    machine_max_jerk_x: pair(p.jerk_print),
    machine_max_jerk_y: pair(p.jerk_print),
    machine_max_jerk_e: pair(p.jerk_retraction),
  };
}

/** Pitch of PrusaSlicer's support lines at 100 %: the support flow's spacing (width = nozzle, layer_height high). */
function supportFlowSpacing(p: ResolvedPrinter): number {
  return p.nozzle_diameter - p.layer_height * (1 - Math.PI / 4);
}

/** Sparsest density with body lines: 100 % / 2^6 ≈ 1.6 % (a line every 64 pitches, 23 mm with a 0.4 mm nozzle). */
const SPARSEST_LEVEL = 6;
/** 0 %: a pitch of 2^16 line spacings (over 2.5 m), wider than any bed, yet still a halving, so its lines (none,
 *  or at most the one through the grid's origin that every level shares) stay a subset of 1.6 %'s. */
const NO_BODY_LEVEL = 16;

/**
 * The support density actually sliced: 0 (no body), or the halving of 100 % nearest to the request on a log
 * scale (100, 50, 25, 12.5, 6.25, 3.125, 1.5625). PrusaSlicer lays support lines on a grid anchored at the
 * object's origin, so a pitch twice another's prints a subset of its lines: with halvings, a lower density can
 * never print more material (docs/prusaslicer-mapping.md#support-density).
 */
export function supportDensityUsed(density: number): number {
  if (density <= 0) return 0;
  const level = clamp(Math.round(Math.log2(100 / density)), 0, SPARSEST_LEVEL);
  return 100 / 2 ** level;
}

// Written only with supports on: without them, density, angle and the layer bounds change nothing (they are
// then pinned in base-config.ts and never make two slices differ).
function supportOptions(p: ResolvedPrinter): Record<string, string> {
  if (!p.support_material) return {};
  // Spec angle is measured from vertical; PrusaSlicer's threshold from horizontal, an integer, 0 = auto.
  const threshold = clamp(Math.round(90 - p.support_overhang_angle), 1, 90);
  const used = supportDensityUsed(p.support_density);
  // Line pitch = spacing + flow spacing = flow spacing × 100 / density.
  const pitches = used === 0 ? 2 ** NO_BODY_LEVEL : 100 / used;
  const spacing = supportFlowSpacing(p) * (pitches - 1);
  return {
    support_material: '1',
    support_material_threshold: fmt(threshold),
    support_material_spacing: fmt(spacing),
    // PrusaSlicer sizes support layers between these bounds.
    min_layer_height: fmt(p.min_layer_height),
    max_layer_height: fmt(p.max_layer_height),
  };
}

// Temperatures, fan speeds, filament density and diameter are not written: they change neither the extruded
// volume nor the print time (test/slice-effects.test.ts), so grams and filament length are computed from the
// volume when a quote is priced (print-stats.ts) and a change of them never re-slices.
function materialOptions(m: ResolvedMaterial): Record<string, string> {
  return {
    retract_length: fmt(m.retraction_distance),
    retract_speed: fmt(m.retraction_speed),
  };
}

/** Renders options as .ini lines, sorted so equal settings give byte-equal text. */
export function renderIni(options: Record<string, string>): string {
  return `${Object.keys(options)
    .sort()
    .map((k) => `${k} = ${options[k]}`)
    .join('\n')}\n`;
}

/** Options of the settings, generated as for a quote without imported options. */
function generatedOptions(s: ResolvedSettings, patternUsed: PatternUsed): Record<string, string> {
  return {
    ...bedOptions(s.printer),
    ...layerOptions(s.printer),
    fill_pattern: patternUsed.used,
    ...speedOptions(s.printer, s.material),
    ...motionOptions(s.printer),
    ...supportOptions(s.printer),
    ...materialOptions(s.material),
  };
}

export function buildSliceConfig(s: SliceSettings): SliceConfig {
  const patternUsed = mapInfillPattern(s.printer.infill_pattern);
  const generated = generatedOptions(s, patternUsed);
  const options = s.imported
    ? {
        ...BASE_OPTIONS,
        // Where the shop's config is silent (a partial preset), the settings' own mapping rather than the binary's defaults.
        ...generated,
        ...s.imported.options,
        ...explicitOptions(generated, s.imported.explicit, s.imported.options),
        ...pinned(s.imported),
      }
    : { ...BASE_OPTIONS, ...generated };
  for (const [k, v] of Object.entries(options)) {
    // Defence in depth: a line break would let a value inject further options.
    if (/[\r\n]/.test(v)) throw new Error(`slicer option ${k} contains a line break`);
  }
  const filamentDiameter = Number(options.filament_diameter?.split(',')[0]) || REFERENCE_FILAMENT_DIAMETER;
  return {
    options,
    ini: renderIni(options),
    patternUsed,
    perimeters: effectivePerimeters(s.printer),
    filamentDiameter,
  };
}

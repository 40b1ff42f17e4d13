// The abstract settings an imported config stands for, so that placement, instant estimates, cost prediction and
// the dashboard keep working with an imported profile. The slice itself uses the imported options
// (slicer/config.ts); these are what the rest of the service reads. A value the catalogue would refuse is left
// out (the global profile's value stands in for it there), never clamped into a different one.

import { validateProfileSettings } from '../../shared/profiles.ts';
import { INFILL_PATTERNS } from '../../shared/settings.ts';

/** The first number of a PrusaSlicer value (per-extruder lists take the first extruder), or undefined. */
function first(options: Record<string, string>, key: string): number | undefined {
  const raw = options[key]?.split(',')[0]?.trim();
  if (!raw || raw.endsWith('%') || raw === 'nil') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

/** A speed PrusaSlicer may state as a percentage of another. */
function speed(options: Record<string, string>, key: string, base: number | undefined): number | undefined {
  const raw = options[key]?.trim();
  if (raw?.endsWith('%') && base !== undefined) return (base * Number(raw.slice(0, -1))) / 100;
  return first(options, key);
}

function bedSize(shape: string | undefined): { x: number; y: number } | null {
  if (!shape) return null;
  const points = shape.split(',').map((p) => p.split('x').map(Number));
  const xs = points.map((p) => p[0] ?? Number.NaN);
  const ys = points.map((p) => p[1] ?? Number.NaN);
  const x = Math.max(...xs) - Math.min(...xs);
  const y = Math.max(...ys) - Math.min(...ys);
  return Number.isFinite(x) && Number.isFinite(y) ? { x, y } : null;
}

function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** Drops the fields the catalogue refuses, one by one (an odd printer should not lose all its settings). */
function keepValid(kind: 'printer' | 'material', name: string, s: Record<string, unknown>): Record<string, unknown> {
  const out = { ...s };
  for (const issue of validateProfileSettings(kind, name, out)) {
    delete out[issue.field.replace(/^settings\./, '')];
  }
  return validateProfileSettings(kind, name, out).length ? {} : out;
}

export function printerSettingsOf(options: Record<string, string>, name: string): Record<string, unknown> {
  const bed = bedSize(options.bed_shape);
  const perimeter = first(options, 'perimeter_speed');
  const infill = first(options, 'infill_speed');
  const printSpeed =
    perimeter !== undefined && infill !== undefined ? Math.max(perimeter, infill) : (infill ?? perimeter);
  const pattern = options.fill_pattern;
  const accelX = first(options, 'machine_max_acceleration_x');
  const perimeters = first(options, 'perimeters');
  return keepValid(
    'printer',
    name,
    defined({
      bed_size_x: bed?.x,
      bed_size_y: bed?.y,
      bed_size_z: first(options, 'max_print_height'),
      nozzle_diameter: first(options, 'nozzle_diameter'),
      layer_height: first(options, 'layer_height'),
      perimeters,
      min_wall_count: perimeters !== undefined ? 0 : undefined,
      max_wall_count: perimeters !== undefined ? Math.max(50, perimeters) : undefined,
      top_solid_layers: first(options, 'top_solid_layers'),
      bottom_solid_layers: first(options, 'bottom_solid_layers'),
      fill_density: options.fill_density?.endsWith('%') ? Number(options.fill_density.slice(0, -1)) : undefined,
      infill_pattern: pattern && (INFILL_PATTERNS as readonly string[]).includes(pattern) ? pattern : undefined,
      support_material: options.support_material === undefined ? undefined : options.support_material === '1',
      print_speed: printSpeed,
      max_print_speed: first(options, 'max_print_speed'),
      travel_speed: first(options, 'travel_speed'),
      first_layer_speed: speed(options, 'first_layer_speed', printSpeed),
      acceleration_print: first(options, 'machine_max_acceleration_extruding') ?? accelX,
      acceleration_travel: first(options, 'machine_max_acceleration_travel') ?? accelX,
      acceleration_retraction: first(options, 'machine_max_acceleration_retracting'),
      jerk_print: first(options, 'machine_max_jerk_x'),
      jerk_retraction: first(options, 'machine_max_jerk_e'),
    }),
  );
}

/**
 * A filament's material settings. PrusaSlicer's filament_cost is per kg in the shop's currency: it becomes the
 * price only when the merchant has not priced this material (`price` is the profile's current one, if any).
 */
export function materialSettingsOf(
  options: Record<string, string>,
  name: string,
  price: Record<string, unknown>,
): Record<string, unknown> {
  const cost = first(options, 'filament_cost');
  const density = first(options, 'filament_density');
  const priced = price.price_per_kg !== undefined || price.price_per_gram !== undefined;
  return keepValid(
    'material',
    name,
    defined({
      filament_type: name,
      density: density && density > 0 ? density : undefined,
      diameter: first(options, 'filament_diameter'),
      retraction_distance: first(options, 'filament_retract_length'),
      retraction_speed: first(options, 'filament_retract_speed'),
      ...(priced ? price : { price_per_kg: cost && cost > 0 ? cost : undefined }),
    }),
  );
}

// Which settings each profile kind holds, and their validation: the same rules as the server's
// validateProfileSettings (shared/profiles.ts, which the server uses), on the same catalogue (shared/settings.ts),
// so the form refuses exactly what the API would refuse, with the same field names and messages.
import { settingsOf, getSetting, type ConfigIssue, type SettingDef, type SettingSection } from '../../../shared/settings.ts';
import { validateProfileSettings, GLOBAL_LAYER_FIELDS } from '../../../shared/profiles.ts';
import type { ProfileKind } from './types.ts';

export const PROFILE_NAME_MAX = 64;

/** A form field: a catalogue setting, or one of the material profile's colour fields. */
export interface FieldDef extends Pick<SettingDef, 'name' | 'label' | 'description' | 'unit' | 'min' | 'max' | 'exclusiveMin' | 'values'> {
  type: SettingDef['type'] | 'list';
  section: SettingSection | 'profile';
}

const COLOR_FIELDS: FieldDef[] = [
  { name: 'color', section: 'profile', type: 'string', label: 'Default colour', description: 'Colour shown in printInfo when a request names none (1 to 40 characters).' },
  { name: 'colors', section: 'profile', type: 'list', label: 'Colours offered', description: 'Colours the widget offers for this material, separated by commas (up to 50).' },
];

export interface FieldGroup {
  title: string;
  fields: FieldDef[];
}

function group(title: string, section: SettingSection, names: string[]): FieldGroup {
  return { title, fields: names.map((n) => getSetting(section, n)!).filter(Boolean) };
}

/** The form's fields for a kind, grouped for reading; every parameter of spec 2.3 for that kind appears. */
export function fieldGroups(kind: ProfileKind): FieldGroup[] {
  if (kind === 'printer') {
    const P = 'printer_config';
    return [
      group('Build volume and nozzle', P, ['bed_size_x', 'bed_size_y', 'bed_size_z', 'nozzle_diameter', 'nozzle_count']),
      group('Speeds', P, ['print_speed', 'max_print_speed', 'travel_speed', 'first_layer_speed']),
      group('Layers and walls', P, ['layer_height', 'min_layer_height', 'max_layer_height', 'perimeters', 'top_solid_layers', 'bottom_solid_layers', 'min_wall_count', 'max_wall_count']),
      group('Infill and support', P, ['fill_density', 'infill_pattern', 'support_material', 'support_overhang_angle', 'support_density']),
      group('Acceleration and jerk', P, ['acceleration_print', 'acceleration_travel', 'acceleration_retraction', 'jerk_print', 'jerk_travel', 'jerk_retraction']),
      group('Temperature limits', P, ['min_hotend_temp', 'max_hotend_temp', 'min_bed_temp', 'max_bed_temp']),
      group('Running cost', P, ['hourly_cost', 'power_watts']),
    ];
  }
  if (kind === 'material') {
    const M = 'material_config';
    return [
      group('Filament', M, ['density', 'diameter']),
      group('Temperatures', M, ['temperature', 'print_temp_min', 'print_temp_max', 'bed_temperature', 'bed_temp_min', 'bed_temp_max']),
      group('Cooling and retraction', M, ['fan_speed', 'min_fan_speed', 'retraction_distance', 'retraction_speed']),
      group('Pricing', M, ['price_per_kg', 'price_per_gram', 'support_cost_multiplier']),
      { title: 'Colours', fields: COLOR_FIELDS },
    ];
  }
  return [
    { title: 'Pricing', fields: settingsOf('quote_config') },
    group('Default layer heights', 'printer_config', GLOBAL_LAYER_FIELDS),
  ];
}

export function allFields(kind: ProfileKind): FieldDef[] {
  return fieldGroups(kind).flatMap((g) => g.fields);
}

function nameIssues(name: string): ConfigIssue[] {
  if (name.trim().length === 0) return [{ field: 'name', message: 'is required' }];
  if (name.length > PROFILE_NAME_MAX) return [{ field: 'name', message: `must be at most ${PROFILE_NAME_MAX} characters` }];
  return [];
}

/** Every problem of a profile, each naming its field as the API does (name, settings.<field>). */
export function validateProfile(kind: ProfileKind, name: string, settings: Record<string, unknown>): ConfigIssue[] {
  return [...nameIssues(name), ...validateProfileSettings(kind, name, settings)];
}

/** Form text to a setting value: empty means "not set" (inherited); a non-number stays text so validation names it. */
export function parseField(def: FieldDef, text: string): unknown {
  const t = text.trim();
  if (t === '') return undefined;
  switch (def.type) {
    case 'boolean':
      return t === 'true';
    case 'list':
      return t.split(',').map((s) => s.trim()).filter(Boolean);
    case 'number':
    case 'integer':
      return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t) ? Number(t) : t;
    default:
      return t;
  }
}

/** A setting value to form text. */
export function formatField(def: FieldDef, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (def.type === 'list' && Array.isArray(value)) return value.join(', ');
  return String(value);
}

/** "greater than 0, at most 1000 mm/s" — the range the API accepts, in words. */
export function rangeText(def: FieldDef): string {
  const unit = def.unit && def.unit !== 'count' ? ` ${def.unit}` : '';
  const parts: string[] = [];
  if (def.min !== undefined) parts.push(def.exclusiveMin ? `greater than ${def.min}` : `at least ${def.min}`);
  if (def.max !== undefined) parts.push(`at most ${def.max}`);
  if (def.type === 'integer') parts.push('whole number');
  return parts.length ? `${parts.join(', ')}${unit}` : '';
}

/** The unit shown beside an input ("count" is implied by the label). */
export function unitText(def: FieldDef): string {
  return def.unit && def.unit !== 'count' ? def.unit : '';
}

// Which settings each profile kind holds, and their validation: the same rules as the server's
// validateProfileSettings (shared/profiles.ts, which the server uses), on the same catalogue (shared/settings.ts),
// so the form refuses exactly what the API would refuse, with the same field names and messages.

import { aliasOf, aliasValue } from '../../../shared/aliases.ts';
import { GLOBAL_LAYER_FIELDS, validateProfileSettings } from '../../../shared/profiles.ts';
import {
  type ConfigIssue,
  getSetting,
  type SettingDef,
  type SettingSection,
  settingsOf,
} from '../../../shared/settings.ts';
import type { ProfileKind } from './types.ts';

export const PROFILE_NAME_MAX = 64;

/** A form field: a catalogue setting, or one of the material profile's colour fields. */
export interface FieldDef
  extends Pick<SettingDef, 'name' | 'label' | 'description' | 'unit' | 'min' | 'max' | 'exclusiveMin' | 'values'> {
  type: SettingDef['type'] | 'list';
  section: SettingSection | 'profile';
}

const COLOR_FIELDS: FieldDef[] = [
  {
    name: 'color',
    section: 'profile',
    type: 'string',
    label: 'Default colour',
    description: 'Colour shown in printInfo when a request names none (1 to 40 characters).',
  },
  {
    name: 'colors',
    section: 'profile',
    type: 'list',
    label: 'Colours offered',
    description: 'Colours the widget offers for this material, separated by commas (up to 50).',
  },
];

export interface FieldGroup {
  title: string;
  fields: FieldDef[];
}

function group(title: string, section: SettingSection, names: string[]): FieldGroup {
  return { title, fields: names.map((n) => getSetting(section, n)!).filter(Boolean) };
}

/** The form's fields for a kind, grouped for reading; every request parameter of that kind appears. */
export function fieldGroups(kind: ProfileKind): FieldGroup[] {
  if (kind === 'printer') {
    const P = 'printer_config';
    return [
      group('Build volume and nozzle', P, [
        'bed_size_x',
        'bed_size_y',
        'bed_size_z',
        'nozzle_diameter',
        'nozzle_count',
      ]),
      group('Speeds', P, ['print_speed', 'max_print_speed', 'travel_speed', 'first_layer_speed']),
      group('Layers and walls', P, [
        'layer_height',
        'min_layer_height',
        'max_layer_height',
        'perimeters',
        'top_solid_layers',
        'bottom_solid_layers',
        'min_wall_count',
        'max_wall_count',
      ]),
      group('Infill and support', P, [
        'fill_density',
        'infill_pattern',
        'support_material',
        'support_overhang_angle',
        'support_density',
      ]),
      group('Acceleration and jerk', P, [
        'acceleration_print',
        'acceleration_travel',
        'acceleration_retraction',
        'jerk_print',
        'jerk_travel',
        'jerk_retraction',
      ]),
      group('Temperature limits', P, ['min_hotend_temp', 'max_hotend_temp', 'min_bed_temp', 'max_bed_temp']),
      group('Running cost', P, ['hourly_cost', 'power_watts']),
    ];
  }
  if (kind === 'material') {
    const M = 'material_config';
    return [
      group('Filament', M, ['density', 'diameter']),
      group('Temperatures', M, [
        'temperature',
        'print_temp_min',
        'print_temp_max',
        'bed_temperature',
        'bed_temp_min',
        'bed_temp_max',
      ]),
      group('Cooling and retraction', M, ['fan_speed', 'min_fan_speed', 'retraction_distance', 'retraction_speed']),
      // One price: price_per_gram is the same setting (fieldValue shows a per-gram profile per kg).
      group('Pricing', M, ['price_per_kg', 'support_cost_multiplier']),
      { title: 'Colours', fields: COLOR_FIELDS },
    ];
  }
  // Quote settings that price go under Pricing; the rest (how long a quote stays valid) under Quotes.
  const quote = settingsOf('quote_config');
  return [
    { title: 'Pricing', fields: quote.filter((d) => d.affects === 'price') },
    { title: 'Quotes', fields: quote.filter((d) => d.affects !== 'price') },
    group('Default layer heights', 'printer_config', GLOBAL_LAYER_FIELDS),
  ];
}

export function allFields(kind: ProfileKind): FieldDef[] {
  return fieldGroups(kind).flatMap((g) => g.fields);
}

function nameIssues(name: string): ConfigIssue[] {
  if (name.trim().length === 0) return [{ field: 'name', message: 'is required' }];
  if (name.length > PROFILE_NAME_MAX)
    return [{ field: 'name', message: `must be at most ${PROFILE_NAME_MAX} characters` }];
  return [];
}

/** Every problem of a profile, each naming its field as the API does (name, settings.<field>). */
export function validateProfile(kind: ProfileKind, name: string, settings: Record<string, unknown>): ConfigIssue[] {
  return [...nameIssues(name), ...validateProfileSettings(kind, name, settings)];
}

/** A field's value in a profile's settings; a setting with two names reads either, in this field's unit. */
export function fieldValue(def: FieldDef, settings: Record<string, unknown>): unknown {
  const alias = def.section === 'profile' ? undefined : aliasOf(def.section, def.name);
  return alias ? aliasValue(alias, settings, def.name) : settings[def.name];
}

/** "EUR 0.92, GBP 0.79" (also "EUR=0.92"): exchange rates as typed; null when the text is not such a list. */
function parseRates(text: string): Record<string, number> | null {
  const rates: Record<string, number> = {};
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([a-z]{3})\s*[=:]?\s*(\d+\.?\d*(?:e[+-]?\d+)?|\.\d+)$/i.exec(item);
    const [, code, rate] = m ?? [];
    if (!code || !rate) return null;
    rates[code.toUpperCase()] = Number(rate);
  }
  return rates;
}

/** A number when the text is one; otherwise the text as typed, so validation names the field. */
export function numberOrText(text: string): unknown {
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text.trim()) ? Number(text.trim()) : text;
}

/** Form text to a setting value: empty means "not set" (inherited); a non-number stays text so validation names it. */
export function parseField(def: FieldDef, text: string): unknown {
  const t = text.trim();
  if (t === '') return undefined;
  switch (def.type) {
    case 'boolean':
      return t === 'true';
    case 'list':
      return t
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    case 'rates':
      return parseRates(t) ?? t;
    case 'number':
    case 'integer':
      return numberOrText(t);
    default:
      return t;
  }
}

/** A setting value to form text. */
export function formatField(def: FieldDef, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (def.type === 'list' && Array.isArray(value)) return value.join(', ');
  if (def.type === 'rates' && typeof value === 'object') {
    return Object.entries(value)
      .map(([code, rate]) => `${code} ${rate}`)
      .join(', ');
  }
  return String(value);
}

/** "greater than 0, at most 1000 mm/s", "1 to 365 days, whole numbers": the range the API accepts, in words. */
export function rangeText(def: FieldDef): string {
  const unit = unitText(def) ? ` ${unitText(def)}` : '';
  const { min, max } = def;
  let text = '';
  if (min !== undefined && max !== undefined) {
    text = def.exclusiveMin ? `greater than ${min}, at most ${max}${unit}` : `${min} to ${max}${unit}`;
  } else if (min !== undefined) text = `${def.exclusiveMin ? 'greater than' : 'at least'} ${min}${unit}`;
  else if (max !== undefined) text = `at most ${max}${unit}`;
  if (def.type === 'integer') text = text ? `${text}, whole numbers` : 'whole numbers';
  if (def.type === 'rates' && text) return `each rate ${text}`;
  return text;
}

let shopCurrency = '';

/** The shop currency, which every amount in profiles is in: units then read "USD/h", not "currency/h". */
export function setShopCurrency(code: string | undefined): void {
  shopCurrency = code ?? '';
}

/** The unit shown beside an input ("count" is implied by the label). */
export function unitText(def: FieldDef): string {
  const unit = def.unit && def.unit !== 'count' ? def.unit : '';
  return shopCurrency ? unit.replace(/\bcurrency\b/, shopCurrency) : unit;
}

// The catalogue of every quote setting (printer_config, material_config, quote_config; docs/prusaslicer-mapping.md).
// Pure TypeScript, no Node APIs: the server, the widget and the dashboard all read it.
// `affects` drives caching (docs/prusaslicer-mapping.md); test/slice-effects.test.ts checks it on real slices.

import { SETTING_ALIASES } from './aliases.ts';
import { canonicalMember } from './enums.ts';
import { CURRENCY_CODES } from './money.ts';

export type SettingSection = 'printer_config' | 'material_config' | 'quote_config';
/** 'rates' is a map of ISO 4217 codes to positive numbers (exchange rates), bounded by min/max. */
export type SettingType = 'number' | 'integer' | 'boolean' | 'string' | 'enum' | 'rates';
/**
 * 'slice': changes the extruded volume or the print time, so it is part of the slicing key; 'support': the same,
 * but only while support_material is on; 'stats': turns the slice's volume into grams or filament length by
 * arithmetic; 'price': used only by the price formula; 'none': validated and reported, changes no number.
 * Only 'slice' and 'support' fields ever cause a new slice.
 */
export type SettingEffect = 'slice' | 'support' | 'stats' | 'price' | 'none';

export interface SettingDef {
  readonly name: string;
  readonly section: SettingSection;
  readonly type: SettingType;
  readonly unit?: string;
  readonly min?: number;
  readonly max?: number;
  /** true when `min` itself is not allowed (speeds, sizes: must be > 0). */
  readonly exclusiveMin?: boolean;
  readonly values?: readonly string[];
  /** What a string with `values` must be, in words (a list too long to quote in a message). */
  readonly valuesName?: string;
  readonly maxLength?: number;
  readonly pattern?: RegExp;
  readonly label: string;
  readonly description: string;
  readonly affects: SettingEffect;
  /** false for fields that only dashboard profiles may set (not request fields of the API). */
  readonly requestField: boolean;
  /** An amount of money (or money per unit), in the shop currency: see docs/pricing.md. */
  readonly money?: boolean;
}

/** The 19 infill pattern names the API accepts, in their documented order. */
export const INFILL_PATTERNS = [
  'rectilinear',
  'alignedrectilinear',
  'zigzag',
  'crosszag',
  'lockedzag',
  'line',
  'grid',
  'triangles',
  'trihexagon',
  'cubic',
  'adaptivecubic',
  'supportcubic',
  'honeycomb',
  'honeycomb3d',
  'lateralhoneycomb',
  'gyroid',
  'monotonic',
  'monotonicline',
  'lightning',
] as const;
export type InfillPattern = (typeof INFILL_PATTERNS)[number];

export interface PrinterConfig {
  bed_size_x?: number;
  bed_size_y?: number;
  bed_size_z?: number;
  nozzle_diameter?: number;
  nozzle_count?: number;
  print_speed?: number;
  max_print_speed?: number;
  travel_speed?: number;
  first_layer_speed?: number;
  layer_height?: number;
  min_layer_height?: number;
  max_layer_height?: number;
  perimeters?: number;
  top_solid_layers?: number;
  bottom_solid_layers?: number;
  min_wall_count?: number;
  max_wall_count?: number;
  fill_density?: number;
  infill_pattern?: InfillPattern;
  support_material?: boolean;
  support_overhang_angle?: number;
  support_density?: number;
  acceleration_print?: number;
  acceleration_travel?: number;
  acceleration_retraction?: number;
  jerk_print?: number;
  jerk_travel?: number;
  jerk_retraction?: number;
  min_hotend_temp?: number;
  max_hotend_temp?: number;
  min_bed_temp?: number;
  max_bed_temp?: number;
  hourly_cost?: number;
  /** Printer-profile only (not a spec request field): electrical draw while printing, for the energy cost. */
  power_watts?: number;
}

export interface MaterialConfig {
  filament_type?: string;
  density?: number;
  diameter?: number;
  temperature?: number;
  print_temp_min?: number;
  print_temp_max?: number;
  bed_temperature?: number;
  bed_temp_min?: number;
  bed_temp_max?: number;
  fan_speed?: number;
  min_fan_speed?: number;
  retraction_distance?: number;
  retraction_speed?: number;
  price_per_kg?: number;
  price_per_gram?: number;
  support_cost_multiplier?: number;
}

export interface QuoteConfig {
  currency?: string;
  tax_rate?: number;
  fixed_fee?: number;
  energy_cost_per_kwh?: number;
  minimum_price?: number;
  /** Global-settings profile only: units of each currency per unit of the profile's currency. */
  exchange_rates?: Record<string, number>;
  /** Global-settings profile only (not a spec request field): how long a completed quote can be bought. */
  quote_validity_days?: number;
}

/** Material prices may stay undefined after resolution: the resolution rules (docs/pricing.md) let either one be missing. */
export type OptionalMaterialField = 'price_per_kg' | 'price_per_gram';
export type ResolvedPrinter = Required<PrinterConfig>;
export type ResolvedMaterial = Required<Omit<MaterialConfig, OptionalMaterialField>> &
  Pick<MaterialConfig, OptionalMaterialField>;
export type ResolvedQuote = Required<QuoteConfig>;
export interface ResolvedSettings {
  printer: ResolvedPrinter;
  material: ResolvedMaterial;
  quote: ResolvedQuote;
}

export interface ConfigIssue {
  field: string;
  message: string;
}

const PR = 'printer_config',
  MA = 'material_config',
  QU = 'quote_config';
type Range = { unit?: string; min?: number; max?: number; exclusiveMin?: boolean };
const MM = (min: number, max: number): Range => ({ unit: 'mm', min, max, exclusiveMin: min === 0 });
const SPEED: Range = { unit: 'mm/s', min: 0, max: 1000, exclusiveMin: true };
const ACCEL: Range = { unit: 'mm/s²', min: 0, max: 100000, exclusiveMin: true };
const JERK: Range = { unit: 'mm/s', min: 0, max: 1000, exclusiveMin: true };
const TEMP: Range = { unit: '°C', min: 0, max: 500 };
const PCT: Range = { unit: '%', min: 0, max: 100 };
const COUNT = (max: number, min = 0): Range => ({ unit: 'count', min, max });
const MONEY: Range = { min: 0, max: 1_000_000 };

function def(
  section: SettingSection,
  name: string,
  type: SettingType,
  affects: SettingEffect,
  label: string,
  description: string,
  range: Range = {},
  extra: Partial<SettingDef> = {},
): SettingDef {
  return { name, section, type, affects, label, description, requestField: true, ...range, ...extra };
}

export const SETTINGS: readonly SettingDef[] = [
  // printer_config
  def(
    PR,
    'bed_size_x',
    'number',
    'slice',
    'Bed size X',
    'Build volume width (X). Sets the bed shape the part is centred on.',
    MM(1, 2000),
  ),
  def(
    PR,
    'bed_size_y',
    'number',
    'slice',
    'Bed size Y',
    'Build volume depth (Y). Sets the bed shape the part is centred on.',
    MM(1, 2000),
  ),
  def(
    PR,
    'bed_size_z',
    'number',
    'slice',
    'Bed size Z',
    'Build volume height (Z). A part taller than this fails to slice.',
    MM(1, 2000),
  ),
  def(
    PR,
    'nozzle_diameter',
    'number',
    'slice',
    'Nozzle diameter',
    'Nozzle bore; extrusion widths follow it (1.125 × nozzle).',
    MM(0.05, 3),
  ),
  def(
    PR,
    'nozzle_count',
    'integer',
    'none',
    'Nozzle count',
    'Number of nozzles. Validation only: a single-material quote prints with one nozzle.',
    COUNT(16, 1),
  ),
  def(
    PR,
    'print_speed',
    'number',
    'slice',
    'Print speed',
    'Default extrusion speed: perimeters, infill, support; external perimeters, top layers, bridges and gap fill run at half of it.',
    SPEED,
  ),
  def(
    PR,
    'max_print_speed',
    'number',
    'slice',
    'Max print speed',
    'Upper bound of every extrusion speed (print_speed and first_layer_speed are clamped to it).',
    SPEED,
  ),
  def(PR, 'travel_speed', 'number', 'slice', 'Travel speed', 'Speed of non-printing moves.', SPEED),
  def(PR, 'first_layer_speed', 'number', 'slice', 'First layer speed', 'Extrusion speed of the first layer.', SPEED),
  def(
    PR,
    'layer_height',
    'number',
    'slice',
    'Layer height',
    'Height of every layer, the first one included. Must lie within min/max layer height and not exceed the nozzle diameter.',
    MM(0.01, 2),
  ),
  def(
    PR,
    'min_layer_height',
    'number',
    'support',
    'Min layer height',
    'Lowest printable layer height; bounds layer_height and support layers.',
    MM(0.01, 2),
  ),
  def(
    PR,
    'max_layer_height',
    'number',
    'support',
    'Max layer height',
    'Highest printable layer height; bounds layer_height and support layers.',
    MM(0.01, 2),
  ),
  def(
    PR,
    'perimeters',
    'integer',
    'slice',
    'Perimeters',
    'Number of walls, clamped to [min_wall_count, max_wall_count].',
    COUNT(50),
  ),
  def(
    PR,
    'top_solid_layers',
    'integer',
    'slice',
    'Top solid layers',
    'Solid layers under every top surface.',
    COUNT(100),
  ),
  def(
    PR,
    'bottom_solid_layers',
    'integer',
    'slice',
    'Bottom solid layers',
    'Solid layers over every bottom surface.',
    COUNT(100),
  ),
  def(
    PR,
    'min_wall_count',
    'integer',
    'slice',
    'Min wall count',
    'Lower clamp of perimeters (a request asking for fewer walls gets this many).',
    COUNT(50),
  ),
  def(
    PR,
    'max_wall_count',
    'integer',
    'slice',
    'Max wall count',
    'Upper clamp of perimeters (a request asking for more walls gets this many).',
    COUNT(50),
  ),
  def(PR, 'fill_density', 'number', 'slice', 'Infill density', 'Sparse infill density.', PCT),
  def(
    PR,
    'infill_pattern',
    'enum',
    'slice',
    'Infill pattern',
    'Sparse infill pattern. Names PrusaSlicer lacks are sliced with the nearest equivalent, reported in the result.',
    {},
    { values: INFILL_PATTERNS },
  ),
  def(
    PR,
    'support_material',
    'boolean',
    'slice',
    'Supports',
    'Generate support material under overhangs (automatic supports).',
  ),
  def(
    PR,
    'support_overhang_angle',
    'number',
    'support',
    'Support overhang angle',
    'Overhang angle measured from vertical: faces leaning further out than this get support (45 is common). Sent to PrusaSlicer as threshold 90 − angle.',
    { unit: '°', min: 0, max: 90 },
  ),
  def(
    PR,
    'support_density',
    'number',
    'support',
    'Support density',
    "Density of the support body under its interface layers. Sliced at the nearest halving of 100 % (50, 25, 12.5 … 1.6 %), so less density never means more material; 0 = no body lines, only the support's outline wall, dense first layer and interfaces.",
    PCT,
  ),
  def(
    PR,
    'acceleration_print',
    'number',
    'slice',
    'Print acceleration',
    'Acceleration of extruding moves (drives the time estimate).',
    ACCEL,
  ),
  def(
    PR,
    'acceleration_travel',
    'number',
    'slice',
    'Travel acceleration',
    'Acceleration of travel moves (drives the time estimate).',
    ACCEL,
  ),
  def(
    PR,
    'acceleration_retraction',
    'number',
    'slice',
    'Retraction acceleration',
    'Acceleration of retract/unretract moves (drives the time estimate).',
    ACCEL,
  ),
  def(
    PR,
    'jerk_print',
    'number',
    'slice',
    'Print jerk',
    'XY jerk (instant speed change) used by the time estimate for all XY moves.',
    JERK,
  ),
  def(
    PR,
    'jerk_travel',
    'number',
    'none',
    'Travel jerk',
    'Validation only: PrusaSlicer models one XY jerk for all moves, taken from jerk_print.',
    JERK,
  ),
  def(
    PR,
    'jerk_retraction',
    'number',
    'slice',
    'Retraction jerk',
    'Extruder (E) jerk used by the time estimate.',
    JERK,
  ),
  def(
    PR,
    'min_hotend_temp',
    'number',
    'none',
    'Min hotend temperature',
    'Validation only: the material temperature must not be below it.',
    TEMP,
  ),
  def(
    PR,
    'max_hotend_temp',
    'number',
    'none',
    'Max hotend temperature',
    'Validation only: the material temperature must not exceed it.',
    TEMP,
  ),
  def(
    PR,
    'min_bed_temp',
    'number',
    'none',
    'Min bed temperature',
    'Validation only: the material bed temperature must not be below it.',
    TEMP,
  ),
  def(
    PR,
    'max_bed_temp',
    'number',
    'none',
    'Max bed temperature',
    'Validation only: the material bed temperature must not exceed it.',
    TEMP,
  ),
  def(
    PR,
    'hourly_cost',
    'number',
    'price',
    'Machine hourly cost',
    'Machine cost per hour of print time, in the shop currency.',
    { unit: 'currency/h', ...MONEY },
    { money: true },
  ),
  def(
    PR,
    'power_watts',
    'number',
    'price',
    'Power draw',
    'Average electrical draw while printing, for the energy cost. Printer-profile only, not a request field.',
    { unit: 'W', min: 0, max: 100_000 },
    { requestField: false },
  ),
  // material_config
  def(
    MA,
    'filament_type',
    'string',
    'none',
    'Material',
    'Name of the material profile to load (for example PLA). Its resolved values carry the effect.',
    {},
    { maxLength: 64, pattern: /^[^\p{Cc}]+$/u },
  ),
  def(
    MA,
    'density',
    'number',
    'stats',
    'Density',
    'Filament density; turns extruded volume into grams (never re-slices).',
    { unit: 'g/cm³', min: 0.1, max: 25 },
  ),
  def(
    MA,
    'diameter',
    'number',
    'stats',
    'Filament diameter',
    'Filament diameter (1.75 or 2.85 typically); turns extruded volume into filament length (never re-slices).',
    MM(0.5, 5),
  ),
  def(
    MA,
    'temperature',
    'number',
    'none',
    'Print temperature',
    'Nozzle temperature, first layer included. Checked against the limits; changes neither time nor material.',
    TEMP,
  ),
  def(
    MA,
    'print_temp_min',
    'number',
    'none',
    'Min print temperature',
    'Validation only: temperature must not be below it.',
    TEMP,
  ),
  def(
    MA,
    'print_temp_max',
    'number',
    'none',
    'Max print temperature',
    'Validation only: temperature must not exceed it.',
    TEMP,
  ),
  def(
    MA,
    'bed_temperature',
    'number',
    'none',
    'Bed temperature',
    'Bed temperature, first layer included. Checked against the limits; changes neither time nor material.',
    TEMP,
  ),
  def(
    MA,
    'bed_temp_min',
    'number',
    'none',
    'Min bed temperature',
    'Validation only: bed_temperature must not be below it.',
    TEMP,
  ),
  def(
    MA,
    'bed_temp_max',
    'number',
    'none',
    'Max bed temperature',
    'Validation only: bed_temperature must not exceed it.',
    TEMP,
  ),
  def(
    MA,
    'fan_speed',
    'number',
    'none',
    'Fan speed',
    'Part cooling fan speed (maximum, and on bridges). Changes neither time nor material.',
    PCT,
  ),
  def(
    MA,
    'min_fan_speed',
    'number',
    'none',
    'Min fan speed',
    'Fan speed on layers that need no extra cooling. Changes neither time nor material.',
    PCT,
  ),
  def(
    MA,
    'retraction_distance',
    'number',
    'slice',
    'Retraction distance',
    'Filament pulled back before travel moves.',
    { unit: 'mm', min: 0, max: 50 },
  ),
  def(MA, 'retraction_speed', 'number', 'slice', 'Retraction speed', 'Speed of retract and unretract moves.', SPEED),
  def(
    MA,
    'price_per_kg',
    'number',
    'price',
    'Price per kg',
    'Material price per kilogram, in the shop currency. The same setting as price_per_gram in another unit: the highest-priority source that sets either one wins; setting both at once requires equal prices.',
    MONEY,
    { money: true },
  ),
  def(
    MA,
    'price_per_gram',
    'number',
    'price',
    'Price per gram',
    'Material price per gram, in the shop currency. The same setting as price_per_kg (see there).',
    { min: 0, max: MONEY.max! / 1000 },
    { money: true },
  ),
  def(
    MA,
    'support_cost_multiplier',
    'number',
    'price',
    'Support cost multiplier',
    'Multiplier on the material cost of support material.',
    { min: 0, max: 100 },
  ),
  // quote_config
  def(
    QU,
    'currency',
    'string',
    'price',
    'Currency',
    "ISO 4217 code. In a profile: the shop currency, which every amount in profiles and requests is in. In a request: the currency of the quote; another one than the shop currency is converted with the shop's exchange_rates, or refused.",
    {},
    { maxLength: 3, values: CURRENCY_CODES, valuesName: 'an ISO 4217 currency code such as USD, EUR or JPY' },
  ),
  def(QU, 'tax_rate', 'number', 'price', 'Tax rate', 'Tax added on top of the subtotal.', PCT),
  def(QU, 'fixed_fee', 'number', 'price', 'Fixed fee', 'Fixed fee per quote, in the shop currency.', MONEY, {
    money: true,
  }),
  def(
    QU,
    'energy_cost_per_kwh',
    'number',
    'price',
    'Energy cost',
    'Energy price per kWh, in the shop currency.',
    { unit: 'currency/kWh', min: 0, max: 1000 },
    { money: true },
  ),
  def(
    QU,
    'minimum_price',
    'number',
    'price',
    'Minimum price',
    'Lowest subtotal (before tax) of one part, in the shop currency: a cheaper part is raised to it by a minimum_price_adjustment line. The shipped default is 1 (one unit of the shop currency), so no part is sold for 0; 0 set in a profile or a request: no minimum.',
    MONEY,
    { money: true },
  ),
  def(
    QU,
    'exchange_rates',
    'rates',
    'price',
    'Exchange rates',
    'Currencies a quote may ask for besides the shop currency, with their rate: units of that currency per one unit of the shop currency, for example {"EUR": 0.92}. Global-settings profile only.',
    { min: 0, max: 1_000_000_000, exclusiveMin: true },
    { requestField: false },
  ),
  def(
    QU,
    'quote_validity_days',
    'integer',
    'none',
    'Quote validity',
    'Days a completed quote stays valid: its signature expires and add-to-cart refuses it after that. Global-settings profile only, not a request field.',
    { unit: 'days', min: 1, max: 365 },
    { requestField: false },
  ),
];

export const SECTIONS: readonly SettingSection[] = [PR, MA, QU];

const BY_SECTION = new Map<SettingSection, Map<string, SettingDef>>(
  SECTIONS.map((s) => [s, new Map(SETTINGS.filter((d) => d.section === s).map((d) => [d.name, d]))]),
);

export function getSetting(section: SettingSection, name: string): SettingDef | undefined {
  return BY_SECTION.get(section)?.get(name);
}

export function settingsOf(section: SettingSection): SettingDef[] {
  return [...(BY_SECTION.get(section)?.values() ?? [])];
}

/** Fields whose value can change the slice (some only with supports on): the inputs of the slicing cache key. */
export const SLICE_FIELDS: readonly SettingDef[] = SETTINGS.filter(
  (d) => d.affects === 'slice' || d.affects === 'support',
);

/**
 * Built-in fallback values (a 0.4 mm Marlin printer with PLA), the seed of the global profile.
 * Every field is set except the material prices, which profiles or requests supply.
 */
export const DEFAULT_SETTINGS: ResolvedSettings = {
  printer: {
    bed_size_x: 250,
    bed_size_y: 210,
    bed_size_z: 210,
    nozzle_diameter: 0.4,
    nozzle_count: 1,
    print_speed: 60,
    max_print_speed: 200,
    travel_speed: 150,
    first_layer_speed: 20,
    layer_height: 0.2,
    min_layer_height: 0.07,
    max_layer_height: 0.3,
    perimeters: 2,
    top_solid_layers: 5,
    bottom_solid_layers: 4,
    min_wall_count: 1,
    max_wall_count: 10,
    fill_density: 20,
    infill_pattern: 'rectilinear',
    support_material: false,
    support_overhang_angle: 45,
    support_density: 15,
    acceleration_print: 1250,
    acceleration_travel: 1250,
    acceleration_retraction: 1250,
    jerk_print: 8,
    jerk_travel: 8,
    jerk_retraction: 1.5,
    min_hotend_temp: 170,
    max_hotend_temp: 300,
    min_bed_temp: 0,
    max_bed_temp: 120,
    hourly_cost: 1.5,
    power_watts: 120,
  },
  material: {
    filament_type: 'PLA',
    density: 1.24,
    diameter: 1.75,
    temperature: 210,
    print_temp_min: 190,
    print_temp_max: 230,
    bed_temperature: 60,
    bed_temp_min: 45,
    bed_temp_max: 70,
    fan_speed: 100,
    min_fan_speed: 35,
    retraction_distance: 0.8,
    retraction_speed: 35,
    price_per_kg: 25,
    support_cost_multiplier: 1,
  },
  quote: {
    currency: 'USD',
    tax_rate: 0,
    fixed_fee: 0,
    energy_cost_per_kwh: 0.3,
    minimum_price: 1,
    exchange_rates: {},
    quote_validity_days: 7,
  },
};

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A config object with every enumerated value in its canonical spelling (infill_pattern "GYROID" is "gyroid",
 * currency "eur" is "EUR", exchange_rates keys likewise); other values as given. Call after validation.
 */
export function canonicalSection<T>(section: SettingSection, value: T): T {
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(value)) {
    const d = getSetting(section, name);
    if (d?.values) out[name] = canonicalMember(d.values, v) ?? v;
    else if (d?.type === 'rates' && isPlainObject(v))
      out[name] = Object.fromEntries(
        Object.entries(v).map(([code, rate]) => [canonicalMember(CURRENCY_CODES, code) ?? code, rate]),
      );
    else out[name] = v;
  }
  return out as T;
}

/** Checks one value against its definition; returns the problem in words, or null. */
export function checkSettingValue(d: SettingDef, v: unknown): string | null {
  switch (d.type) {
    case 'boolean':
      return typeof v === 'boolean' ? null : 'must be a boolean';
    case 'enum':
      return canonicalMember(d.values!, v) !== undefined ? null : `must be one of: ${d.values!.join(', ')}`;
    case 'string':
      if (typeof v !== 'string' || v.length === 0) return 'must be a non-empty string';
      if (d.maxLength !== undefined && v.length > d.maxLength) return `must be at most ${d.maxLength} characters`;
      if (d.values && canonicalMember(d.values, v) === undefined)
        return `must be ${d.valuesName ?? `one of: ${d.values.join(', ')}`}`;
      return d.pattern && !d.pattern.test(v) ? 'has an invalid format' : null;
    case 'rates':
      return checkRates(d, v);
    default:
      return checkNumber(d, v);
  }
}

function checkNumber(d: SettingDef, v: unknown): string | null {
  if (typeof v !== 'number' || !Number.isFinite(v)) return 'must be a finite number';
  if (d.type === 'integer' && !Number.isInteger(v)) return 'must be an integer';
  const unit = d.unit && d.unit !== 'count' ? ` ${d.unit}` : '';
  if (d.min !== undefined && (d.exclusiveMin ? v <= d.min : v < d.min)) {
    return `must be ${d.exclusiveMin ? 'greater than' : 'at least'} ${d.min}${unit}`;
  }
  if (d.max !== undefined && v > d.max) return `must be at most ${d.max}${unit}`;
  return null;
}

function checkRates(d: SettingDef, v: unknown): string | null {
  if (!isPlainObject(v)) return 'must be an object of currency codes to rates, for example {"EUR": 0.92}';
  for (const [code, rate] of Object.entries(v)) {
    if (canonicalMember(CURRENCY_CODES, code) === undefined)
      return `has ${JSON.stringify(code.slice(0, 8))}, which is not an ISO 4217 currency code`;
    const problem = checkNumber({ ...d, type: 'number' }, rate);
    if (problem) return `has a rate for ${code} that ${problem}`;
  }
  return null;
}

/** Both names of a setting in one object must agree (docs/pricing.md, "One setting in two units"). */
function aliasIssues(section: SettingSection, values: Record<string, unknown>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const alias of SETTING_ALIASES.filter((a) => a.section === section)) {
    const [first, second] = alias.names;
    const a = values[first],
      b = values[second];
    if (typeof a !== 'number' || typeof b !== 'number') continue;
    if (Math.abs(alias.toFirst(b) - a) > 1e-9 * Math.max(Math.abs(a), 1e-9)) {
      issues.push({
        field: `${section}.${second}`,
        message:
          `disagrees with ${first} (${a} is ${alias.fromFirst(a)} here): they are one setting in two units; ` +
          'set one of them, or both to the same value',
      });
    }
  }
  return issues;
}

export interface ValidateOptions {
  /** 'request' (default) refuses profile-only fields such as power_watts; 'profile' accepts them. */
  source?: 'request' | 'profile';
}

/** Reports every problem of one config object, each naming its field path (e.g. printer_config.fill_density). */
export function validateConfigSection(
  section: SettingSection,
  value: unknown,
  opts: ValidateOptions = {},
): ConfigIssue[] {
  if (value === undefined) return [];
  if (!isPlainObject(value)) return [{ field: section, message: 'must be an object' }];
  const issues: ConfigIssue[] = [];
  for (const [name, v] of Object.entries(value)) {
    const field = `${section}.${name}`;
    const d = getSetting(section, name);
    if (!d || (!d.requestField && opts.source !== 'profile')) {
      issues.push({ field, message: 'is not a known field' });
      continue;
    }
    const problem = checkSettingValue(d, v);
    if (problem) issues.push({ field, message: problem });
  }
  return issues.length ? issues : aliasIssues(section, value);
}

type Bound = [section: SettingSection, field: string, lowField: string, highField: string];
// A value that must lie within two other resolved values (hardware or material limits).
const BOUNDS: Bound[] = [
  [PR, 'layer_height', 'min_layer_height', 'max_layer_height'],
  [PR, 'perimeters', 'min_wall_count', 'max_wall_count'], // perimeters get clamped, but the clamp must be sane
  [MA, 'temperature', 'print_temp_min', 'print_temp_max'],
  [MA, 'bed_temperature', 'bed_temp_min', 'bed_temp_max'],
];

export function sectionValues(s: ResolvedSettings, section: SettingSection): Record<string, unknown> {
  return (section === PR ? s.printer : section === MA ? s.material : s.quote) as Record<string, unknown>;
}

/**
 * Checks merged settings: every field present (material prices excepted) and valid, then the rules
 * between fields. Messages name the field the caller should change.
 */
export function validateResolvedSettings(s: ResolvedSettings): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const d of SETTINGS) {
    const v = sectionValues(s, d.section)[d.name];
    if (v === undefined) {
      if (d.name !== 'price_per_kg' && d.name !== 'price_per_gram')
        issues.push({ field: `${d.section}.${d.name}`, message: 'is missing after resolution' });
      continue;
    }
    const problem = checkSettingValue(d, v);
    if (problem) issues.push({ field: `${d.section}.${d.name}`, message: problem });
  }
  return issues.length ? issues : crossFieldIssues(s);
}

function within(issues: ConfigIssue[], field: string, v: number, lo: number, hi: number, what: string): void {
  if (lo > hi) issues.push({ field, message: `cannot be satisfied: ${what} are inverted (${lo} > ${hi})` });
  else if (v < lo || v > hi) issues.push({ field, message: `must be between ${lo} and ${hi} (${what}), got ${v}` });
}

function crossFieldIssues(s: ResolvedSettings): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const [section, field, lo, hi] of BOUNDS) {
    // Only reached once every field is present and valid (see validateResolvedSettings).
    const vals = sectionValues(s, section) as Record<string, number>;
    const low = vals[lo]!,
      high = vals[hi]!;
    if (field === 'perimeters') {
      if (low > high) issues.push({ field: `${section}.${hi}`, message: `must be at least min_wall_count (${low})` });
      continue;
    }
    within(issues, `${section}.${field}`, vals[field]!, low, high, `${lo} and ${hi}`);
  }
  const { printer: p, material: m } = s;
  within(issues, `${MA}.temperature`, m.temperature, p.min_hotend_temp, p.max_hotend_temp, 'the printer hotend limits');
  within(issues, `${MA}.bed_temperature`, m.bed_temperature, p.min_bed_temp, p.max_bed_temp, 'the printer bed limits');
  if (p.layer_height > p.nozzle_diameter) {
    issues.push({ field: `${PR}.layer_height`, message: `must not exceed nozzle_diameter (${p.nozzle_diameter} mm)` });
  }
  if (m.min_fan_speed > m.fan_speed) {
    issues.push({ field: `${MA}.min_fan_speed`, message: `must not exceed fan_speed (${m.fan_speed} %)` });
  }
  return issues;
}

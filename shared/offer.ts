// The merchant's offer: what a storefront shopper may choose (materials and their colours, named quality
// presets, infill choices, a quantity range) and the floors on price. Shoppers choose; merchants price: a
// widget key sends only choices from the offer (docs/offer.md). Pure TypeScript, shared by the server
// (authoritative) and the dashboard's editor, so both refuse exactly the same things with the same field names.

import {
  type ChosenLeadTime,
  type LeadTimeOption,
  leadTimesIssues,
  normalizeBreaks,
  normalizeLeadTimes,
  type QuantityBreak,
  quantityBreakIssues,
} from './offer-terms.ts';
import {
  type ConfigIssue,
  canonicalSection,
  getSetting,
  type PrinterConfig,
  validateConfigSection,
} from './settings.ts';
import { normalizeWidgetBudget, type WidgetBudget, widgetBudgetIssues } from './widget-budget.ts';

export interface OfferMaterial {
  /** The material profile's name (what `material_config.filament_type` looks up). */
  material: string;
  /** Colours the shopper may pick; empty: the material's own colour, no choice. */
  colors: string[];
  /** A short text the widget shows with the material ("Tough, food-safe, 80 °C"); null: none. */
  description?: string | null;
  /** The colour a colour name is drawn in, `#rrggbb`, by colour name; a colour without one is drawn from its name. */
  swatches?: Record<string, string>;
}

/** The offer's materials as the widget's configuration lists them (GET /v2/widget/config, the dashboard's preview). */
export function configMaterials(offer: Pick<Offer, 'materials'>) {
  return offer.materials.map((m) => ({
    name: m.material,
    colors: m.colors,
    description: m.description ?? null,
    swatches: m.swatches ?? {},
  }));
}

export interface QualityPreset {
  /** Stable id a shopper's request names (`choices.quality`). */
  id: string;
  label: string;
  /** Slicing settings of this preset, laid over the printer profile. */
  printer_config: PrinterConfig;
  /**
   * The id of one of the account's printer profiles this quality slices with instead of the default one (an
   * imported PrusaSlicer print preset, docs/profiles.md); absent: the default printer profile.
   */
  printer_profile?: string;
}

export interface Offer {
  materials: OfferMaterial[];
  default_material: string;
  qualities: QualityPreset[];
  default_quality: string;
  /** Infill densities in percent. */
  infill_options: number[];
  default_infill: number;
  quantity: { min: number; max: number };
  /** Floor of one part's price, in the merchant's currency; null: the profiles' minimum_price applies. */
  minimum_price: number | null;
  /** Floor of a cart line (unit price × quantity); null: none. */
  minimum_line_price: number | null;
  /** Free text shown to shoppers, e.g. "Ships in 3–5 business days". */
  lead_time: string | null;
  /** Price breaks by quantity (shared/offer-terms.ts); empty: none. */
  quantity_breaks: QuantityBreak[];
  /** Delivery options the shopper picks from; empty: no choice (lead_time's text alone). */
  lead_times: LeadTimeOption[];
  /** The lead time the widget preselects; null exactly when lead_times is empty. */
  default_lead_time: string | null;
  /** What the widget's shoppers may spend (shared/widget-budget.ts). */
  widget_budget: WidgetBudget;
  /**
   * Slicer seconds a shopper's part may be predicted to take, on this server, before it is refused as too complex
   * (`model_too_complex`); null: the server's default (DEFAULT_MAX_SLICE_SECONDS). API quotes are not bound by it.
   */
  max_slice_seconds: number | null;
  /**
   * Whether shoppers see how a part's price is made (material, support, machine time, energy and fee lines, the
   * price per gram, the resolved settings): in the widget's answers and on a kept quote's PDF. Off by default;
   * answers to the merchant's own API token carry it always.
   */
  show_cost_breakdown: boolean;
  /** How shoppers reach the shop, printed on a kept quote's PDF; null: no contact line. */
  contact: string | null;
  /**
   * Above these the widget offers "Request a quote" instead of Add to cart (docs/offer.md): a part whose print time
   * exceeds `hours`, or a line whose total exceeds `amount` (shop currency); null: every priced part is sold.
   */
  request_quote_above: RequestQuoteAbove | null;
}

/** The merchant's rule for parts priced by hand (either bound may be null; not both). */
export interface RequestQuoteAbove {
  hours: number | null;
  amount: number | null;
}

/**
 * Every field of an offer, written once, and whether a merchant must send it (the others take their defaults in
 * normalizeOffer). The validator, the OpenAPI schemas (server/offer/openapi.ts) and the dashboard's field labels
 * derive from it, and the compiler keeps it in step with Offer. In the order the API documents them.
 */
export const OFFER_FIELD_KINDS = {
  materials: 'required',
  default_material: 'required',
  qualities: 'required',
  default_quality: 'required',
  infill_options: 'required',
  default_infill: 'required',
  quantity: 'required',
  minimum_price: 'optional',
  minimum_line_price: 'optional',
  lead_time: 'optional',
  max_slice_seconds: 'optional',
  quantity_breaks: 'optional',
  lead_times: 'optional',
  default_lead_time: 'optional',
  widget_budget: 'optional',
  show_cost_breakdown: 'optional',
  contact: 'optional',
  request_quote_above: 'optional',
} as const satisfies Record<keyof Offer, 'required' | 'optional'>;

export type OfferField = keyof typeof OFFER_FIELD_KINDS;
export const OFFER_FIELDS = Object.keys(OFFER_FIELD_KINDS) as OfferField[];
/** What a merchant must send when saving an offer. */
export const OFFER_REQUIRED_FIELDS = OFFER_FIELDS.filter((f) => OFFER_FIELD_KINDS[f] === 'required');

/**
 * The lowest price of one part a shop sells at until it sets its own (docs/offer.md), in its currency: one whole
 * unit ($1.00, €1.00). Handling a part (starting the job, taking it off the plate, packing it) costs the shop
 * about that whatever it weighs, and a tiny or wrongly-scaled part must never be sold for $0.00. The default offer
 * takes it when the profiles' minimum_price is 0.
 */
export const DEFAULT_MINIMUM_PRICE = 1;

/** The slicer time a shopper's part may take when the offer does not say (docs/limits.md, "Slicer time"). */
export const DEFAULT_MAX_SLICE_SECONDS = 60;
/** The most a merchant may allow: beyond it a slice would outlast any sane wait at a shop's page. */
export const MAX_SLICE_SECONDS_LIMIT = 1800;

/** What a shopper sends: each field optional, defaults from the offer. */
export interface OfferChoices {
  material?: string;
  color?: string;
  quality?: string;
  infill?: number;
  quantity?: number;
  lead_time?: string;
}

/** The choices a quote was made with, every field filled in. */
export interface ResolvedChoices {
  material: string;
  color: string | null;
  quality: string;
  quality_label: string;
  infill: number;
  quantity: number;
  /** The delivery option chosen; absent when the offer has no lead-time options (and on older quotes). */
  lead_time?: ChosenLeadTime;
}

export const OFFER_LIMITS = {
  materials: 50,
  colors: 50,
  qualities: 12,
  infill: 20,
  maxQuantity: 100_000,
  text: 200,
  description: 200,
} as const;

/** A swatch: the colour as the widget draws it. */
export const SWATCH = /^#[0-9a-fA-F]{6}$/;

/**
 * Printer settings a quality preset may set: what changes how a part is sliced, but not the machine itself
 * (bed, nozzle) and not prices; infill has its own choice.
 */
export const PRESET_FIELDS: readonly string[] = [
  'layer_height',
  'perimeters',
  'top_solid_layers',
  'bottom_solid_layers',
  'infill_pattern',
  'support_material',
  'support_overhang_angle',
  'support_density',
  'print_speed',
  'first_layer_speed',
];

const ID = /^[a-z0-9][a-z0-9_-]{0,39}$/;
const PROFILE_ID = /^prof_[a-z0-9_]{1,60}$/;
const profileOf = (q: { printer_profile?: unknown }) =>
  typeof q.printer_profile === 'string' ? { printer_profile: q.printer_profile } : {};
const MONEY_MAX = 1_000_000;

const isText = (v: unknown, max: number): v is string =>
  typeof v === 'string' && v.trim().length > 0 && v.length <= max;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function knownKeys(obj: Record<string, unknown>, keys: readonly string[], at: string, issues: ConfigIssue[]) {
  for (const k of Object.keys(obj))
    if (!keys.includes(k)) issues.push({ field: at ? `${at}.${k}` : k, message: 'is not a known field' });
}

function listOf(v: unknown, field: string, max: number, issues: ConfigIssue[]): unknown[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > max) {
    issues.push({ field, message: `must be a list of 1 to ${max} entries` });
    return [];
  }
  return v;
}

function unique(values: string[], field: string, what: string, issues: ConfigIssue[]) {
  const seen = new Set<string>();
  values.forEach((v, i) => {
    if (seen.has(v.toLowerCase())) issues.push({ field: `${field}.${i}`, message: `repeats the ${what} "${v}"` });
    seen.add(v.toLowerCase());
  });
}

function materialIssues(raw: unknown, issues: ConfigIssue[]): OfferMaterial[] {
  const list = listOf(raw, 'materials', OFFER_LIMITS.materials, issues);
  const out: OfferMaterial[] = [];
  list.forEach((m, i) => {
    const at = `materials.${i}`;
    if (!isObject(m)) {
      issues.push({ field: at, message: 'must be an object {material, colors}' });
      return;
    }
    knownKeys(m, ['material', 'colors', 'description', 'swatches'], at, issues);
    if (!isText(m.material, 64)) issues.push({ field: `${at}.material`, message: 'must be a material profile name' });
    const colors = m.colors ?? [];
    if (!Array.isArray(colors) || colors.length > OFFER_LIMITS.colors || !colors.every((c) => isText(c, 40))) {
      issues.push({
        field: `${at}.colors`,
        message: `must be a list of up to ${OFFER_LIMITS.colors} colour names (1 to 40 characters)`,
      });
    } else unique(colors as string[], `${at}.colors`, 'colour', issues);
    if (m.description != null && !isText(m.description, OFFER_LIMITS.description))
      issues.push({
        field: `${at}.description`,
        message: `must be null or a text of 1 to ${OFFER_LIMITS.description} characters`,
      });
    swatchIssues(m.swatches, Array.isArray(colors) ? colors : [], at, issues);
    if (isText(m.material, 64))
      out.push({ material: m.material, colors: Array.isArray(colors) ? (colors as string[]) : [] });
  });
  unique(
    out.map((m) => m.material),
    'materials',
    'material',
    issues,
  );
  return out;
}

/** Swatches name offered colours (exactly as spelt in colors) and are `#rrggbb`. */
function swatchIssues(raw: unknown, colors: unknown[], at: string, issues: ConfigIssue[]) {
  if (raw === undefined || raw === null) return;
  if (!isObject(raw))
    return issues.push({ field: `${at}.swatches`, message: 'must be an object {colour name: "#rrggbb"}' });
  for (const [name, hex] of Object.entries(raw)) {
    if (!colors.includes(name))
      issues.push({ field: `${at}.swatches.${name}`, message: 'is not one of the colours of this material' });
    else if (typeof hex !== 'string' || !SWATCH.test(hex))
      issues.push({ field: `${at}.swatches.${name}`, message: 'must be a colour as #rrggbb, e.g. #5b2a86' });
  }
}

function presetIssues(raw: unknown, issues: ConfigIssue[]): QualityPreset[] {
  const list = listOf(raw, 'qualities', OFFER_LIMITS.qualities, issues);
  const out: QualityPreset[] = [];
  list.forEach((q, i) => {
    const at = `qualities.${i}`;
    if (!isObject(q)) {
      issues.push({ field: at, message: 'must be an object {id, label, printer_config}' });
      return;
    }
    knownKeys(q, ['id', 'label', 'printer_config', 'printer_profile'], at, issues);
    if (
      q.printer_profile !== undefined &&
      (typeof q.printer_profile !== 'string' || !PROFILE_ID.test(q.printer_profile))
    )
      issues.push({ field: `${at}.printer_profile`, message: 'must be the id of one of your printer profiles' });
    if (typeof q.id !== 'string' || !ID.test(q.id))
      issues.push({ field: `${at}.id`, message: 'must be 1 to 40 lower-case letters, digits, - or _' });
    if (!isText(q.label, 60)) issues.push({ field: `${at}.label`, message: 'must be a label of 1 to 60 characters' });
    const settings = q.printer_config ?? {};
    if (!isObject(settings)) {
      issues.push({ field: `${at}.printer_config`, message: 'must be an object' });
      return;
    }
    for (const name of Object.keys(settings)) {
      if (getSetting('printer_config', name) && !PRESET_FIELDS.includes(name)) {
        issues.push({
          field: `${at}.printer_config.${name}`,
          message: `is not a quality setting (allowed: ${PRESET_FIELDS.join(', ')})`,
        });
      }
    }
    const known = Object.fromEntries(
      Object.entries(settings).filter(([k]) => !getSetting('printer_config', k) || PRESET_FIELDS.includes(k)),
    );
    for (const issue of validateConfigSection('printer_config', known))
      issues.push({ field: `${at}.${issue.field}`, message: issue.message });
    if (typeof q.id === 'string' && isText(q.label, 60))
      out.push({ id: q.id, label: q.label, printer_config: settings as PrinterConfig, ...profileOf(q) });
  });
  unique(
    out.map((q) => q.id),
    'qualities',
    'quality id',
    issues,
  );
  return out;
}

function infillIssues(raw: unknown, issues: ConfigIssue[]): number[] {
  const list = listOf(raw, 'infill_options', OFFER_LIMITS.infill, issues);
  list.forEach((v, i) => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 100)
      issues.push({ field: `infill_options.${i}`, message: 'must be a percentage from 0 to 100' });
  });
  const numbers = list.filter((v): v is number => typeof v === 'number');
  if (new Set(numbers).size !== numbers.length)
    issues.push({ field: 'infill_options', message: 'must not repeat a value' });
  return numbers;
}

function quantityIssues(raw: unknown, issues: ConfigIssue[]) {
  const q = raw as { min?: unknown; max?: unknown };
  const ok = (v: unknown) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= OFFER_LIMITS.maxQuantity;
  if (!isObject(raw)) return issues.push({ field: 'quantity', message: 'must be an object {min, max}' });
  knownKeys(raw, ['min', 'max'], 'quantity', issues);
  if (!ok(q.min))
    issues.push({ field: 'quantity.min', message: `must be an integer from 1 to ${OFFER_LIMITS.maxQuantity}` });
  if (!ok(q.max))
    issues.push({ field: 'quantity.max', message: `must be an integer from 1 to ${OFFER_LIMITS.maxQuantity}` });
  else if (ok(q.min) && (q.max as number) < (q.min as number))
    issues.push({ field: 'quantity.max', message: 'must be at least quantity.min' });
}

function moneyIssue(v: unknown, field: string, issues: ConfigIssue[]) {
  if (v === null) return;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > MONEY_MAX)
    issues.push({ field, message: `must be null or an amount from 0 to ${MONEY_MAX}` });
}

/** Every structural problem of an offer, each naming its field (materials.0.colors.1, qualities.2.id …). */
export function validateOffer(raw: unknown): ConfigIssue[] {
  if (!isObject(raw)) return [{ field: 'body', message: 'must be a JSON object' }];
  const issues: ConfigIssue[] = [];
  knownKeys(raw, OFFER_FIELDS, '', issues);
  const materials = materialIssues(raw.materials, issues);
  const qualities = presetIssues(raw.qualities, issues);
  const infill = infillIssues(raw.infill_options, issues);
  const sameName = (a: unknown, b: string) => typeof a === 'string' && a.toLowerCase() === b.toLowerCase();
  if (!materials.some((m) => sameName(raw.default_material, m.material)))
    issues.push({ field: 'default_material', message: 'must be one of the offered materials' });
  if (!qualities.some((q) => q.id === raw.default_quality))
    issues.push({ field: 'default_quality', message: 'must be the id of one of the qualities' });
  if (!infill.includes(raw.default_infill as number))
    issues.push({ field: 'default_infill', message: 'must be one of infill_options' });
  quantityIssues(raw.quantity, issues);
  moneyIssue(raw.minimum_price ?? null, 'minimum_price', issues);
  moneyIssue(raw.minimum_line_price ?? null, 'minimum_line_price', issues);
  if (raw.lead_time != null && !isText(raw.lead_time, OFFER_LIMITS.text))
    issues.push({ field: 'lead_time', message: `must be null or a text of 1 to ${OFFER_LIMITS.text} characters` });
  if (raw.contact != null && !isText(raw.contact, OFFER_LIMITS.text))
    issues.push({ field: 'contact', message: `must be null or a text of 1 to ${OFFER_LIMITS.text} characters` });
  if (raw.show_cost_breakdown !== undefined && typeof raw.show_cost_breakdown !== 'boolean')
    issues.push({ field: 'show_cost_breakdown', message: 'must be true or false' });
  issues.push(...requestRuleIssues(raw.request_quote_above ?? null));
  issues.push(...quantityBreakIssues(raw.quantity_breaks));
  issues.push(...leadTimesIssues(raw.lead_times, raw.default_lead_time ?? null));
  issues.push(...widgetBudgetIssues(raw.widget_budget));
  const seconds = raw.max_slice_seconds ?? null;
  if (
    seconds !== null &&
    !(Number.isInteger(seconds) && (seconds as number) >= 5 && (seconds as number) <= MAX_SLICE_SECONDS_LIMIT)
  )
    issues.push({
      field: 'max_slice_seconds',
      message: `must be null or a whole number of seconds from 5 to ${MAX_SLICE_SECONDS_LIMIT}`,
    });
  return issues;
}

/** The most hours a rule may name: a month of printing. */
export const MAX_RULE_HOURS = 720;

function requestRuleIssues(raw: unknown): ConfigIssue[] {
  if (raw === null) return [];
  const field = 'request_quote_above';
  if (!isObject(raw)) return [{ field, message: 'must be null or an object with hours and/or amount' }];
  const issues: ConfigIssue[] = [];
  knownKeys(raw, ['hours', 'amount'], field, issues);
  const hours = raw.hours ?? null;
  const amount = raw.amount ?? null;
  if (hours !== null && !(typeof hours === 'number' && hours > 0 && hours <= MAX_RULE_HOURS))
    issues.push({
      field: `${field}.hours`,
      message: `must be null or a number of hours above 0, at most ${MAX_RULE_HOURS}`,
    });
  moneyIssue(amount, `${field}.amount`, issues);
  if (amount === 0) issues.push({ field: `${field}.amount`, message: 'must be null or above 0' });
  if (hours === null && amount === null)
    issues.push({ field, message: 'names hours, an amount or both; null sells every priced part' });
  return issues;
}

/** Whether the merchant's rule sends a priced line to "Request a quote": over its hours per part or its amount. */
export function requestQuoteRule(
  rule: RequestQuoteAbove | null,
  line: { print_seconds: number; total_price: number; rate?: number },
): 'hours' | 'amount' | null {
  if (!rule) return null;
  if (rule.hours !== null && line.print_seconds > rule.hours * 3600) return 'hours';
  if (rule.amount !== null && line.total_price > rule.amount * (line.rate ?? 1)) return 'amount';
  return null;
}

function normalizeMaterial(m: OfferMaterial): OfferMaterial {
  const swatches = Object.fromEntries(Object.entries(m.swatches ?? {}).map(([c, hex]) => [c, hex.toLowerCase()]));
  return {
    material: m.material,
    colors: m.colors ?? [],
    description: m.description?.trim() || null,
    ...(Object.keys(swatches).length ? { swatches } : {}),
  };
}

/**
 * Offers saved before breaks and lead-time options have none stored: they read as none (the free-text lead_time
 * keeps working). Offers saved before the cost-breakdown switch and the contact hide the breakdown and print
 * no contact, as a new offer does.
 */
export const withTerms = (offer: Offer): Offer => ({
  ...offer,
  quantity_breaks: offer.quantity_breaks ?? [],
  lead_times: offer.lead_times ?? [],
  default_lead_time: offer.default_lead_time ?? null,
  show_cost_breakdown: offer.show_cost_breakdown ?? false,
  contact: offer.contact ?? null,
  request_quote_above: offer.request_quote_above ?? null,
});

/** An offer that passed validateOffer, with the optional fields filled in. */
export function normalizeOffer(raw: Record<string, unknown>): Offer {
  const o = raw as unknown as Offer;
  return {
    materials: o.materials.map(normalizeMaterial),
    default_material: o.materials.find((m) => m.material.toLowerCase() === o.default_material.toLowerCase())!.material,
    qualities: o.qualities.map((q) => ({
      id: q.id,
      label: q.label,
      printer_config: canonicalSection('printer_config', q.printer_config ?? {}),
      ...profileOf(q),
    })),
    default_quality: o.default_quality,
    infill_options: [...o.infill_options].sort((a, b) => a - b),
    default_infill: o.default_infill,
    quantity: { min: o.quantity.min, max: o.quantity.max },
    minimum_price: o.minimum_price ?? null,
    minimum_line_price: o.minimum_line_price ?? null,
    lead_time: o.lead_time?.trim() || null,
    quantity_breaks: normalizeBreaks(o.quantity_breaks),
    lead_times: normalizeLeadTimes(o.lead_times),
    default_lead_time: o.lead_times?.length ? o.default_lead_time : null,
    widget_budget: normalizeWidgetBudget(o.widget_budget),
    max_slice_seconds: o.max_slice_seconds ?? null,
    show_cost_breakdown: o.show_cost_breakdown ?? false,
    contact: o.contact?.trim() || null,
    request_quote_above: o.request_quote_above ?? null,
  };
}

const CHOICE_FIELDS = ['material', 'color', 'quality', 'infill', 'quantity', 'lead_time'];

/**
 * The shopper's choices checked against the offer: each missing one takes the offer's default, each one
 * outside the offer is a problem naming `choices.<field>` and what is offered. Names match case-insensitively
 * and come back in the offer's spelling.
 */
export function resolveChoices(offer: Offer, raw: unknown): { choices: ResolvedChoices; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const c = (isObject(raw) ? raw : {}) as Record<string, unknown>;
  if (raw !== undefined && !isObject(raw)) issues.push({ field: 'choices', message: 'must be an object' });
  knownKeys(c, CHOICE_FIELDS, 'choices', issues);
  const same = (a: unknown, b: string) => typeof a === 'string' && a.toLowerCase() === b.toLowerCase();
  const offered = (what: string, values: string[]) => `is not offered (${what}: ${values.join(', ')})`;

  const material =
    c.material === undefined
      ? offer.materials.find((m) => m.material === offer.default_material)
      : offer.materials.find((m) => same(c.material, m.material));
  if (!material)
    issues.push({
      field: 'choices.material',
      message: offered(
        'materials',
        offer.materials.map((m) => m.material),
      ),
    });
  const colors = material?.colors ?? [];
  let color: string | null = colors[0] ?? null;
  if (c.color !== undefined) {
    color = colors.find((x) => same(c.color, x)) ?? null;
    if (!color)
      issues.push({
        field: 'choices.color',
        message: colors.length
          ? offered(`colours of ${material?.material}`, colors)
          : 'is not a choice for this material',
      });
  }
  const quality =
    c.quality === undefined
      ? offer.qualities.find((q) => q.id === offer.default_quality)
      : offer.qualities.find((q) => same(c.quality, q.id));
  if (!quality)
    issues.push({
      field: 'choices.quality',
      message: offered(
        'qualities',
        offer.qualities.map((q) => q.id),
      ),
    });
  const infill = c.infill === undefined ? offer.default_infill : (c.infill as number);
  if (!offer.infill_options.includes(infill))
    issues.push({ field: 'choices.infill', message: offered('infill', offer.infill_options.map(String)) });
  const quantity = c.quantity === undefined ? offer.quantity.min : (c.quantity as number);
  const quantityIssue = quantityProblem(offer, quantity);
  if (quantityIssue) issues.push({ field: 'choices.quantity', message: quantityIssue });
  const lead_time = leadTimeChoice(offer, c.lead_time, issues);
  return {
    issues,
    choices: {
      material: material?.material ?? '',
      color,
      quality: quality?.id ?? '',
      quality_label: quality?.label ?? '',
      infill,
      quantity,
      // Only with lead-time options: choices (and so signatures) of other offers stay as they were.
      ...(lead_time ? { lead_time } : {}),
    },
  };
}

/** The lead time chosen (default: the offer's), or null when the offer has no lead-time options. */
function leadTimeChoice(offer: Offer, raw: unknown, issues: ConfigIssue[]): ChosenLeadTime | null {
  const options = offer.lead_times ?? [];
  const id = raw === undefined ? offer.default_lead_time : raw;
  const found = options.find((o) => o.id === id);
  if (found) return { ...found };
  if (raw === undefined && !options.length) return null;
  issues.push({
    field: 'choices.lead_time',
    message: options.length
      ? `is not offered (lead times: ${options.map((o) => o.id).join(', ')})`
      : 'is not a choice: this shop offers no lead-time options',
  });
  return null;
}

/** Why a quantity is outside the offer's range, or null. */
export function quantityProblem(offer: Pick<Offer, 'quantity'>, quantity: unknown): string | null {
  const { min, max } = offer.quantity;
  return Number.isInteger(quantity) && (quantity as number) >= min && (quantity as number) <= max
    ? null
    : `must be a whole number from ${min} to ${max}`;
}

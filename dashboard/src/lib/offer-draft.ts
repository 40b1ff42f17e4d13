// The offer as the editor holds it: text as typed (so validateOffer can name what is wrong with it), and
// rows with stable keys, so a default follows its row through renames and reordering, and focus follows a
// moved row. offerBody() turns it into exactly the JSON PUT /v2/offer receives.
import { type Offer, type OfferField, PRESET_FIELDS, validateOffer } from '../../../shared/offer.ts';
import { type ConfigIssue, getSetting } from '../../../shared/settings.ts';
import { normalizeWidgetBudget, type WidgetBudget } from '../../../shared/widget-budget.ts';
import {
  type BreakRow,
  breakRows,
  breaksBody,
  type DeliveryRow,
  deliveryBody,
  deliveryRows,
  termsFieldLabel,
} from './offer-terms-draft.ts';
import { type FieldDef, formatField, numberOrText as numeric, parseField } from './profile-rules.ts';
import { newRowKey as newKey } from './row-key.ts';

export type { BreakRow, DeliveryRow };

export interface ColorRow {
  key: number;
  name: string;
  /** How the widget draws it, #rrggbb; empty: from its name. */
  swatch: string;
}
export interface MaterialRow {
  key: number;
  material: string;
  colors: ColorRow[];
  description: string;
}
export interface QualityRow {
  key: number;
  id: string;
  label: string;
  settings: Record<string, string>;
  /** A new preset's id follows its label until the id is typed by hand. */
  idFromLabel: boolean;
  /** Added in this editor (not loaded): its settings start open. */
  isNew: boolean;
  /** The id of the printer profile it slices with; empty: the default printer profile. */
  printerProfile: string;
}
export interface InfillRow {
  key: number;
  value: string;
}

export interface OfferDraft {
  materials: MaterialRow[];
  qualities: QualityRow[];
  infill: InfillRow[];
  /** Keys of the default rows. */
  defaultMaterial: number;
  defaultQuality: number;
  defaultInfill: number;
  quantityMin: string;
  quantityMax: string;
  minimumPrice: string;
  minimumLinePrice: string;
  leadTime: string;
  /** Quantity breaks, a row each (from 10 pieces 5 % off, from 50 12.5 % …). */
  quantityBreaks: BreakRow[];
  /** Delivery options, a row each, in the order shoppers see them. */
  leadTimes: DeliveryRow[];
  /** Key of the preselected delivery option (0: none, when there is no option). */
  defaultLeadTime: number;
  /** The widget budget as typed; upload storage in MiB (bytes / 2^20, exact both ways). */
  budget: Record<keyof WidgetBudget, string>;
  maxSliceSeconds: string;
  /** Shoppers see how a price is made (off: the widget's answers and the PDF show the price only). */
  showCostBreakdown: boolean;
  /** How shoppers reach the shop, as typed; empty: none. */
  contact: string;
  /** "Request a quote" above these, as typed: hours of print time per part, a line total; empty: no bound. */
  requestHours: string;
  requestAmount: string;
}

const MIB = 1024 * 1024;

/** The catalogue's definitions of the settings a quality preset may set, in PRESET_FIELDS order. */
export const PRESET_DEFS: FieldDef[] = PRESET_FIELDS.map((name) => getSetting('printer_config', name)!).filter(Boolean);

/** An empty amount is none (null). */
const amount = (text: string): unknown => (text.trim() === '' ? null : numeric(text));

export const colorRow = (name: string, swatch = ''): ColorRow => ({ key: newKey(), name, swatch });
export const materialRow = (
  material: string,
  colors: string[],
  description = '',
  swatches: Record<string, string> = {},
): MaterialRow => ({
  key: newKey(),
  material,
  colors: colors.map((c) => colorRow(c, swatches[c] ?? '')),
  description,
});

export const qualityRow = (
  id: string,
  label: string,
  settings: Record<string, string>,
  printerProfile = '',
): QualityRow => ({
  key: newKey(),
  id,
  label,
  settings,
  idFromLabel: false,
  isNew: false,
  printerProfile,
});
export const newQualityRow = (): QualityRow => ({ ...qualityRow('', '', {}), idFromLabel: true, isNew: true });

/** An id the API accepts, made from a label: "Fine · 0.1 mm" → "fine-0-1-mm", "Très fin" → "tres-fin". */
export function idFromLabel(label: string): string {
  const ascii = label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
  return ascii
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
}
export const infillRow = (value: string): InfillRow => ({ key: newKey(), value });

export function draftFrom(offer: Offer): OfferDraft {
  const materials = offer.materials.map((m) =>
    materialRow(m.material, m.colors, m.description ?? '', m.swatches ?? {}),
  );
  const qualities = offer.qualities.map((q) => {
    const settings = q.printer_config as Record<string, unknown>;
    const text = Object.fromEntries(PRESET_DEFS.map((d) => [d.name, formatField(d, settings[d.name])]));
    return qualityRow(q.id, q.label, text, q.printer_profile ?? '');
  });
  const infill = offer.infill_options.map((v) => infillRow(String(v)));
  const leadTimes = deliveryRows(offer.lead_times);
  const keyOf = <T extends { key: number }>(rows: T[], match: (r: T) => boolean) =>
    (rows.find(match) ?? rows[0])?.key ?? 0;
  return {
    materials,
    qualities,
    infill,
    defaultMaterial: keyOf(materials, (m) => m.material.toLowerCase() === offer.default_material.toLowerCase()),
    defaultQuality: keyOf(qualities, (q) => q.id === offer.default_quality),
    defaultInfill: keyOf(infill, (i) => Number(i.value) === offer.default_infill),
    quantityMin: String(offer.quantity.min),
    quantityMax: String(offer.quantity.max),
    minimumPrice: offer.minimum_price === null ? '' : String(offer.minimum_price),
    minimumLinePrice: offer.minimum_line_price === null ? '' : String(offer.minimum_line_price),
    leadTime: offer.lead_time ?? '',
    quantityBreaks: breakRows(offer.quantity_breaks),
    leadTimes,
    defaultLeadTime: keyOf(leadTimes, (o) => o.id === offer.default_lead_time),
    budget: budgetText(normalizeWidgetBudget(offer.widget_budget)),
    maxSliceSeconds: offer.max_slice_seconds === null ? '' : String(offer.max_slice_seconds),
    showCostBreakdown: offer.show_cost_breakdown ?? false,
    contact: offer.contact ?? '',
    requestHours: offer.request_quote_above?.hours == null ? '' : String(offer.request_quote_above.hours),
    requestAmount: offer.request_quote_above?.amount == null ? '' : String(offer.request_quote_above.amount),
  };
}

function budgetText(b: WidgetBudget): OfferDraft['budget'] {
  return {
    quotes_per_shopper_hour: String(b.quotes_per_shopper_hour),
    quotes_per_day: String(b.quotes_per_day),
    monthly_quote_share_percent: String(b.monthly_quote_share_percent),
    upload_storage_bytes: String(b.upload_storage_bytes / MIB),
  };
}

/** Text that is not a number goes as typed, so the API's rules name the field. */
function budgetBody(t: OfferDraft['budget']): Record<string, unknown> {
  const mib = numeric(t.upload_storage_bytes);
  return {
    quotes_per_shopper_hour: numeric(t.quotes_per_shopper_hour),
    quotes_per_day: numeric(t.quotes_per_day),
    monthly_quote_share_percent: numeric(t.monthly_quote_share_percent),
    upload_storage_bytes: typeof mib === 'number' ? Math.round(mib * MIB) : mib,
  };
}

function presetSettings(q: QualityRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of PRESET_DEFS) {
    const v = parseField(def, q.settings[def.name] ?? '');
    if (v !== undefined) out[def.name] = v;
  }
  return out;
}

function materialBody(m: MaterialRow) {
  const swatches = Object.fromEntries(
    m.colors.filter((c) => c.swatch.trim()).map((c) => [c.name.trim(), c.swatch.trim()]),
  );
  return {
    material: m.material,
    colors: m.colors.map((c) => c.name.trim()),
    description: m.description.trim() === '' ? null : m.description.trim(),
    ...(Object.keys(swatches).length ? { swatches } : {}),
  };
}

/** The request body of PUT /v2/offer for this draft. */
export function offerBody(d: OfferDraft): Record<string, unknown> {
  const byKey = <T extends { key: number }>(rows: T[], key: number) => rows.find((r) => r.key === key);
  return {
    materials: d.materials.map(materialBody),
    default_material: byKey(d.materials, d.defaultMaterial)?.material ?? '',
    qualities: d.qualities.map((q) => ({
      id: q.id.trim(),
      label: q.label.trim(),
      printer_config: presetSettings(q),
      ...(q.printerProfile ? { printer_profile: q.printerProfile } : {}),
    })),
    default_quality: byKey(d.qualities, d.defaultQuality)?.id.trim() ?? '',
    infill_options: d.infill.map((i) => numeric(i.value)),
    default_infill: numeric(byKey(d.infill, d.defaultInfill)?.value ?? ''),
    quantity: { min: numeric(d.quantityMin), max: numeric(d.quantityMax) },
    minimum_price: amount(d.minimumPrice),
    minimum_line_price: amount(d.minimumLinePrice),
    lead_time: d.leadTime.trim() === '' ? null : d.leadTime.trim(),
    quantity_breaks: breaksBody(d.quantityBreaks),
    lead_times: deliveryBody(d.leadTimes),
    default_lead_time: byKey(d.leadTimes, d.defaultLeadTime)?.id.trim() ?? null,
    widget_budget: budgetBody(d.budget),
    max_slice_seconds: d.maxSliceSeconds.trim() === '' ? null : numeric(d.maxSliceSeconds),
    show_cost_breakdown: d.showCostBreakdown,
    contact: d.contact.trim() === '' ? null : d.contact.trim(),
    request_quote_above:
      d.requestHours.trim() === '' && d.requestAmount.trim() === ''
        ? null
        : { hours: amount(d.requestHours), amount: amount(d.requestAmount) },
  };
}

/** The draft's problems, with the API's own rules, field names and messages. */
export const draftIssues = (d: OfferDraft): ConfigIssue[] => validateOffer(offerBody(d));

/** The draft as an offer, when it is one (for the preview). */
export function draftOffer(d: OfferDraft): Offer | null {
  const body = offerBody(d);
  return validateOffer(body).length ? null : (body as unknown as Offer);
}

/** The element id of a field path: materials.0.colors.1 → of-materials-0-colors-1. */
export const fieldId = (path: string) => `of-${path.replaceAll('.', '-')}`;

/** The words a person would use for a field path, e.g. "PLA, colour 2" or "Quality “Draft”, Layer height". */
export function fieldLabel(path: string, d: OfferDraft): string {
  const [head, index, sub, rest] = path.split('.');
  const n = Number(index);
  if (head === 'materials' && index !== undefined) {
    const name = d.materials[n]?.material || `Material ${n + 1}`;
    if (sub === 'description') return `${name}, description`;
    if (sub === 'swatches') return `${name}, swatch of ${rest}`;
    if (sub === 'colors') return rest === undefined ? `${name}, colours` : `${name}, colour ${Number(rest) + 1}`;
    return name;
  }
  if (head === 'qualities' && index !== undefined) {
    const name = `Quality ${d.qualities[n]?.label ? `“${d.qualities[n].label}”` : n + 1}`;
    if (sub === 'printer_config') {
      return rest ? `${name}, ${PRESET_DEFS.find((f) => f.name === rest)?.label ?? rest}` : `${name}, slicing settings`;
    }
    if (sub === 'printer_profile') return `${name}, printer profile`;
    return sub === 'id' ? `${name}, id` : sub === 'label' ? `${name}, label` : name;
  }
  if (head === 'infill_options' && index !== undefined) return `Infill option ${n + 1}`;
  if ((head === 'quantity_breaks' || head === 'lead_times') && index !== undefined)
    return termsFieldLabel(head, n, sub, d.leadTimes);
  return TOP_LABELS[path] ?? path;
}

// A label for every offer field (the compiler holds it to OFFER_FIELD_KINDS), and for a few of their parts.
const TOP_LABELS: Record<OfferField, string> & Record<string, string> = {
  materials: 'Materials',
  qualities: 'Qualities',
  infill_options: 'Infill options',
  default_material: 'Preselected material',
  default_quality: 'Preselected quality',
  default_infill: 'Preselected infill',
  quantity: 'Quantity',
  'quantity.min': 'Minimum quantity',
  'quantity.max': 'Maximum quantity',
  minimum_price: 'Minimum price per part',
  minimum_line_price: 'Minimum price per line',
  lead_time: 'Lead time',
  quantity_breaks: 'Quantity breaks',
  lead_times: 'Delivery options',
  default_lead_time: 'Preselected delivery option',
  widget_budget: 'Widget budget',
  'widget_budget.quotes_per_shopper_hour': 'Quotes per shopper per hour',
  'widget_budget.quotes_per_day': 'Quotes per day',
  'widget_budget.monthly_quote_share_percent': 'Share of the monthly quotes',
  'widget_budget.upload_storage_bytes': 'Storage for shopper uploads',
  max_slice_seconds: 'Most slicer time per part',
  show_cost_breakdown: 'Show shoppers the cost breakdown',
  contact: 'Contact on quotes',
  request_quote_above: 'Request a quote above',
  'request_quote_above.hours': 'Request a quote above (hours per part)',
  'request_quote_above.amount': 'Request a quote above (line total)',
  body: 'Offer',
};

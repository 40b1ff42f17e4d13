// The offer a caller quotes from: a widget key's own offer, else the account's, else one derived from the
// profiles (docs/offer.md). Saving checks the offer against the account's profiles, so a shopper can only ever
// pick choices that resolve to sliceable, priced settings.
import {
  DEFAULT_MINIMUM_PRICE,
  normalizeOffer,
  type Offer,
  type OfferChoices,
  type QualityPreset,
  type ResolvedChoices,
  resolveChoices,
  validateOffer,
  withTerms,
} from '../../shared/offer.ts';
import type { ConfigIssue } from '../../shared/settings.ts';
import { normalizeWidgetBudget } from '../../shared/widget-budget.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { ApiError, ValidationError } from '../http/index.ts';
import {
  listProfiles,
  type ProfileRow,
  printPresetQualities,
  type QuoteRequest,
  type Resolution,
  resolverByMaterial,
  resolveSettings,
} from '../profiles/index.ts';
import { accountOffer, widgetKeyOffer } from './sql.ts';

export type OfferSource = 'widget_key' | 'account' | 'default';

const DEFAULT_INFILL = [10, 15, 20, 30, 50, 100];
const DEFAULT_QUANTITY = { min: 1, max: 1000 };
/** Layer heights of the derived Draft and Fine presets; Standard is the printer profile as it is. */
const DRAFT_MM = 0.3;
const FINE_MM = 0.1;

/** The material profiles by name, the account's own hiding a global one of the same name (`rows` own ones first). */
function visibleMaterials(rows: readonly ProfileRow[]) {
  const seen = new Map<string, { name: string; settings: Record<string, unknown> }>();
  for (const row of rows) {
    if (!seen.has(row.name.toLowerCase())) seen.set(row.name.toLowerCase(), row);
  }
  return seen;
}

const colorsOf = (settings: Record<string, unknown>): string[] =>
  Array.isArray(settings.colors)
    ? (settings.colors as string[])
    : typeof settings.color === 'string'
      ? [settings.color]
      : [];

/** Whether settings resolve: a material whose profiles do not (unpriced, invalid) is not offered. */
function resolves(resolve: () => unknown): boolean {
  try {
    resolve();
    return true;
  } catch {
    return false;
  }
}

function derivedQualities(p: Resolution['settings']['printer']): QualityPreset[] {
  const within = (mm: number) => mm >= p.min_layer_height && mm <= p.max_layer_height && mm <= p.nozzle_diameter;
  const presets: QualityPreset[] = [{ id: 'standard', label: `Standard · ${p.layer_height} mm`, printer_config: {} }];
  if (within(DRAFT_MM) && DRAFT_MM > p.layer_height)
    presets.unshift({ id: 'draft', label: `Draft · ${DRAFT_MM} mm`, printer_config: { layer_height: DRAFT_MM } });
  if (within(FINE_MM) && FINE_MM < p.layer_height)
    presets.push({ id: 'fine', label: `Fine · ${FINE_MM} mm`, printer_config: { layer_height: FINE_MM } });
  return presets;
}

/**
 * The offer of an account that has not written one: every material that can be priced; the print presets
 * imported with its default printer as qualities, else three qualities derived from the printer profile.
 */
export async function defaultOffer(db: Queryable, accountId: string): Promise<Offer> {
  const base = await resolveSettings(db, accountId, {});
  const byMaterial = await resolverByMaterial(db, accountId);
  const materials = [];
  for (const m of visibleMaterials(byMaterial.materials).values()) {
    if (resolves(() => byMaterial.resolve(m.name))) materials.push({ material: m.name, colors: colorsOf(m.settings) });
  }
  const fill = base.settings.printer.fill_density;
  const presets = await printPresetQualities(db, accountId);
  return {
    materials,
    default_material: base.material.name,
    qualities: presets?.qualities ?? derivedQualities(base.settings.printer),
    default_quality: presets?.defaultQuality ?? 'standard',
    infill_options: [...new Set([...DEFAULT_INFILL, fill])].sort((a, b) => a - b),
    default_infill: fill,
    quantity: DEFAULT_QUANTITY,
    minimum_price: base.settings.quote.minimum_price || DEFAULT_MINIMUM_PRICE,
    minimum_line_price: null,
    lead_time: null,
    quantity_breaks: [],
    lead_times: [],
    default_lead_time: null,
    widget_budget: normalizeWidgetBudget(undefined),
    max_slice_seconds: null,
    show_cost_breakdown: false,
    contact: null,
    request_quote_above: null,
  };
}

/** Offers saved before budgets, breaks or lead-time options existed have none stored: they get the defaults. */
const withBudget = (offer: Offer): Offer =>
  withTerms({ ...offer, widget_budget: normalizeWidgetBudget(offer.widget_budget) });

/** The offer as the database holds it now (effective.ts remembers it between changes). */
export async function readEffectiveOffer(
  db: Queryable,
  accountId: string,
  widgetKeyId: string | null,
): Promise<{ offer: Offer; source: OfferSource }> {
  const own = widgetKeyId ? await widgetKeyOffer(db, accountId, widgetKeyId) : null;
  if (own) return { offer: withBudget(own), source: 'widget_key' };
  const account = await accountOffer(db, accountId);
  if (account) return { offer: withBudget(account), source: 'account' };
  return { offer: await defaultOffer(db, accountId), source: 'default' };
}

/**
 * The request layer a set of choices stands for: material, the quality preset, infill, and the offer's minimum
 * price per part when it sets one (docs/offer.md).
 */
export function choicesLayer(offer: Offer, choices: ResolvedChoices): QuoteRequest {
  const preset = offer.qualities.find((q) => q.id === choices.quality)!;
  return {
    material_config: { filament_type: choices.material },
    printer_config: { ...preset.printer_config, fill_density: choices.infill },
    ...(offer.minimum_price !== null ? { quote_config: { minimum_price: offer.minimum_price } } : {}),
    ...(choices.color ? { color: choices.color } : {}),
    ...(preset.printer_profile ? { printer_profile: preset.printer_profile } : {}),
  };
}

/** Choices checked against the offer: a choice outside it is a 400 naming `choices.<field>`. */
export function checkChoices(offer: Offer, raw: OfferChoices | undefined): ResolvedChoices {
  const { choices, issues } = resolveChoices(offer, raw);
  if (issues.length) throw new ValidationError(issues);
  return choices;
}

/** A quality may slice only with one of the account's own printer profiles. */
async function unknownPrinterProfiles(db: Queryable, accountId: string, offer: Offer): Promise<ConfigIssue[]> {
  const own = new Set(
    (await listProfiles(db, accountId, 'printer')).filter((r) => r.account_id !== null).map((r) => r.id),
  );
  return offer.qualities.flatMap((q, i) =>
    q.printer_profile && !own.has(q.printer_profile)
      ? [{ field: `qualities.${i}.printer_profile`, message: 'is not one of your printer profiles' }]
      : [],
  );
}

async function resolutionIssue(
  db: Queryable,
  accountId: string,
  request: QuoteRequest,
  field: string,
): Promise<ConfigIssue | null> {
  try {
    await resolveSettings(db, accountId, request);
    return null;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const fields = (err.details?.fields as ConfigIssue[] | undefined)?.map((f) => `${f.field} ${f.message}`).join('; ');
    return { field, message: `cannot be quoted with your profiles: ${fields ?? err.message}` };
  }
}

/**
 * Validates an offer and checks it against the account's profiles: every material exists (its name is taken
 * in the profile's spelling) and can be priced, every quality resolves to valid settings. 400 or 422 naming
 * the field.
 */
export async function checkOffer(deps: Pick<Deps, 'db'>, accountId: string, raw: unknown): Promise<Offer> {
  const issues = validateOffer(raw);
  if (issues.length) throw new ValidationError(issues);
  const offer = normalizeOffer(raw as Record<string, unknown>);
  const profiles = visibleMaterials(await listProfiles(deps.db, accountId, 'material'));
  const problems: ConfigIssue[] = [];
  offer.materials.forEach((m, i) => {
    const profile = profiles.get(m.material.toLowerCase());
    if (!profile)
      problems.push({
        field: `materials.${i}.material`,
        message: `is not one of your material profiles (${[...profiles.values()].map((p) => p.name).join(', ')})`,
      });
    else m.material = profile.name;
  });
  offer.default_material =
    offer.materials.find((m) => m.material.toLowerCase() === offer.default_material.toLowerCase())?.material ??
    offer.default_material;
  problems.push(...(await unknownPrinterProfiles(deps.db, accountId, offer)));
  if (problems.length) throw new ValidationError(problems, 422, 'offer_conflict');
  const standard = offer.qualities.find((q) => q.id === offer.default_quality)!;
  const trials = [
    ...offer.materials.map((m, i) => ({ field: `materials.${i}.material`, material: m.material, preset: standard })),
    ...offer.qualities.map((q, i) => ({
      field: `qualities.${i}.printer_config`,
      material: offer.default_material,
      preset: q,
    })),
  ];
  for (const t of trials) {
    const request = {
      material_config: { filament_type: t.material },
      printer_config: { ...t.preset.printer_config, fill_density: offer.default_infill },
      ...(t.preset.printer_profile ? { printer_profile: t.preset.printer_profile } : {}),
    };
    const issue = await resolutionIssue(deps.db, accountId, request, t.field);
    if (issue) problems.push(issue);
  }
  if (problems.length) throw new ValidationError(problems, 422, 'offer_conflict');
  return offer;
}

// Setting resolution: request value > the shopper's choices from the offer > the account's default profile >
// the global profile, field by field,
// recording where every value came from. A setting with two names (price_per_kg, price_per_gram) is one field,
// and a quote in another currency than the shop's gets the shop's exchange rate or is refused (docs/pricing.md).

import { aliasOf, aliasValue, SETTING_ALIASES } from '../../shared/aliases.ts';
import type { Conversion } from '../../shared/pricing.ts';
import { GLOBAL_LAYER_FIELDS } from '../../shared/profiles.ts';
import {
  DEFAULT_SETTINGS,
  type MaterialConfig,
  type PrinterConfig,
  type QuoteConfig,
  type ResolvedSettings,
  SETTINGS,
  type SettingSection,
  sectionValues,
  validateResolvedSettings,
} from '../../shared/settings.ts';
import type { Queryable } from '../db/index.ts';
import { ApiError, type FieldProblem, ValidationError } from '../http/index.ts';
import type { SliceSettings } from '../slicer/index.ts';
import { importedOptions } from './imported.ts';
import { listProfiles, materialNames, type ProfileRow, profilesForResolution } from './sql.ts';

export interface QuoteRequest {
  printer_config?: PrinterConfig;
  material_config?: MaterialConfig;
  quote_config?: QuoteConfig;
  color?: string;
  /** An own printer profile in the default one's place: set by the offer layer, for a quality that names one. */
  printer_profile?: string;
}

/** 'request', 'offer' (a shopper's choices), 'profile:<id>' (the account's), 'global:<id>' (shipped) or 'built-in'. */
export type Source = string;

export interface Resolution {
  /** With `imported` when the printer or material profile carries the shop's own PrusaSlicer options. */
  settings: SliceSettings;
  sources: Record<string, Source>;
  material: ProfileRow;
  color: string;
  /** How amounts in the shop currency become the quote currency; null when they are the same. */
  conversion: Conversion | null;
}

interface Layer {
  values: Record<string, unknown> | undefined;
  source: Source;
  /** Only these fields are taken from this layer. */
  fields?: string[];
  /** Material prices are per material: never borrowed from another material or the built-ins. */
  noPrices?: boolean;
}

const profileLayer = (p: ProfileRow | undefined, fields?: string[]): Layer | null =>
  p ? { values: p.settings, source: `${p.account_id ? 'profile' : 'global'}:${p.id}`, fields } : null;

function pickProfiles(rows: ProfileRow[], filamentType: string | null, printerProfile: string | null = null) {
  const own = (kind: string) =>
    kind === 'printer' && printerProfile
      ? rows.find((r) => r.account_id !== null && r.kind === kind && r.id === printerProfile)
      : rows.find((r) => r.account_id !== null && r.kind === kind && r.is_default);
  const global = (kind: string) => rows.find((r) => r.account_id === null && r.kind === kind && r.is_default);
  const named = (scopeOwn: boolean) =>
    rows.find(
      (r) =>
        r.kind === 'material' &&
        (r.account_id !== null) === scopeOwn &&
        filamentType !== null &&
        r.name.toLowerCase() === filamentType.toLowerCase(),
    );
  const material = filamentType ? (named(true) ?? named(false)) : (own('material') ?? global('material'));
  // A material the account defines for itself still falls back, field by field, to the global one of that name.
  const globalSameName =
    material && material.account_id !== null
      ? rows.find(
          (r) => r.kind === 'material' && r.account_id === null && r.name.toLowerCase() === material.name.toLowerCase(),
        )
      : undefined;
  return {
    ownPrinter: own('printer'),
    globalPrinter: global('printer'),
    ownSettings: own('global'),
    globalSettings: global('global'),
    material,
    globalSameName,
    globalMaterial: global('material'),
  };
}

function layersFor(
  section: SettingSection,
  req: QuoteRequest,
  p: ReturnType<typeof pickProfiles>,
  offer?: QuoteRequest,
): Layer[] {
  const request: Layer[] = [
    { values: req[section] as Record<string, unknown>, source: 'request' },
    { values: offer?.[section] as Record<string, unknown>, source: 'offer' },
  ];
  const builtIn = (values: object): Layer => ({
    values: values as Record<string, unknown>,
    source: 'built-in',
    noPrices: true,
  });
  const fallbackMaterial =
    p.globalMaterial && p.globalMaterial !== p.material ? { ...profileLayer(p.globalMaterial)!, noPrices: true } : null;
  const list: (Layer | null)[] =
    section === 'printer_config'
      ? [
          ...request,
          profileLayer(p.ownPrinter),
          profileLayer(p.ownSettings, GLOBAL_LAYER_FIELDS),
          profileLayer(p.globalPrinter),
          profileLayer(p.globalSettings, GLOBAL_LAYER_FIELDS),
          builtIn(DEFAULT_SETTINGS.printer),
        ]
      : section === 'material_config'
        ? [
            ...request,
            profileLayer(p.material),
            profileLayer(p.globalSameName),
            fallbackMaterial,
            builtIn(DEFAULT_SETTINGS.material),
          ]
        : [...request, profileLayer(p.ownSettings), profileLayer(p.globalSettings), builtIn(DEFAULT_SETTINGS.quote)];
  return list.filter((l): l is Layer => l !== null);
}

const PRICE_FIELDS = new Set(['price_per_kg', 'price_per_gram']);

function layerOffers(layer: Layer, name: string): boolean {
  return !(layer.fields && !layer.fields.includes(name)) && !(layer.noPrices && PRICE_FIELDS.has(name));
}

type Won = { value: unknown; source: Source };

/** The first layer that sets a field, or either name of its alias pair, wins: request, then profiles, then built-ins. */
function winningLayer(layers: Layer[], section: SettingSection, name: string): Won | undefined {
  const alias = aliasOf(section, name);
  for (const layer of layers) {
    if (!layerOffers(layer, name)) continue;
    const value = alias ? aliasValue(alias, layer.values, name) : layer.values?.[name];
    if (value !== undefined) return { value, source: layer.source };
  }
  return undefined;
}

/** The build volume of the account's default printer profile, else the global printer's (same merge as quotes). */
export async function resolveBuildVolume(
  db: Queryable,
  accountId: string,
): Promise<{ x: number; y: number; z: number }> {
  const layers = layersFor('printer_config', {}, pickProfiles(await profilesForResolution(db, accountId, null), null));
  const size = (name: string) => winningLayer(layers, 'printer_config', name)!.value as number;
  return { x: size('bed_size_x'), y: size('bed_size_y'), z: size('bed_size_z') };
}

/**
 * Resolves a request's settings. `offer` is the layer a shopper's choices stand for (docs/offer.md): under the
 * request, over the profiles; its values report the source 'offer'.
 */
export async function resolveSettings(
  db: Queryable,
  accountId: string,
  req: QuoteRequest,
  offer?: QuoteRequest,
): Promise<Resolution> {
  const filamentType = req.material_config?.filament_type ?? offer?.material_config?.filament_type ?? null;
  const printerProfile = printerProfileOf(req, offer);
  const rows = await profilesForResolution(db, accountId, filamentType, printerProfile);
  if (printerProfile && !rows.some((r) => r.id === printerProfile && r.account_id !== null)) {
    throw new ApiError(
      422,
      'offer_conflict',
      'This quality slices with a printer profile that no longer exists: choose another quality.',
      { field: 'choices.quality' },
    );
  }
  if (!pickProfiles(rows, filamentType).material) {
    const available = await materialNames(db, accountId);
    throw new ApiError(
      422,
      'unknown_material',
      `No material profile is named "${filamentType}". Available: ${available.join(', ')}.`,
      {
        field: 'material_config.filament_type',
        available,
      },
    );
  }
  return resolveFromProfiles(rows, req, offer);
}

/**
 * Resolution with each of the account's materials in turn, from two reads instead of one per material: the rows
 * profilesForResolution reads for a material are the default profiles and the visible material profiles of that
 * name, so both are read once and picked from for each. The default offer checks every material it lists so.
 */
export async function resolverByMaterial(db: Queryable, accountId: string) {
  const [defaults, materials] = await Promise.all([
    profilesForResolution(db, accountId, null),
    listProfiles(db, accountId, 'material'),
  ]);
  const read = new Set(defaults.map((r) => r.id));
  return {
    /** The account's material profiles, its own first, then the global ones (listProfiles' order). */
    materials,
    resolve(material: string): Resolution {
      const name = material.toLowerCase();
      const named = materials.filter((r) => r.name.toLowerCase() === name && !read.has(r.id));
      return resolveFromProfiles([...defaults, ...named], { material_config: { filament_type: material } });
    },
  };
}

/**
 * Resolution from the profiles the account sees (its own and the global ones, as profilesForResolution reads
 * them): no I/O. The material named by the request must be among them.
 */
export function resolveFromProfiles(rows: ProfileRow[], req: QuoteRequest, offer?: QuoteRequest): Resolution {
  const picked = pickProfiles(
    rows,
    req.material_config?.filament_type ?? offer?.material_config?.filament_type ?? null,
    printerProfileOf(req, offer),
  );
  if (!picked.material) throw new Error('resolveFromProfiles: the requested material is not among the rows');
  const merged = merge(req, picked, picked.material.name, offer);
  const imported = importedOptions(picked.ownPrinter, picked.material, merged.sources);
  const settings: SliceSettings = imported ? { ...merged.settings, imported: imported.options } : merged.settings;
  const sources = imported ? { ...merged.sources, ...imported.sources } : merged.sources;
  const issues = validateResolvedSettings(settings);
  if (issues.length) throw new ValidationError(issues, 422, 'settings_conflict');
  if (settings.material.price_per_gram === undefined) {
    const message =
      `Material "${picked.material.name}" has no price: set material_config.price_per_kg (or price_per_gram) ` +
      'in the request or in its profile.';
    throw new ApiError(422, 'material_price_missing', message, { field: 'material_config.price_per_gram' });
  }
  const shop = winningLayer(layersFor('quote_config', {}, picked), 'quote_config', 'currency')!.value as string;
  const foreign = shippedAmountIssues(settings, sources, shop);
  if (foreign.length) throw new ValidationError(foreign, 422, 'settings_conflict');
  const color = req.color ?? offer?.color ?? (picked.material.settings.color as string | undefined) ?? 'Natural';
  return { settings, sources, material: picked.material, color, conversion: conversionFor(shop, settings.quote) };
}

const printerProfileOf = (req: QuoteRequest, offer?: QuoteRequest) =>
  req.printer_profile ?? offer?.printer_profile ?? null;

/** Every setting from the first layer that sets it, with that layer's name. */
function merge(req: QuoteRequest, picked: ReturnType<typeof pickProfiles>, materialName: string, offer?: QuoteRequest) {
  const out = { printer_config: {}, material_config: {}, quote_config: {} } as Record<
    SettingSection,
    Record<string, unknown>
  >;
  const sources: Record<string, Source> = {};
  // The layers depend on the section only: made once per section, not once per setting.
  const layers = {
    printer_config: layersFor('printer_config', req, picked, offer),
    material_config: layersFor('material_config', req, picked, offer),
    quote_config: layersFor('quote_config', req, picked, offer),
  };
  for (const def of SETTINGS) {
    const won = winningLayer(layers[def.section], def.section, def.name);
    if (won) {
      out[def.section][def.name] = won.value;
      sources[`${def.section}.${def.name}`] = won.source;
    }
  }
  const settings: ResolvedSettings = {
    printer: out.printer_config as ResolvedSettings['printer'],
    material: { ...(out.material_config as ResolvedSettings['material']), filament_type: materialName },
    quote: out.quote_config as ResolvedSettings['quote'],
  };
  return { settings, sources };
}

/** The shipped profiles and built-in defaults state their amounts in this currency. */
const SHIPPED_CURRENCY = DEFAULT_SETTINGS.quote.currency;
const SECOND_NAMES = new Set(SETTING_ALIASES.map((a) => `${a.section}.${a.names[1]}`));

/**
 * The shipped minimum price is one unit of whatever the shop's currency is ($1.00, €1.00, ¥1), as the offer's
 * default is: it exists so that no part is ever sold for 0, not to state a price.
 */
const IN_ANY_CURRENCY = new Set(['quote_config.minimum_price']);

/**
 * A shop pricing in another currency than the shipped profiles must set its own amounts: a shipped 1.5 USD
 * per hour is no 1.5 JPY per hour. Zero is zero in any currency.
 */
function shippedAmountIssues(s: ResolvedSettings, sources: Record<string, Source>, shop: string): FieldProblem[] {
  if (shop === SHIPPED_CURRENCY) return [];
  return SETTINGS.filter((d) => d.money && !SECOND_NAMES.has(`${d.section}.${d.name}`)).flatMap((d) => {
    const field = `${d.section}.${d.name}`;
    if (IN_ANY_CURRENCY.has(field)) return [];
    const value = sectionValues(s, d.section)[d.name];
    const source = sources[field] ?? '';
    if (!value || source === 'request' || source === 'offer' || source.startsWith('profile:')) return [];
    const message =
      `is ${value} ${SHIPPED_CURRENCY} in a shipped profile, but this shop prices in ${shop}: ` +
      `set it in your own profile, in ${shop}`;
    return [{ field, message }];
  });
}

/**
 * Amounts in profiles and requests are in the shop currency: the currency the profiles resolve to, whatever the
 * request asks. A quote in another currency is converted with the shop's rate for it, or refused.
 */
function conversionFor(shop: string, quote: ResolvedSettings['quote']): Conversion | null {
  const wanted = quote.currency;
  if (wanted === shop) return null;
  const rates = quote.exchange_rates;
  if (!Object.hasOwn(rates, wanted)) {
    const available = [
      shop,
      ...Object.keys(rates)
        .filter((c) => c !== shop)
        .sort(),
    ];
    const message =
      `This shop prices in ${shop} and has no exchange rate to ${wanted}: ask for ${available.join(', ')}, ` +
      `or add ${wanted} to exchange_rates in the global settings profile.`;
    throw new ApiError(422, 'currency_not_offered', message, { field: 'quote_config.currency', available });
  }
  return { from: shop, to: wanted, rate: rates[wanted]! }; // hasOwn above
}

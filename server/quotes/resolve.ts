// Setting resolution (spec 2.3): request value > the account's default profile > the global profile,
// field by field, recording where every value came from.
import {
  SETTINGS, DEFAULT_SETTINGS, validateResolvedSettings,
  type SettingSection, type ResolvedSettings, type PrinterConfig, type MaterialConfig, type QuoteConfig,
} from '../../shared/settings.ts';
import type { Queryable } from '../db/index.ts';
import { profilesForResolution, materialNames, type ProfileRow } from '../db/queries/profiles.ts';
import { ApiError, ValidationError } from '../errors.ts';

export interface QuoteRequest {
  printer_config?: PrinterConfig;
  material_config?: MaterialConfig;
  quote_config?: QuoteConfig;
  color?: string;
}

/** 'request', 'profile:<id>' (the account's), 'global:<id>' (shipped) or 'built-in'. */
export type Source = string;

export interface Resolution {
  settings: ResolvedSettings;
  sources: Record<string, Source>;
  material: ProfileRow;
  color: string;
}

interface Layer {
  values: Record<string, unknown> | undefined;
  source: Source;
  /** Only these fields are taken from this layer. */
  fields?: string[];
  /** Material prices are per material: never borrowed from another material or the built-ins. */
  noPrices?: boolean;
}

const GLOBAL_LAYER_FIELDS = ['layer_height', 'min_layer_height', 'max_layer_height'];

const profileLayer = (p: ProfileRow | undefined, fields?: string[]): Layer | null =>
  p ? { values: p.settings, source: `${p.account_id ? 'profile' : 'global'}:${p.id}`, fields } : null;

function pickProfiles(rows: ProfileRow[], filamentType: string | null) {
  const own = (kind: string) => rows.find((r) => r.account_id !== null && r.kind === kind && r.is_default);
  const global = (kind: string) => rows.find((r) => r.account_id === null && r.kind === kind && r.is_default);
  const named = (scopeOwn: boolean) =>
    rows.find((r) => r.kind === 'material' && (r.account_id !== null) === scopeOwn && filamentType !== null && r.name.toLowerCase() === filamentType.toLowerCase());
  const material = filamentType ? (named(true) ?? named(false)) : (own('material') ?? global('material'));
  // A material the account defines for itself still falls back, field by field, to the global one of that name.
  const globalSameName = material && material.account_id !== null ? rows.find((r) => r.kind === 'material' && r.account_id === null && r.name.toLowerCase() === material.name.toLowerCase()) : undefined;
  return { ownPrinter: own('printer'), globalPrinter: global('printer'), ownSettings: own('global'), globalSettings: global('global'), material, globalSameName, globalMaterial: global('material') };
}

function layersFor(section: SettingSection, req: QuoteRequest, p: ReturnType<typeof pickProfiles>): Layer[] {
  const builtIn = (values: object): Layer => ({ values: values as Record<string, unknown>, source: 'built-in', noPrices: true });
  const fallbackMaterial = p.globalMaterial && p.globalMaterial !== p.material ? { ...profileLayer(p.globalMaterial)!, noPrices: true } : null;
  const list: (Layer | null)[] =
    section === 'printer_config'
      ? [{ values: req.printer_config as Record<string, unknown>, source: 'request' }, profileLayer(p.ownPrinter), profileLayer(p.ownSettings, GLOBAL_LAYER_FIELDS), profileLayer(p.globalPrinter), profileLayer(p.globalSettings, GLOBAL_LAYER_FIELDS), builtIn(DEFAULT_SETTINGS.printer)]
      : section === 'material_config'
        ? [{ values: req.material_config as Record<string, unknown>, source: 'request' }, profileLayer(p.material), profileLayer(p.globalSameName), fallbackMaterial, builtIn(DEFAULT_SETTINGS.material)]
        : [{ values: req.quote_config as Record<string, unknown>, source: 'request' }, profileLayer(p.ownSettings), profileLayer(p.globalSettings), builtIn(DEFAULT_SETTINGS.quote)];
  return list.filter((l): l is Layer => l !== null);
}

const PRICE_FIELDS = new Set(['price_per_kg', 'price_per_gram']);

/** The first layer that sets a field wins: request, then profiles, then built-ins. */
function winningLayer(layers: Layer[], name: string): { value: unknown; source: Source } | undefined {
  for (const layer of layers) {
    if (layer.fields && !layer.fields.includes(name)) continue;
    if (layer.noPrices && PRICE_FIELDS.has(name)) continue;
    const value = layer.values?.[name];
    if (value !== undefined) return { value, source: layer.source };
  }
  return undefined;
}

/** The build volume of the account's default printer profile, else the global printer's (same merge as quotes). */
export async function resolveBuildVolume(db: Queryable, accountId: string): Promise<{ x: number; y: number; z: number }> {
  const layers = layersFor('printer_config', {}, pickProfiles(await profilesForResolution(db, accountId, null), null));
  const size = (name: string) => winningLayer(layers, name)!.value as number;
  return { x: size('bed_size_x'), y: size('bed_size_y'), z: size('bed_size_z') };
}

export async function resolveSettings(db: Queryable, accountId: string, req: QuoteRequest): Promise<Resolution> {
  const filamentType = req.material_config?.filament_type ?? null;
  const rows = await profilesForResolution(db, accountId, filamentType);
  const picked = pickProfiles(rows, filamentType);
  if (!picked.material) {
    const available = await materialNames(db, accountId);
    throw new ApiError(422, 'unknown_material', `No material profile is named "${filamentType}". Available: ${available.join(', ')}.`, {
      field: 'material_config.filament_type',
      available,
    });
  }
  const out = { printer_config: {}, material_config: {}, quote_config: {} } as Record<SettingSection, Record<string, unknown>>;
  const sources: Record<string, Source> = {};
  for (const def of SETTINGS) {
    const won = winningLayer(layersFor(def.section, req, picked), def.name);
    if (won) {
      out[def.section][def.name] = won.value;
      sources[`${def.section}.${def.name}`] = won.source;
    }
  }
  const settings: ResolvedSettings = {
    printer: out.printer_config as ResolvedSettings['printer'],
    material: { ...(out.material_config as ResolvedSettings['material']), filament_type: picked.material.name },
    quote: out.quote_config as ResolvedSettings['quote'],
  };
  const issues = validateResolvedSettings(settings);
  if (issues.length) throw new ValidationError(issues, 422, 'settings_conflict');
  if (settings.material.price_per_gram === undefined && settings.material.price_per_kg === undefined) {
    throw new ApiError(422, 'material_price_missing', `Material "${picked.material.name}" has no price: set material_config.price_per_gram (or price_per_kg) in the request or in its profile.`, {
      field: 'material_config.price_per_gram',
    });
  }
  const color = req.color ?? (picked.material.settings.color as string | undefined) ?? 'Natural';
  return { settings, sources, material: picked.material, color };
}

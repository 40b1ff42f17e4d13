// Profile API calls and the quote request a profile stands for in the "try it" box.

import { GLOBAL_LAYER_FIELDS } from '../../../shared/profiles.ts';
import { DEFAULT_SETTINGS, getSetting } from '../../../shared/settings.ts';
import { api, call } from './api.ts';
import type { Profile, ProfileKind } from './types.ts';

export const KINDS: ProfileKind[] = ['printer', 'material', 'global'];
export const KIND_LABEL: Record<ProfileKind, string> = {
  printer: 'Printer',
  material: 'Material',
  global: 'Global settings',
};

export async function listProfiles(kind: ProfileKind): Promise<Profile[]> {
  return (await call(api.GET('/v2/profiles/{kind}', { params: { path: { kind } } }))).data;
}

/** Every profile the account can see, by id: for naming the sources of resolved settings. */
export async function profileNames(): Promise<Map<string, Profile>> {
  const lists = await Promise.all(KINDS.map(listProfiles));
  return new Map(lists.flat().map((p) => [p.profile_id, p]));
}

function split(settings: Record<string, unknown>, keys: string[]) {
  const inKeys: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(settings)) (keys.includes(k) ? inKeys : rest)[k] = v;
  return [inKeys, rest] as const;
}

const profileOnly = (section: 'printer_config' | 'quote_config', settings: Record<string, unknown>) =>
  Object.keys(settings).filter((k) => getSetting(section, k)?.requestField === false);

/**
 * The quote request that prices a file "with this profile". A material is chosen by name (its
 * profile is found by name), so its values resolve from the profile itself. A printer or global profile applies by itself
 * only while it is the default, so otherwise its values travel as request values (profile-only fields such as
 * power_watts or exchange_rates cannot; the default profile's apply).
 */
export function quoteRequestFor(profile: Profile): Record<string, unknown> {
  if (profile.kind === 'material') return { material_config: { filament_type: profile.name } };
  if (profile.is_default) return {};
  if (profile.kind === 'printer') {
    const [, printer] = split(profile.settings, profileOnly('printer_config', profile.settings));
    return Object.keys(printer).length ? { printer_config: printer } : {};
  }
  const [layers, withProfileOnly] = split(profile.settings, GLOBAL_LAYER_FIELDS);
  const [, quote] = split(withProfileOnly, profileOnly('quote_config', withProfileOnly));
  const body: Record<string, unknown> = {};
  if (Object.keys(quote).length) body.quote_config = quote;
  if (Object.keys(layers).length) body.printer_config = layers;
  return body;
}

/**
 * The printer values a quote starts from, field by field as the server resolves them: your default printer
 * profile, your default global settings' layer heights, the global printer and global settings, the built-ins.
 */
export function printerBaseline(printers: Profile[], globals: Profile[]): Record<string, unknown> {
  const byDefault = (list: Profile[], scope: Profile['scope']) =>
    list.find((p) => p.scope === scope && p.is_default)?.settings ?? {};
  const layers = (s: Record<string, unknown>) => split(s, GLOBAL_LAYER_FIELDS)[0];
  const order = [
    byDefault(printers, 'account'),
    layers(byDefault(globals, 'account')),
    byDefault(printers, 'global'),
    layers(byDefault(globals, 'global')),
  ];
  const out: Record<string, unknown> = { ...DEFAULT_SETTINGS.printer };
  for (const layer of [...order].reverse()) Object.assign(out, layer);
  return out;
}

/** One of the account's printer profiles a quality may slice with, with the values it resolves to. */
export interface PrinterChoice {
  id: string;
  name: string;
  settings: Record<string, unknown>;
}

/** The account's own printer profiles, each with the values its presets inherit when left empty. */
export function printerChoices(printers: Profile[], globals: Profile[]): PrinterChoice[] {
  return printers
    .filter((p) => p.scope === 'account')
    .map((p) => ({
      id: p.profile_id,
      name: p.name,
      settings: printerBaseline(
        printers.map((x) => (x.scope === 'account' ? { ...x, is_default: x.profile_id === p.profile_id } : x)),
        globals,
      ),
    }));
}

/** A material profile an offer may name. */
export interface MaterialChoice {
  name: string;
  own: boolean;
  colors: string[];
  /** Quotes need a price per kg or per gram, from the profile or the global one of its name. */
  priced: boolean;
}

/** The material profiles an offer may name: yours, then the global ones yours do not replace (same name). */
export function materialChoices(materials: Profile[]): MaterialChoice[] {
  const own = materials.filter((p) => p.scope === 'account');
  const taken = new Set(own.map((p) => p.name.toLowerCase()));
  const shipped = materials.filter((p) => p.scope === 'global' && !taken.has(p.name.toLowerCase()));
  const hasPrice = (s: Record<string, unknown> = {}) => s.price_per_kg !== undefined || s.price_per_gram !== undefined;
  const globalOf = (name: string) =>
    materials.find((p) => p.scope === 'global' && p.name.toLowerCase() === name.toLowerCase());
  return [...own, ...shipped].map((p) => ({
    name: p.name,
    own: p.scope === 'account',
    colors: colorsOf(p.settings),
    priced: hasPrice(p.settings) || hasPrice(globalOf(p.name)?.settings),
  }));
}

/** The colours a material profile offers: its list, else its one default colour (as the default offer takes them). */
function colorsOf(s: Record<string, unknown>): string[] {
  if (Array.isArray(s.colors)) return s.colors.filter((c): c is string => typeof c === 'string');
  return typeof s.color === 'string' ? [s.color] : [];
}

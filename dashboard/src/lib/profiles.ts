// Profile API calls and the quote request a profile stands for in the "try it" box.
import { get } from './api.ts';
import type { Profile, ProfileKind } from './types.ts';

export const KINDS: ProfileKind[] = ['printer', 'material', 'global'];
export const KIND_LABEL: Record<ProfileKind, string> = { printer: 'Printer', material: 'Material', global: 'Global settings' };

export async function listProfiles(kind: ProfileKind): Promise<Profile[]> {
  return (await get<{ data: Profile[] }>(`/v2/profiles/${kind}`)).data;
}

/** Every profile the account can see, by id: for naming the sources of resolved settings. */
export async function profileNames(): Promise<Map<string, Profile>> {
  const lists = await Promise.all(KINDS.map(listProfiles));
  return new Map(lists.flat().map((p) => [p.profile_id, p]));
}

const GLOBAL_LAYER_FIELDS = ['layer_height', 'min_layer_height', 'max_layer_height'];

function split(settings: Record<string, unknown>, keys: string[]) {
  const inKeys: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(settings)) (keys.includes(k) ? inKeys : rest)[k] = v;
  return [inKeys, rest] as const;
}

/**
 * The quote request that prices a file "with this profile". A material is chosen by name (spec 2.3
 * rule 1), so its values resolve from the profile itself. A printer or global profile applies by itself
 * only while it is the default, so otherwise its values travel as request values (power_watts is a
 * profile-only field and cannot; the default printer's applies).
 */
export function quoteRequestFor(profile: Profile): Record<string, unknown> {
  if (profile.kind === 'material') return { material_config: { filament_type: profile.name } };
  if (profile.is_default) return {};
  if (profile.kind === 'printer') {
    const [, printer] = split(profile.settings, ['power_watts']);
    return Object.keys(printer).length ? { printer_config: printer } : {};
  }
  const [layers, quote] = split(profile.settings, GLOBAL_LAYER_FIELDS);
  const body: Record<string, unknown> = {};
  if (Object.keys(quote).length) body.quote_config = quote;
  if (Object.keys(layers).length) body.printer_config = layers;
  return body;
}

// Slice profiles: validation of a profile's settings by kind, one default per kind, global profiles read-only.
import { validateConfigSection, type ConfigIssue } from '../../shared/settings.ts';
import type { Deps } from '../deps.ts';
import {
  insertProfile, updateProfile, deleteProfile, profileById, clearDefault, nameTaken, upsertGlobalProfile,
  type ProfileKind, type ProfileRow,
} from '../db/queries/profiles.ts';
import { ApiError, ValidationError, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { GLOBAL_PROFILES } from '../profiles/global-profiles.ts';

export const PROFILE_KINDS: ProfileKind[] = ['printer', 'material', 'global'];
/** Global settings may also carry the default layer heights (spec 2.3: "default layer heights"). */
const GLOBAL_LAYER_FIELDS = ['layer_height', 'min_layer_height', 'max_layer_height'];
const MATERIAL_EXTRAS = ['color', 'colors'];

export interface ProfileInput {
  name: string;
  is_default?: boolean;
  settings: Record<string, unknown>;
}

const renamed = (issues: ConfigIssue[]) => issues.map((i) => ({ field: i.field.replace(/^\w+_config\./, 'settings.'), message: i.message }));

function pick(obj: Record<string, unknown>, keys: string[], keep: boolean) {
  return Object.fromEntries(Object.entries(obj).filter(([k]) => keys.includes(k) === keep));
}

function colorIssues(settings: Record<string, unknown>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const valid = (c: unknown) => typeof c === 'string' && c.trim().length > 0 && c.length <= 40;
  if (settings.color !== undefined && !valid(settings.color)) issues.push({ field: 'settings.color', message: 'must be a colour name of 1 to 40 characters' });
  if (settings.colors !== undefined && !(Array.isArray(settings.colors) && settings.colors.length <= 50 && settings.colors.every(valid))) {
    issues.push({ field: 'settings.colors', message: 'must be a list of up to 50 colour names' });
  }
  return issues;
}

export function validateProfileSettings(kind: ProfileKind, name: string, settings: Record<string, unknown>): ConfigIssue[] {
  if (kind === 'printer') return renamed(validateConfigSection('printer_config', settings, { source: 'profile' }));
  if (kind === 'material') {
    const issues = [...renamed(validateConfigSection('material_config', pick(settings, MATERIAL_EXTRAS, false))), ...colorIssues(settings)];
    if (settings.filament_type !== undefined && settings.filament_type !== name) {
      issues.push({ field: 'settings.filament_type', message: 'must equal the profile name (materials are found by name)' });
    }
    return issues;
  }
  return [
    ...renamed(validateConfigSection('quote_config', pick(settings, GLOBAL_LAYER_FIELDS, false))),
    ...renamed(validateConfigSection('printer_config', pick(settings, GLOBAL_LAYER_FIELDS, true))),
  ];
}

function checkInput(kind: ProfileKind, input: ProfileInput) {
  const issues = validateProfileSettings(kind, input.name, input.settings);
  if (issues.length) throw new ValidationError(issues);
  return kind === 'material' ? { ...input.settings, filament_type: input.name } : input.settings;
}

async function ensureNameFree(deps: Deps, accountId: string, kind: ProfileKind, name: string, exceptId: string | null) {
  if (await nameTaken(deps.db, accountId, kind, name, exceptId)) {
    throw new ApiError(409, 'profile_name_taken', `You already have a ${kind} profile named "${name}".`, { field: 'name' });
  }
}

export async function createProfile(deps: Deps, accountId: string, kind: ProfileKind, input: ProfileInput): Promise<ProfileRow> {
  const settings = checkInput(kind, input);
  await ensureNameFree(deps, accountId, kind, input.name, null);
  return deps.db.transaction(async (tx) => {
    if (input.is_default) await clearDefault(tx, accountId, kind);
    const row = await insertProfile(tx, { id: newId('prof'), account_id: accountId, kind, name: input.name, is_default: !!input.is_default, settings });
    if (!row) throw new ApiError(409, 'profile_name_taken', `You already have a ${kind} profile named "${input.name}".`, { field: 'name' });
    return row;
  });
}

async function ownProfile(deps: Deps, accountId: string, kind: ProfileKind, id: string) {
  const row = await profileById(deps.db, accountId, kind, id);
  if (!row) throw notFound(`${kind} profile`, id);
  if (row.account_id === null) throw new ApiError(403, 'profile_read_only', 'Global profiles ship with the product and are read-only; create your own profile to override them.');
  return row;
}

export async function replaceProfile(deps: Deps, accountId: string, kind: ProfileKind, id: string, input: ProfileInput): Promise<ProfileRow> {
  await ownProfile(deps, accountId, kind, id);
  const settings = checkInput(kind, input);
  await ensureNameFree(deps, accountId, kind, input.name, id);
  return deps.db.transaction(async (tx) => {
    if (input.is_default) await clearDefault(tx, accountId, kind);
    return (await updateProfile(tx, accountId, id, { name: input.name, is_default: !!input.is_default, settings }))!;
  });
}

export async function removeProfile(deps: Deps, accountId: string, kind: ProfileKind, id: string) {
  await ownProfile(deps, accountId, kind, id);
  await deleteProfile(deps.db, accountId, kind, id);
}

export function presentProfile(row: ProfileRow) {
  return {
    profile_id: row.id,
    kind: row.kind,
    name: row.name,
    scope: row.account_id ? 'account' : 'global',
    is_default: row.is_default,
    settings: row.settings,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export async function seedGlobalProfiles(deps: Pick<Deps, 'db'>) {
  for (const p of GLOBAL_PROFILES) await upsertGlobalProfile(deps.db, p);
}

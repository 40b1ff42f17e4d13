// Slice profiles: validation of a profile's settings by kind, one default per kind, global profiles read-only.
import { canonicalProfileSettings, validateProfileSettings } from '../../shared/profiles.ts';
import type { Deps } from '../deps.ts';
import { ApiError, notFound, ValidationError } from '../http/index.ts';
import { newId } from '../ids.ts';
import type { ContractSchema } from '../openapi/index.ts';
import { GLOBAL_PROFILES } from './global-profiles.ts';
import {
  clearDefault,
  deleteProfile,
  insertProfile,
  nameTaken,
  type ProfileKind,
  type ProfileRow,
  profileById,
  qualityUsingProfile,
  updateProfile,
  upsertGlobalProfile,
} from './sql.ts';

export const PROFILE_KINDS: ProfileKind[] = ['printer', 'material', 'global'];
export interface ProfileInput {
  name: string;
  is_default?: boolean;
  settings: Record<string, unknown>;
}

function checkInput(kind: ProfileKind, input: ProfileInput) {
  const issues = validateProfileSettings(kind, input.name, input.settings);
  if (issues.length) throw new ValidationError(issues);
  const settings = canonicalProfileSettings(kind, input.settings);
  return kind === 'material' ? { ...settings, filament_type: input.name } : settings;
}

async function ensureNameFree(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  kind: ProfileKind,
  name: string,
  exceptId: string | null,
) {
  if (await nameTaken(deps.db, accountId, kind, name, exceptId)) {
    throw new ApiError(409, 'profile_name_taken', `You already have a ${kind} profile named "${name}".`, {
      field: 'name',
    });
  }
}

export async function createProfile(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  kind: ProfileKind,
  input: ProfileInput,
): Promise<ProfileRow> {
  const settings = checkInput(kind, input);
  await ensureNameFree(deps, accountId, kind, input.name, null);
  return deps.db.transaction(async (tx) => {
    if (input.is_default) await clearDefault(tx, accountId, kind);
    const row = await insertProfile(tx, {
      id: newId('prof'),
      account_id: accountId,
      kind,
      name: input.name,
      is_default: !!input.is_default,
      settings,
    });
    if (!row)
      throw new ApiError(409, 'profile_name_taken', `You already have a ${kind} profile named "${input.name}".`, {
        field: 'name',
      });
    return row;
  });
}

async function ownProfile(deps: Pick<Deps, 'db'>, accountId: string, kind: ProfileKind, id: string) {
  const row = await profileById(deps.db, accountId, kind, id);
  if (!row) throw notFound(`${kind} profile`, id);
  if (row.account_id === null)
    throw new ApiError(
      403,
      'profile_read_only',
      'Global profiles ship with the product and are read-only; create your own profile to override them.',
    );
  return row;
}

export async function replaceProfile(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  kind: ProfileKind,
  id: string,
  input: ProfileInput,
): Promise<ProfileRow> {
  await ownProfile(deps, accountId, kind, id);
  const settings = checkInput(kind, input);
  await ensureNameFree(deps, accountId, kind, input.name, id);
  return deps.db.transaction(async (tx) => {
    if (input.is_default) await clearDefault(tx, accountId, kind);
    return (await updateProfile(tx, accountId, id, { name: input.name, is_default: !!input.is_default, settings }))!;
  });
}

export async function removeProfile(deps: Pick<Deps, 'db'>, accountId: string, kind: ProfileKind, id: string) {
  await ownProfile(deps, accountId, kind, id);
  const quality = kind === 'printer' ? await qualityUsingProfile(deps.db, accountId, id) : null;
  if (quality !== null)
    throw new ApiError(
      409,
      'profile_in_use',
      `Your offer's quality "${quality}" slices with this printer profile: remove it from the offer first.`,
      { field: 'profile_id' },
    );
  await deleteProfile(deps.db, accountId, kind, id);
}

export function presentProfile(row: ProfileRow): ContractSchema<'Profile'> {
  return {
    profile_id: row.id,
    kind: row.kind,
    name: row.name,
    scope: row.account_id ? 'account' : 'global',
    is_default: row.is_default,
    settings: row.settings,
    ...(row.slicer_options ? { slicer_options: row.slicer_options, slicer_sources: row.slicer_sources ?? {} } : {}),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export async function seedGlobalProfiles(deps: Pick<Deps, 'db'>) {
  for (const p of GLOBAL_PROFILES) await upsertGlobalProfile(deps.db, p);
}

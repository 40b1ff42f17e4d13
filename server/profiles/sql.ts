import type { Queryable } from '../db/index.ts';

export type ProfileKind = 'printer' | 'material' | 'global';

export interface ProfileRow {
  id: string;
  account_id: string | null;
  kind: ProfileKind;
  name: string;
  is_default: boolean;
  settings: Record<string, unknown>;
  /** Imported PrusaSlicer options (allowlisted), by option name; null for a profile made of settings alone. */
  slicer_options?: Record<string, string> | null;
  /** The preset each imported option came from. */
  slicer_sources?: Record<string, string> | null;
  /** The PrusaSlicer printer and print presets an imported printer profile was made of; null otherwise. */
  printer_preset?: string | null;
  print_preset?: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function upsertGlobalProfile(
  db: Queryable,
  p: Pick<ProfileRow, 'id' | 'kind' | 'name' | 'is_default' | 'settings'>,
) {
  await db.query(
    `INSERT INTO profiles (id, account_id, kind, name, is_default, settings) VALUES ($1, NULL, $2, $3, $4, $5)
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, is_default = EXCLUDED.is_default, settings = EXCLUDED.settings, updated_at = now()`,
    [p.id, p.kind, p.name, p.is_default, JSON.stringify(p.settings)],
  );
}

/** The account's own profiles of a kind, then the global ones. */
export async function listProfiles(db: Queryable, accountId: string, kind: ProfileKind): Promise<ProfileRow[]> {
  return db.query<ProfileRow>(
    `SELECT * FROM profiles WHERE kind = $2 AND (account_id = $1 OR account_id IS NULL)
     ORDER BY account_id IS NULL, is_default DESC, lower(name), id`,
    [accountId, kind],
  );
}

/** Own or global profile by id; another account's profile is not found. */
export async function profileById(
  db: Queryable,
  accountId: string,
  kind: ProfileKind,
  id: string,
): Promise<ProfileRow | undefined> {
  const [row] = await db.query<ProfileRow>(
    'SELECT * FROM profiles WHERE id = $1 AND kind = $2 AND (account_id = $3 OR account_id IS NULL)',
    [id, kind, accountId],
  );
  return row;
}

type ImportedColumns = 'slicer_options' | 'slicer_sources' | 'printer_preset' | 'print_preset';

export async function insertProfile(
  db: Queryable,
  p: Omit<ProfileRow, 'created_at' | 'updated_at' | ImportedColumns> & Partial<Pick<ProfileRow, ImportedColumns>>,
): Promise<ProfileRow | undefined> {
  const [row] = await db.query<ProfileRow>(
    `INSERT INTO profiles (id, account_id, kind, name, is_default, settings, slicer_options, slicer_sources,
       printer_preset, print_preset)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING *`,
    [
      p.id,
      p.account_id,
      p.kind,
      p.name,
      p.is_default,
      JSON.stringify(p.settings),
      p.slicer_options ? JSON.stringify(p.slicer_options) : null,
      p.slicer_sources ? JSON.stringify(p.slicer_sources) : null,
      p.printer_preset ?? null,
      p.print_preset ?? null,
    ],
  );
  return row;
}

export async function updateProfile(
  db: Queryable,
  accountId: string,
  id: string,
  p: Pick<ProfileRow, 'name' | 'is_default' | 'settings'>,
) {
  const [row] = await db.query<ProfileRow>(
    `UPDATE profiles SET name = $3, is_default = $4, settings = $5, updated_at = now() WHERE id = $1 AND account_id = $2 RETURNING *`,
    [id, accountId, p.name, p.is_default, JSON.stringify(p.settings)],
  );
  return row;
}

export async function nameTaken(
  db: Queryable,
  accountId: string,
  kind: ProfileKind,
  name: string,
  exceptId: string | null,
) {
  const rows = await db.query(
    "SELECT 1 FROM profiles WHERE account_id = $1 AND kind = $2 AND lower(name) = lower($3) AND id <> coalesce($4, '')",
    [accountId, kind, name, exceptId],
  );
  return rows.length > 0;
}

/** Clears the account's default of a kind, so a new default can be set in the same transaction. */
export async function clearDefault(db: Queryable, accountId: string, kind: ProfileKind) {
  await db.query('UPDATE profiles SET is_default = false WHERE account_id = $1 AND kind = $2 AND is_default', [
    accountId,
    kind,
  ]);
}

export async function deleteProfile(db: Queryable, accountId: string, kind: ProfileKind, id: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM profiles WHERE id = $1 AND kind = $2 AND account_id = $3 RETURNING id', [
    id,
    kind,
    accountId,
  ]);
  return rows.length === 1;
}

/**
 * Everything resolution needs in one round trip: the account's defaults, the global ones, materials by name, and
 * the own printer profile a quality slices with (`printerProfileId`), when it names one.
 */
export async function profilesForResolution(
  db: Queryable,
  accountId: string,
  filamentType: string | null,
  printerProfileId: string | null = null,
): Promise<ProfileRow[]> {
  return db.query<ProfileRow>(
    `SELECT * FROM profiles WHERE (account_id = $1 OR account_id IS NULL)
       AND (is_default OR (kind = 'material' AND lower(name) = lower(coalesce($2, '')))
            OR (kind = 'printer' AND account_id = $1 AND id = $3))`,
    [accountId, filamentType, printerProfileId],
  );
}

/**
 * The label of a quality, in the account's offer or one of its widget keys' offers, that slices with this printer
 * profile; null when none does.
 */
export async function qualityUsingProfile(db: Queryable, accountId: string, profileId: string) {
  const [row] = await db.query<{ label: string }>(
    `SELECT q->>'label' AS label FROM (
       SELECT offer FROM accounts WHERE id = $1
       UNION ALL SELECT offer FROM widget_keys WHERE account_id = $1 AND revoked_at IS NULL
     ) o, json_array_elements(o.offer->'qualities') q
     WHERE q->>'printer_profile' = $2 LIMIT 1`,
    [accountId, profileId],
  );
  return row?.label ?? null;
}

export async function materialNames(db: Queryable, accountId: string): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT DISTINCT name FROM profiles WHERE kind = 'material' AND (account_id = $1 OR account_id IS NULL) ORDER BY name`,
    [accountId],
  );
  return rows.map((r) => r.name);
}

/** An own profile by name (any case), for an import that replaces what an earlier import of the same preset made. */
export async function ownProfileByName(
  db: Queryable,
  accountId: string,
  kind: ProfileKind,
  name: string,
): Promise<ProfileRow | undefined> {
  const [row] = await db.query<ProfileRow>(
    'SELECT * FROM profiles WHERE account_id = $1 AND kind = $2 AND lower(name) = lower($3)',
    [accountId, kind, name],
  );
  return row;
}

/** Replaces an own profile's settings and imported options (an import of a preset it already has). */
export async function updateImported(
  db: Queryable,
  accountId: string,
  id: string,
  p: {
    settings: Record<string, unknown>;
    slicer_options: Record<string, string>;
    slicer_sources: Record<string, string>;
    printer_preset: string | null;
    print_preset: string | null;
    is_default?: boolean;
  },
): Promise<ProfileRow> {
  const [row] = await db.query<ProfileRow>(
    `UPDATE profiles SET settings = $3, slicer_options = $4, slicer_sources = $5,
       is_default = coalesce($6, is_default), printer_preset = $7, print_preset = $8, updated_at = now()
     WHERE id = $1 AND account_id = $2 RETURNING *`,
    [
      id,
      accountId,
      JSON.stringify(p.settings),
      JSON.stringify(p.slicer_options),
      JSON.stringify(p.slicer_sources),
      p.is_default ?? null,
      p.printer_preset,
      p.print_preset,
    ],
  );
  return row!;
}

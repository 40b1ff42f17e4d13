import type { Queryable } from '../db/index.ts';
import { firstRow } from '../db/index.ts';

export interface TokenRow {
  id: string;
  account_id: string;
  name: string;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export async function insertToken(
  db: Queryable,
  t: { id: string; account_id: string; name: string; expires_at: Date | null },
) {
  const rows = await db.query<TokenRow>(
    'INSERT INTO api_tokens (id, account_id, name, expires_at) VALUES ($1, $2, $3, $4) RETURNING *',
    [t.id, t.account_id, t.name, t.expires_at],
  );
  return firstRow(rows);
}

export async function tokenById(db: Queryable, id: string): Promise<TokenRow | undefined> {
  const [row] = await db.query<TokenRow>('SELECT * FROM api_tokens WHERE id = $1', [id]);
  return row;
}

export async function listTokens(db: Queryable, accountId: string): Promise<TokenRow[]> {
  return db.query<TokenRow>(
    'SELECT * FROM api_tokens WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC',
    [accountId],
  );
}

export async function revokeToken(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const rows = await db.query(
    'UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING id',
    [id, accountId],
  );
  return rows.length === 1;
}

/** Records use without a write on every request: at most one update per token every 10 seconds. */
export async function touchToken(db: Queryable, id: string): Promise<void> {
  await db.query(
    `UPDATE api_tokens SET last_used_at = now()
     WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '10 seconds')`,
    [id],
  );
}

import type { Queryable } from '../db/index.ts';

export interface SessionRow {
  id_hash: string;
  account_id: string;
  csrf_token: string;
  expires_at: Date;
}

export async function insertSession(db: Queryable, s: SessionRow): Promise<void> {
  await db.query('INSERT INTO sessions (id_hash, account_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4)', [
    s.id_hash,
    s.account_id,
    s.csrf_token,
    s.expires_at,
  ]);
}

export async function liveSession(db: Queryable, idHash: string, now: Date): Promise<SessionRow | undefined> {
  const [row] = await db.query<SessionRow>('SELECT * FROM sessions WHERE id_hash = $1 AND expires_at > $2', [
    idHash,
    now,
  ]);
  return row;
}

export async function deleteSession(db: Queryable, idHash: string): Promise<void> {
  await db.query('DELETE FROM sessions WHERE id_hash = $1', [idHash]);
}

import type { Queryable } from '../db/index.ts';
import { firstRow } from '../db/index.ts';

export interface UploadIdRow {
  id: string;
  account_id: string;
  token_id: string | null;
  widget_key_id: string | null;
  shopper_hash: string | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  file_id: string | null;
}

export async function insertUploadId(
  db: Queryable,
  u: {
    id: string;
    account_id: string;
    token_id: string | null;
    widget_key_id: string | null;
    shopper_hash: string | null;
    expires_at: Date;
  },
): Promise<UploadIdRow> {
  const rows = await db.query<UploadIdRow>(
    `INSERT INTO upload_ids (id, account_id, token_id, widget_key_id, shopper_hash, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [u.id, u.account_id, u.token_id, u.widget_key_id, u.shopper_hash, u.expires_at],
  );
  return firstRow(rows);
}

export async function uploadIdById(
  db: Queryable,
  id: string,
  now: Date,
): Promise<(UploadIdRow & { expired: boolean }) | undefined> {
  const [row] = await db.query<UploadIdRow & { expired: boolean }>(
    'SELECT *, expires_at <= $2 AS expired FROM upload_ids WHERE id = $1',
    [id, now],
  );
  return row;
}

/**
 * Marks the id used: 'used' when another request used it first (single use under concurrency), 'expired' when its
 * time ran out while this upload was received and read.
 */
export async function consumeUploadId(
  db: Queryable,
  id: string,
  fileId: string,
  now: Date,
): Promise<'consumed' | 'used' | 'expired'> {
  // The expiry never changes, so the statement's snapshot tells it truly; whether another request used the id
  // first may be newer than the snapshot, so it is what is left when the id was neither consumed nor expired.
  const [row] = await db.query<{ consumed: boolean; expired: boolean }>(
    `WITH consumed AS (
       UPDATE upload_ids SET used_at = $3, file_id = $2
       WHERE id = $1 AND used_at IS NULL AND expires_at > $3 RETURNING id)
     SELECT EXISTS (SELECT 1 FROM consumed) AS consumed, expires_at <= $3 AS expired FROM upload_ids WHERE id = $1`,
    [id, fileId, now],
  );
  if (row?.consumed) return 'consumed';
  return !row || row.expired ? 'expired' : 'used';
}

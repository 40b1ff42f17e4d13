import type { Offer } from '../../shared/offer.ts';
import type { Queryable } from '../db/index.ts';
import { firstRow } from '../db/index.ts';

export interface WidgetKeyRow {
  id: string;
  account_id: string;
  name: string;
  key: string;
  allowed_origins: string[];
  offer: Offer | null;
  created_at: Date;
  revoked_at: Date | null;
}

export async function insertWidgetKey(
  db: Queryable,
  k: Omit<WidgetKeyRow, 'created_at' | 'revoked_at' | 'offer'>,
): Promise<WidgetKeyRow> {
  const rows = await db.query<WidgetKeyRow>(
    'INSERT INTO widget_keys (id, account_id, name, key, allowed_origins) VALUES ($1, $2, $3, $4, $5) RETURNING *',
    [k.id, k.account_id, k.name, k.key, JSON.stringify(k.allowed_origins)],
  );
  return firstRow(rows);
}

export async function listWidgetKeys(db: Queryable, accountId: string): Promise<WidgetKeyRow[]> {
  return db.query<WidgetKeyRow>(
    'SELECT * FROM widget_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC',
    [accountId],
  );
}

export async function liveWidgetKey(db: Queryable, key: string): Promise<WidgetKeyRow | undefined> {
  const [row] = await db.query<WidgetKeyRow>('SELECT * FROM widget_keys WHERE key = $1 AND revoked_at IS NULL', [key]);
  return row;
}

export async function revokeWidgetKey(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const rows = await db.query(
    'UPDATE widget_keys SET revoked_at = now() WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING id',
    [id, accountId],
  );
  return rows.length === 1;
}

/** Was this file uploaded through an upload id of this widget key, by this shopper? */
export async function fileUploadedByShopper(
  db: Queryable,
  fileId: string,
  widgetKeyId: string,
  shopperHash: string,
): Promise<boolean> {
  const rows = await db.query(
    'SELECT 1 FROM files f JOIN upload_ids u ON u.id = f.upload_id WHERE f.id = $1 AND u.widget_key_id = $2 AND u.shopper_hash = $3',
    [fileId, widgetKeyId, shopperHash],
  );
  return rows.length === 1;
}

/** A live widget key of this account by id. */
export async function widgetKeyById(db: Queryable, accountId: string, id: string): Promise<WidgetKeyRow | undefined> {
  const [row] = await db.query<WidgetKeyRow>(
    'SELECT * FROM widget_keys WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL',
    [id, accountId],
  );
  return row;
}

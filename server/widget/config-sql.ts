// The fingerprint of what GET /v2/widget/config is built from (config.ts): the account's offer, the widget key's
// offer and the profiles the account sees (its own and the global ones). Each profile counts by its id and its row
// version (xmin, which PostgreSQL gives a row anew at every insert and update, made by the service or by an
// operator's SQL), so a changed, added or removed profile changes the fingerprint; the offers count by their text.
// Each part is hashed apart, so no two different states can read as one.
import type { Queryable } from '../db/index.ts';

export async function configFingerprint(db: Queryable, accountId: string, widgetKeyId: string | null): Promise<string> {
  const [row] = await db.query<{ fingerprint: string }>(
    `SELECT concat(
       coalesce((SELECT md5(offer::text) FROM accounts WHERE id = $1), '-'), ':',
       coalesce((SELECT md5(offer::text) FROM widget_keys WHERE id = $2 AND account_id = $1 AND revoked_at IS NULL), '-'), ':',
       coalesce((SELECT md5(string_agg(id || '@' || xmin::text, ',' ORDER BY id)) FROM profiles
                 WHERE account_id = $1 OR account_id IS NULL), '-')
     ) AS fingerprint`,
    [accountId, widgetKeyId],
  );
  return row!.fingerprint;
}

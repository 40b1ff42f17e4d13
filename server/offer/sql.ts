// Offers are stored whole as JSON: on the account, and optionally on a widget key (NULL: not set).
import type { Offer } from '../../shared/offer.ts';
import type { Queryable } from '../db/index.ts';

export async function accountOffer(db: Queryable, accountId: string): Promise<Offer | null> {
  const [row] = await db.query<{ offer: Offer | null }>('SELECT offer FROM accounts WHERE id = $1', [accountId]);
  return row?.offer ?? null;
}

export async function setAccountOffer(db: Queryable, accountId: string, offer: Offer | null): Promise<void> {
  await db.query('UPDATE accounts SET offer = $2 WHERE id = $1', [
    accountId,
    offer === null ? null : JSON.stringify(offer),
  ]);
}

/** The widget key's own offer; null when it has none (or is not a live key of this account). */
export async function widgetKeyOffer(db: Queryable, accountId: string, widgetKeyId: string): Promise<Offer | null> {
  const [row] = await db.query<{ offer: Offer | null }>(
    'SELECT offer FROM widget_keys WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL',
    [widgetKeyId, accountId],
  );
  return row?.offer ?? null;
}

/** false when the key is not a live key of this account. */
export async function setWidgetKeyOffer(
  db: Queryable,
  accountId: string,
  widgetKeyId: string,
  offer: Offer | null,
): Promise<boolean> {
  const rows = await db.query(
    'UPDATE widget_keys SET offer = $3 WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING id',
    [widgetKeyId, accountId, offer === null ? null : JSON.stringify(offer)],
  );
  return rows.length === 1;
}

/**
 * The fingerprint of what a caller's offer is made from (effective.ts) and of what the widget's configuration is
 * built from (server/widget/config.ts): the account's offer, the widget key's offer and the profiles the account sees
 * (its own and the global ones). A profile counts by its id and its row version (xmin, which PostgreSQL gives a row
 * anew at every insert and update, made by the service or by an operator's SQL), so a changed, added or removed
 * profile changes the fingerprint; the offers count by their text. Each part is hashed apart, so no two different
 * states read as one.
 */
export async function offerInputsFingerprint(
  db: Queryable,
  accountId: string,
  widgetKeyId: string | null,
): Promise<string> {
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

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

// What the first-run checklist reads (docs/dashboard.md, "First-run checklist"): counts only, in one query.
import type { Queryable } from '../db/index.ts';

export interface SetupCounts {
  widget_keys: number;
  key_offers: number;
  account_offer: boolean;
  own_profiles: number;
  orders: number;
  acknowledged: number;
}

export async function setupCounts(db: Queryable, accountId: string): Promise<SetupCounts> {
  const [row] = await db.query<SetupCounts>(
    `SELECT
       (SELECT count(*)::int FROM widget_keys WHERE account_id = $1 AND revoked_at IS NULL) AS widget_keys,
       (SELECT count(*)::int FROM widget_keys WHERE account_id = $1 AND revoked_at IS NULL AND offer IS NOT NULL)
         AS key_offers,
       (SELECT offer IS NOT NULL FROM accounts WHERE id = $1) AS account_offer,
       (SELECT count(*)::int FROM profiles WHERE account_id = $1 AND kind IN ('material', 'global')) AS own_profiles,
       (SELECT count(*)::int FROM cart_lines WHERE account_id = $1) AS orders,
       (SELECT count(*)::int FROM cart_lines WHERE account_id = $1 AND acknowledged_at IS NOT NULL) AS acknowledged`,
    [accountId],
  );
  return row!;
}

/** The materials of the widget keys' own offers (live keys): their shoppers pick from those. */
export async function keyOfferMaterials(db: Queryable, accountId: string): Promise<string[]> {
  const rows = await db.query<{ offer: { materials: { material: string }[] } }>(
    'SELECT offer FROM widget_keys WHERE account_id = $1 AND revoked_at IS NULL AND offer IS NOT NULL ORDER BY created_at',
    [accountId],
  );
  return rows.flatMap((r) => r.offer.materials.map((m) => m.material));
}

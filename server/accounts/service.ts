import type { Deps } from '../deps.ts';
import type { AccountRow } from './sql.ts';
import type { Queryable } from '../db/index.ts';
import { firstRow } from '../db/rows.ts';
import { quotesUsed } from '../limits/counters-sql.ts';
import { monthPeriod } from '../limits/period.ts';

/** Successful quotes this calendar month (UTC). */
export async function quotesUsedThisMonth(db: Queryable, accountId: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `SELECT coalesce(sum(quotes), 0)::int AS n FROM usage_counters
     WHERE account_id = $1 AND period = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM')`,
    [accountId],
  );
  return firstRow(rows).n;
}

export async function presentUser(deps: Deps, account: AccountRow) {
  const plan = deps.plans[account.plan] ?? deps.plans.free;
  return {
    user_id: account.id,
    email: account.email,
    plan: account.plan,
    // Same clock and period as the quota check (deps.now, UTC month), so /v2/user and /v2/quota agree.
    quotes_used: await quotesUsed(deps.db, account.id, monthPeriod(deps.now()).name),
    quotes_limit: plan.monthly_quotes,
    created_at: account.created_at.toISOString(),
  };
}

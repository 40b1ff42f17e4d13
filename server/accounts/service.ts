import type { Deps } from '../deps.ts';
import type { AccountRow } from './sql.ts';
import { quotesUsed } from '../usage/sql.ts';
import { monthPeriod } from '../limits/period.ts';

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

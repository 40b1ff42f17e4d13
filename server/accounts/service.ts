import type { Deps } from '../deps.ts';
import type { ContractSchema } from '../openapi/index.ts';
import type { AccountRow } from './sql.ts';

export async function presentUser(
  deps: Pick<Deps, 'plans' | 'limits'>,
  account: AccountRow,
): Promise<ContractSchema<'User'>> {
  const plan = deps.plans[account.plan] ?? deps.plans.free;
  return {
    user_id: account.id,
    email: account.email,
    plan: account.plan,
    // Counted by limits/ with the quota check's clock and period, so /v2/user and /v2/quota agree.
    quotes_used: await deps.limits.quotesUsed(account.id),
    quotes_limit: plan.monthly_quotes,
    created_at: account.created_at.toISOString(),
  };
}

// Monthly allowances (placeholder until limits land): quotes are counted now; enforcement comes later.
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import type { AccountRow } from '../db/queries/accounts.ts';

/** Throws 429 quota_exceeded when the account has no quotes left this month. */
export async function checkQuoteQuota(_deps: Deps, _account: AccountRow): Promise<void> {}

/** Counts one successful quote in the transaction that records it. */
export async function countQuote(tx: Queryable, _deps: Deps, accountId: string): Promise<void> {
  await tx.query(
    `INSERT INTO usage_counters (account_id, period, quotes) VALUES ($1, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM'), 1)
     ON CONFLICT (account_id, period) DO UPDATE SET quotes = usage_counters.quotes + 1`,
    [accountId],
  );
}

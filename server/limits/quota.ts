// Monthly quote allowance and the storage allowance of the account's plan.
//
// Quotes: checkQuoteQuota refuses a new quote once the month's count reached the plan's monthly_quotes;
// countQuote counts a completed quote in the transaction that completes it. Quotes already running when
// the last one of the month was used may still complete and be counted (the count can exceed the limit by
// the number of quotes in flight): a quote is never thrown away after its slice was paid for.
// Storage: the bytes the account's files keep stored, each original and the canonical mesh parsed from it. An
// upload that would go beyond the allowance is refused before its mesh is written (storageAllowanceRoom bounds
// what the parse may write), then exactly (re-checked under the alert lock in the transaction that records the
// file); deleting a file frees its bytes at once.

import type { AccountRow, Plan } from '../accounts/index.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { ApiError } from '../http/index.ts';
import type { StorageRoom } from '../storage/index.ts';
import { lockedUsage, settleAlerts } from './alerts.ts';
import {
  accountPlanId,
  alertState,
  incrementQuotes,
  quotesUsed,
  staleQuoteAlerts,
  storageUsed,
} from './counters-sql.ts';
import { monthPeriod, type Period, secondsUntil } from './period.ts';

type QuotaPorts = Pick<Deps, 'db' | 'plans' | 'now' | 'events'>;

export function planFor(deps: Pick<Deps, 'plans'>, planId: string | undefined): Plan {
  return (planId && deps.plans[planId]) || deps.plans.free;
}

// An exhausted allowance answers 402, never 429: 429 tells a client to back off and retry, and no retry
// succeeds before the month ends (quotes) or before files are deleted (storage). So no Retry-After either
// (docs/limits.md).

function quoteAllowanceExhausted(used: number, limit: number, period: Period): ApiError {
  const resetsAt = period.end.toISOString();
  return new ApiError(
    402,
    'quote_allowance_exhausted',
    `The monthly allowance of ${limit} quotes is used up; it resets at ${resetsAt}.`,
    { used, limit, period: period.name, resets_at: resetsAt },
  );
}

/**
 * `usedBytes` is what is stored without this upload, `neededBytes` what the upload would store (its declared length
 * when refused before the body is read); the details say how much to delete to make it fit.
 */
function storageQuotaExceeded(usedBytes: number, limitBytes: number, neededBytes: number): ApiError {
  const freeAtLeast = Math.max(0, usedBytes + neededBytes - limitBytes);
  return new ApiError(
    402,
    'storage_quota_exceeded',
    `This upload needs ${neededBytes} bytes of storage and does not fit the storage allowance of ${limitBytes} bytes (${usedBytes} used): ` +
      `delete files of at least ${freeAtLeast} bytes to make room.`,
    { used_bytes: usedBytes, limit_bytes: limitBytes, needed_bytes: neededBytes, free_at_least_bytes: freeAtLeast },
  );
}

/** Throws 402 quote_allowance_exhausted when the account has no quotes left this month. Call outside a transaction (it may open one). */
export async function checkQuoteQuota(deps: QuotaPorts, account: AccountRow): Promise<void> {
  const now = deps.now();
  const period = monthPeriod(now);
  await settleNewPeriod(deps, account.id, period);
  const limit = planFor(deps, account.plan).monthly_quotes;
  const used = await quotesUsed(deps.db, account.id, period.name);
  if (used >= limit) throw quoteAllowanceExhausted(used, limit, period);
}

/**
 * Counts one successful quote in the transaction that records it, and writes the usage.alert it owes.
 * The caller already wakes the event pump after that transaction commits.
 */
export async function countQuote(
  tx: Queryable,
  deps: Pick<Deps, 'plans' | 'now'>,
  accountId: string,
  tokenId: string | null = null,
): Promise<void> {
  const period = monthPeriod(deps.now());
  const used = await incrementQuotes(tx, accountId, period.name);
  const limit = planFor(deps, await accountPlanId(tx, accountId)).monthly_quotes;
  const { stored } = await lockedUsage(tx, accountId, 'quotes', async () => used);
  await settleAlerts(tx, stored, {
    accountId,
    tokenId,
    resource: 'quotes',
    used,
    limit,
    period: period.name,
    at: deps.now(),
  });
}

/**
 * A new month started while the quotes alert was raised: owe the level-0 alert now. Cheap when nothing is
 * owed (one indexed read); the conditional work runs under the alert lock, so only one request fires it.
 */
export async function settleNewPeriod(deps: QuotaPorts, accountId: string, period: Period): Promise<void> {
  const state = await alertState(deps.db, accountId, 'quotes');
  if (!state || state.level === 0 || state.period === period.name) return;
  const fired = await deps.db.transaction(async (tx) => {
    const limit = planFor(deps, await accountPlanId(tx, accountId)).monthly_quotes;
    const { stored, used } = await lockedUsage(tx, accountId, 'quotes', () => quotesUsed(tx, accountId, period.name));
    return settleAlerts(tx, stored, {
      accountId,
      tokenId: null,
      resource: 'quotes',
      used,
      limit,
      period: period.name,
      at: deps.now(),
    });
  });
  if (fired) deps.events.wake();
}

/** A cheap early refusal before an upload is parsed; recordStorageChange makes the exact decision. */
export async function checkStorageQuota(deps: QuotaPorts, accountId: string, addBytes: number): Promise<void> {
  const room = await storageAllowanceRoom(deps, accountId);
  if (addBytes > room.left) throw room.refuse(addBytes);
}

/** What is left of the account's storage allowance for one upload, before it is parsed. */
export async function storageAllowanceRoom(deps: QuotaPorts, accountId: string): Promise<StorageRoom> {
  const limit = planFor(deps, await accountPlanId(deps.db, accountId)).storage_bytes;
  const used = await storageUsed(deps.db, accountId);
  return { used, left: limit - used, refuse: (needed) => storageQuotaExceeded(used, limit, needed) };
}

/**
 * Call in the transaction that inserted or deleted a file, after the change. Measures stored bytes under
 * the alert lock; with enforce (uploads) a total beyond the allowance throws 402 and so rolls the insert
 * back. Writes the owed usage.alert; the caller wakes the event pump after commit.
 */
export async function recordStorageChange(
  tx: Queryable,
  deps: Pick<Deps, 'plans' | 'now'>,
  change: { accountId: string; tokenId: string | null; enforce: boolean; addedBytes?: number },
): Promise<void> {
  const limit = planFor(deps, await accountPlanId(tx, change.accountId)).storage_bytes;
  const { stored, used } = await lockedUsage(tx, change.accountId, 'storage', () => storageUsed(tx, change.accountId));
  if (change.enforce && used > limit) {
    const added = change.addedBytes ?? 0;
    throw storageQuotaExceeded(used - added, limit, added);
  }
  await settleAlerts(tx, stored, {
    accountId: change.accountId,
    tokenId: change.tokenId,
    resource: 'storage',
    used,
    limit,
    period: null,
    at: deps.now(),
  });
}

export interface QuotaStatus {
  plan: string;
  period: string;
  period_start: string;
  resets_at: string;
  resets_in_seconds: number;
  quotes: { used: number; limit: number; remaining: number; percent: number; alert_level: number };
  storage: { used: number; limit: number; remaining: number; percent: number; alert_level: number };
}

const percent = (used: number, limit: number) => Math.round((used / limit) * 10_000) / 100;

export async function quotaStatus(deps: QuotaPorts, account: AccountRow): Promise<QuotaStatus> {
  const now = deps.now();
  const period = monthPeriod(now);
  await settleNewPeriod(deps, account.id, period);
  const plan = planFor(deps, account.plan);
  const [quotesCount, bytes, quotesAlert, storageAlert] = await Promise.all([
    quotesUsed(deps.db, account.id, period.name),
    storageUsed(deps.db, account.id),
    alertState(deps.db, account.id, 'quotes'),
    alertState(deps.db, account.id, 'storage'),
  ]);
  return {
    plan: plan.id,
    period: period.name,
    period_start: period.start.toISOString(),
    resets_at: period.end.toISOString(),
    resets_in_seconds: secondsUntil(period.end, now),
    quotes: {
      used: quotesCount,
      limit: plan.monthly_quotes,
      remaining: Math.max(0, plan.monthly_quotes - quotesCount),
      percent: percent(quotesCount, plan.monthly_quotes),
      alert_level: quotesAlert?.period === period.name ? quotesAlert.level : 0,
    },
    storage: {
      used: bytes,
      limit: plan.storage_bytes,
      remaining: Math.max(0, plan.storage_bytes - bytes),
      percent: percent(bytes, plan.storage_bytes),
      alert_level: storageAlert?.level ?? 0,
    },
  };
}

/** Fires the level-0 quotes alerts owed because a new month started, for every account (run periodically). */
export async function settleNewPeriodForAll(deps: QuotaPorts): Promise<void> {
  const period = monthPeriod(deps.now());
  const BATCH = 500;
  for (;;) {
    const accounts = await staleQuoteAlerts(deps.db, period.name, BATCH);
    // Each settled account leaves the list (its stored period becomes this month), so the loop ends.
    for (const id of accounts) await settleNewPeriod(deps, id, period);
    if (accounts.length < BATCH) return;
  }
}

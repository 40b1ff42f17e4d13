// usage.alert: fired when quote or storage usage enters the 80 % or 100 % band, and with level 0 when it
// falls back below 80 % (after deletes, or because a new month started). The level last alerted is stored
// per (account, resource) and read under a row lock in the transaction that changed usage, so each
// crossing fires exactly once however many requests race.
import type { Queryable } from '../db/index.ts';
import { writeEvent } from '../outbox/index.ts';
import {
  type AlertLevel,
  type AlertResource,
  type AlertState,
  lockAlertState,
  saveAlertState,
} from './counters-sql.ts';

export function alertLevel(used: number, limit: number): AlertLevel {
  if (used >= limit) return 100;
  // used / limit >= 0.8 without floating-point division (5 * used >= 4 * limit is exact for integers < 2^50).
  if (5 * used >= 4 * limit) return 80;
  return 0;
}

/**
 * The alerts owed when the stored state meets the current usage level, in order.
 * - rising into a higher band fires that band (70 % -> 100 % fires 100 only);
 * - falling below 80 % fires 0; falling from 100 % into the 80 % band fires nothing (stored as 80, so
 *   climbing back to 100 % is a new crossing);
 * - a stored quotes level from an earlier month is owed a 0 first: usage restarted with the new month.
 */
export function alertsOwed(stored: AlertState, next: AlertLevel, period: string | null): AlertLevel[] {
  const owed: AlertLevel[] = [];
  let from = stored.level;
  if (period !== null && stored.period !== period && from > 0) {
    owed.push(0);
    from = 0;
  }
  if (next > from) owed.push(next);
  else if (next === 0 && from > 0) owed.push(0);
  return owed;
}

export interface UsageSnapshot {
  accountId: string;
  tokenId: string | null;
  resource: AlertResource;
  used: number;
  limit: number;
  /** 'YYYY-MM' for quotes; null for storage, which is a standing allowance, not a monthly one. */
  period: string | null;
  /** Now, by the service's clock: when an alert it owes happened. */
  at: Date;
}

/**
 * Compares the usage with the stored level and writes the owed usage.alert events, in the caller's
 * transaction. The caller must already hold the lock from lockAlertState (use lockedUsage below).
 * Returns how many events were written (the caller wakes the event pump after commit when > 0).
 */
export async function settleAlerts(tx: Queryable, stored: AlertState, usage: UsageSnapshot): Promise<number> {
  const next = alertLevel(usage.used, usage.limit);
  const owed = alertsOwed(stored, next, usage.period);
  for (const level of owed) {
    await writeEvent(tx, {
      account_id: usage.accountId,
      token_id: usage.tokenId,
      event: 'usage.alert',
      data: { resource: usage.resource, level, used: usage.used, limit: usage.limit, period: usage.period },
      at: usage.at,
    });
  }
  if (next !== stored.level || usage.period !== stored.period) {
    await saveAlertState(tx, usage.accountId, usage.resource, { level: next, period: usage.period });
  }
  return owed.length;
}

/** Locks the alert row, then measures usage (after the lock, so the measure includes every committed change). */
export async function lockedUsage(
  tx: Queryable,
  accountId: string,
  resource: AlertResource,
  measure: () => Promise<number>,
) {
  const stored = await lockAlertState(tx, accountId, resource);
  return { stored, used: await measure() };
}

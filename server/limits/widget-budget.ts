// What one widget key's shoppers may spend (docs/limits.md, "Widget budgets"), set in the offer's widget_budget:
// quotes per shopper session per UTC hour (429 with Retry-After), quotes per UTC day of the whole shop (402), the
// key's share of the monthly quote allowance (402; so shoppers never use up the merchant's own API quotes) and
// the bytes its shoppers' uploads keep stored, originals and canonical meshes (402). Every count is a row in widget_budget_counters, taken or
// read in SQL, so the limits hold across processes.

import { monthlyShare, normalizeWidgetBudget, type WidgetBudget } from '../../shared/widget-budget.ts';
import type { AccountRow } from '../accounts/index.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { ApiError } from '../http/index.ts';
import { writeEvent } from '../outbox/index.ts';
import type { StorageRoom } from '../storage/index.ts';
import { alertLevel } from './alerts.ts';
import { accountPlanId } from './counters-sql.ts';
import { monthPeriod, type Period, secondsUntil } from './period.ts';
import { planFor } from './quota.ts';
import {
  type BudgetWindow,
  countSlot,
  liveWidgetKeys,
  lockWidgetKey,
  saveAlerted,
  shareSpenders,
  slotsUsed,
  spentShare,
  storedBudget,
  takeSlot,
  widgetStorageUsed,
} from './widget-budget-sql.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const MONTH_SCOPE = 'month';
const DAY_SCOPE = 'day';

/** The UTC hour or day `now` falls in. */
function windowOf(now: Date, ms: number): BudgetWindow {
  const start = new Date(Math.floor(now.getTime() / ms) * ms);
  return { start, end: new Date(start.getTime() + ms) };
}
const monthWindow = (p: Period): BudgetWindow => ({ start: p.start, end: p.end });

/** The budget in effect for a key: its own offer's, else the account's, else the defaults. */
export async function widgetBudget(db: Queryable, accountId: string, widgetKeyId: string): Promise<WidgetBudget> {
  return normalizeWidgetBudget((await storedBudget(db, accountId, widgetKeyId)) as Partial<WidgetBudget> | undefined);
}

export interface WidgetQuoteCaller {
  account: AccountRow;
  widgetKeyId: string;
  shopperHash: string;
  /** The client address the shopper calls from (ip:…, IPv6 per /64). */
  caller: string;
}

/** The part of a key's monthly share kept for shoppers new this month, in percent of the share (rounded down). */
export const NEWCOMER_RESERVE_PERCENT = 10;
const reserveOf = (limit: number) => Math.floor((limit * NEWCOMER_RESERVE_PERCENT) / 100);

/** How many of the key's counted quotes the most spending addresses and sessions of the month each had. */
const SPENDERS_SHOWN = 5;

/**
 * Refuses a shopper's new exploration once the key's share of the month is used up (402
 * widget_allowance_exhausted). Like the plan's allowance, checked before the quote and counted when it completes.
 * The share's last tenth is a reserve for newcomers: once only it is left, a shopper whose address or session
 * already had a quote counted this month is refused, so that one shopper population (a flood from many sessions of
 * a few addresses, or many addresses of one session) cannot close the shop's widget to everyone else for the month.
 */
export async function checkWidgetShare(deps: Pick<Deps, 'db' | 'plans' | 'now'>, caller: WidgetQuoteCaller) {
  const period = monthPeriod(deps.now());
  const budget = await widgetBudget(deps.db, caller.account.id, caller.widgetKeyId);
  const limit = monthlyShare(planFor(deps, caller.account.plan).monthly_quotes, budget.monthly_quote_share_percent);
  const used = await slotsUsed(deps.db, caller.widgetKeyId, MONTH_SCOPE, monthWindow(period));
  const reserve = reserveOf(limit);
  if (used < limit - reserve) return;
  const newcomer =
    used < limit && !(await spentShare(deps.db, caller.widgetKeyId, caller.caller, caller.shopperHash, period.start));
  if (newcomer) return;
  const resetsAt = period.end.toISOString();
  const share = `its ${budget.monthly_quote_share_percent} % share (${limit} quotes) of the month's allowance`;
  throw new ApiError(
    402,
    'widget_allowance_exhausted',
    used < limit
      ? `This shop's widget has used ${share} but the ${reserve} quotes it keeps for shoppers new this month, and this shopper has had quotes this month; it resets at ${resetsAt}.`
      : `This shop's widget has used ${share}; it resets at ${resetsAt}.`,
    {
      used,
      limit,
      newcomer_reserve: reserve,
      share_percent: budget.monthly_quote_share_percent,
      period: period.name,
      resets_at: resetsAt,
    },
  );
}

/**
 * Takes one quote from the shopper's hour and one from the shop's day, both or neither: 429
 * shopper_quote_budget_exhausted (Retry-After: the end of the hour) or 402 widget_daily_budget_exhausted.
 */
export async function chargeWidgetQuote(deps: Pick<Deps, 'db' | 'now'>, caller: WidgetQuoteCaller): Promise<void> {
  const now = deps.now();
  const budget = await widgetBudget(deps.db, caller.account.id, caller.widgetKeyId);
  const hour = windowOf(now, HOUR_MS);
  const day = windowOf(now, DAY_MS);
  await deps.db.transaction(async (tx) => {
    const shopperScope = `shopper:${caller.shopperHash}`;
    if ((await takeSlot(tx, caller.widgetKeyId, shopperScope, hour, budget.quotes_per_shopper_hour)) === null)
      throw shopperHourUsed(budget.quotes_per_shopper_hour, hour, now);
    if ((await takeSlot(tx, caller.widgetKeyId, DAY_SCOPE, day, budget.quotes_per_day)) === null)
      throw shopDayUsed(budget.quotes_per_day, day);
  });
}

function shopperHourUsed(limit: number, hour: BudgetWindow, now: Date): ApiError {
  const retryAfter = secondsUntil(hour.end, now);
  return new ApiError(
    429,
    'shopper_quote_budget_exhausted',
    `This shopper asked for the ${limit} quotes an hour the shop allows; retry in ${retryAfter} s.`,
    { limit, retry_after: retryAfter, resets_at: hour.end.toISOString() },
    { 'Retry-After': String(retryAfter) },
  );
}

function shopDayUsed(limit: number, day: BudgetWindow): ApiError {
  const resetsAt = day.end.toISOString();
  return new ApiError(
    402,
    'widget_daily_budget_exhausted',
    `This shop's widget has asked for its ${limit} quotes of the day; it resets at ${resetsAt}.`,
    { limit, resets_at: resetsAt },
  );
}

/**
 * Counts a completed widget quote that counted toward the allowance against the key's share, in the transaction
 * that completes it, and writes the usage.alert (resource widget_quotes) when the count enters the 80 % or 100 %
 * band of the share. The counter row stays locked until commit, so each band fires once per key and month.
 */
export async function countWidgetQuote(
  tx: Queryable,
  deps: Pick<Deps, 'plans' | 'now'>,
  accountId: string,
  widgetKeyId: string,
): Promise<void> {
  const period = monthPeriod(deps.now());
  const window = monthWindow(period);
  const { used, alerted } = await countSlot(tx, widgetKeyId, MONTH_SCOPE, window);
  const budget = await widgetBudget(tx, accountId, widgetKeyId);
  const limit = monthlyShare(
    planFor(deps, await accountPlanId(tx, accountId)).monthly_quotes,
    budget.monthly_quote_share_percent,
  );
  const level = limit > 0 ? alertLevel(used, limit) : 100;
  if (level === alerted) return;
  // A raised share lowers the band quietly; reaching a band again then fires it again.
  if (level > alerted) {
    await writeEvent(tx, {
      account_id: accountId,
      token_id: null,
      event: 'usage.alert',
      data: { resource: 'widget_quotes', level, used, limit, period: period.name, widget_key_id: widgetKeyId },
      at: deps.now(),
    });
  }
  await saveAlerted(tx, widgetKeyId, MONTH_SCOPE, window, level);
}

function widgetStorageExhausted(usedBytes: number, limitBytes: number, neededBytes: number) {
  return new ApiError(
    402,
    'widget_storage_exhausted',
    `This upload needs ${neededBytes} bytes of storage and does not fit the ${limitBytes} bytes the shop keeps for its widget's uploads (${usedBytes} used).`,
    { used_bytes: usedBytes, limit_bytes: limitBytes, needed_bytes: neededBytes },
  );
}

/** A cheap early refusal of a widget upload by its declared size, before the body is read. */
export async function precheckWidgetStorage(db: Queryable, accountId: string, widgetKeyId: string, bytes: number) {
  const room = await widgetStorageRoom(db, accountId, widgetKeyId);
  if (bytes > room.left) throw room.refuse(bytes);
}

/** What is left of the key's storage budget for one shopper upload, before it is parsed. */
export async function widgetStorageRoom(db: Queryable, accountId: string, widgetKeyId: string): Promise<StorageRoom> {
  const { upload_storage_bytes: limit } = await widgetBudget(db, accountId, widgetKeyId);
  const used = await widgetStorageUsed(db, widgetKeyId);
  return { used, left: limit - used, refuse: (needed) => widgetStorageExhausted(used, limit, needed) };
}

/**
 * The exact check with the bytes the upload stores (original and canonical mesh), in the transaction that records it (before its file row): under the key's row lock,
 * so concurrent uploads through one key cannot overshoot together.
 */
export async function reserveWidgetStorage(tx: Queryable, accountId: string, widgetKeyId: string, bytes: number) {
  await lockWidgetKey(tx, widgetKeyId);
  await precheckWidgetStorage(tx, accountId, widgetKeyId, bytes);
}

/** Each live widget key's budget and what its shoppers used of it (GET /v2/usage). */
export async function widgetBudgetUsage(deps: Pick<Deps, 'db' | 'plans' | 'now'>, account: AccountRow) {
  const now = deps.now();
  const period = monthPeriod(now);
  const allowance = planFor(deps, account.plan).monthly_quotes;
  const keys = await liveWidgetKeys(deps.db, account.id);
  return Promise.all(
    keys.map(async (key) => {
      const budget = await widgetBudget(deps.db, account.id, key.id);
      const [month, today, storage, spenders] = await Promise.all([
        slotsUsed(deps.db, key.id, MONTH_SCOPE, monthWindow(period)),
        slotsUsed(deps.db, key.id, DAY_SCOPE, windowOf(now, DAY_MS)),
        widgetStorageUsed(deps.db, key.id),
        shareSpenders(deps.db, key.id, period.start, SPENDERS_SHOWN),
      ]);
      const limit = monthlyShare(allowance, budget.monthly_quote_share_percent);
      return {
        widget_key_id: key.id,
        name: key.name,
        monthly_quotes: {
          used: month,
          limit,
          newcomer_reserve: reserveOf(limit),
          share_percent: budget.monthly_quote_share_percent,
          period: period.name,
          top_addresses: spenders.addresses.map((s) => ({ address: s.who.replace(/^ip:/, ''), quotes: s.quotes })),
          top_sessions: spenders.sessions.map((s) => ({ session: s.who.slice(0, 12), quotes: s.quotes })),
        },
        quotes_today: { used: today, limit: budget.quotes_per_day },
        quotes_per_shopper_hour: budget.quotes_per_shopper_hour,
        upload_storage: { used_bytes: storage, limit_bytes: budget.upload_storage_bytes },
      };
    }),
  );
}

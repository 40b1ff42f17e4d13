// The limits subsystem as one dependency: the rate limiter, the request log, and the periodic sweep that
// fires the level-0 quotes alerts owed at the start of a month and prunes the widget budgets' ended windows.

import { perTurn } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { quotesUsedOf } from './counters-sql.ts';
import { monthPeriod } from './period.ts';
import { settleNewPeriodForAll } from './quota.ts';
import { createMemoryLimiter, createRedisLimiter, type RateLimiter } from './rate-limiter.ts';
import { createRequestLog, type RequestLog } from './request-log.ts';
import { pruneBudgetWindows } from './widget-budget-sql.ts';

export interface Limits {
  limiter: RateLimiter;
  requests: RequestLog;
  /**
   * Successful quotes this month (UTC, by deps.now), as the quota check counts them; the requests of one turn of
   * the event loop share one statement (db/per-turn.ts).
   */
  quotesUsed(accountId: string): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

const PERIOD_SWEEP_MS = 60_000;

/** The limits are built before the deps that hold them: the plans, the request log's table and clock, the alerts' events. */
type LimitsPorts = Pick<Deps, 'config' | 'db' | 'plans' | 'log' | 'now' | 'events'>;

export async function createLimits(deps: LimitsPorts): Promise<Limits> {
  const { config, log } = deps;
  if (!deps.plans[config.rateLimitAnonymousPlan]) {
    throw new Error(`RATE_LIMIT_ANON_PLAN: no plan "${config.rateLimitAnonymousPlan}" in the plans file`);
  }
  const clockMs = () => deps.now().getTime();
  const limiter = config.redisUrl
    ? await createRedisLimiter({ url: config.redisUrl, prefix: config.rateLimitPrefix, log, now: clockMs })
    : createMemoryLimiter(clockMs);
  const requests = createRequestLog({
    db: deps.db,
    log,
    flushMs: config.usageFlushMs,
    retentionDays: config.usageRetentionDays,
    now: () => deps.now(),
  });
  // Keyed "period account": the requests of one turn share one statement per period (nearly always one).
  const quotesUsedNow = perTurn(async (keys: string[]) => {
    const byPeriod = new Map<string, string[]>();
    for (const key of keys) {
      const [period, accountId] = key.split(' ') as [string, string];
      byPeriod.set(period, [...(byPeriod.get(period) ?? []), accountId]);
    }
    const counts = new Map<string, number>();
    for (const [period, accountIds] of byPeriod) {
      for (const [accountId, n] of await quotesUsedOf(deps.db, accountIds, period))
        counts.set(`${period} ${accountId}`, n);
    }
    return counts;
  }, 0);
  let sweep: NodeJS.Timeout | null = null;
  let sweeping: Promise<void> = Promise.resolve();
  return {
    limiter,
    requests,
    quotesUsed: (accountId) => quotesUsedNow(`${monthPeriod(deps.now()).name} ${accountId}`),
    start() {
      requests.start();
      sweep ??= setInterval(() => {
        sweeping = settleNewPeriodForAll(deps)
          .catch((err) => log.error('usage alerts: new-period sweep failed', err))
          .then(() => pruneBudgetWindows(deps.db, deps.now()))
          .catch((err) => log.error('widget budgets: pruning ended windows failed', err));
      }, PERIOD_SWEEP_MS);
      sweep.unref();
    },
    async stop() {
      if (sweep) clearInterval(sweep);
      sweep = null;
      await sweeping;
      await requests.stop();
      await limiter.close();
    },
  };
}

export type { CallerVia } from './counters-sql.ts';
// The folder's front door: what other folders use of it.
export { CALLER_VIAS } from './counters-sql.ts';
export type { RateLimitPorts } from './middleware.ts';
export { chargeToUploadOwner, chargeUploadId, rateLimit, recordRequest, requestLogged } from './middleware.ts';
export { limitsPaths, limitsSchemas, rateLimitHeaders, withRateLimitResponses, withRateLimits } from './openapi.ts';
export { monthPeriod } from './period.ts';
export { checkQuoteQuota, checkStorageQuota, countQuote, recordStorageChange, storageAllowanceRoom } from './quota.ts';
export { limitsRouter } from './router.ts';
export type { SliceOutcome } from './slicer-time.ts';
export {
  chargeSlicerTime,
  checkSlicerBudget,
  purgeSlicerUsage,
  slicerSecondsUsed,
  slicerSpeed,
  slicerWallRatio,
} from './slicer-time.ts';
export type { WidgetQuoteCaller } from './widget-budget.ts';
export {
  chargeWidgetQuote,
  checkWidgetShare,
  countWidgetQuote,
  precheckWidgetStorage,
  reserveWidgetStorage,
  widgetBudgetUsage,
  widgetStorageRoom,
} from './widget-budget.ts';
export { publicUploadStorageResponse, quoteBudgetResponses, widgetBudgetSchema } from './widget-budget-openapi.ts';

declare module '../deps.ts' {
  interface Deps {
    /** Rate limiter, request log, this month's quote count and the new-month alert sweep. */
    limits: Limits;
  }
}

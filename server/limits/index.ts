// The limits subsystem as one dependency: the rate limiter, the request log, and the periodic sweep that
// fires the level-0 quotes alerts owed at the start of a month and prunes the widget budgets' ended windows.
import type { Deps } from '../deps.ts';
import { createMemoryLimiter, createRedisLimiter, type RateLimiter } from './rate-limiter.ts';
import { createRequestLog, type RequestLog } from '../usage/request-log.ts';
import { settleNewPeriodForAll } from './quota.ts';
import { pruneBudgetWindows } from './widget-budget-sql.ts';

export interface Limits {
  limiter: RateLimiter;
  requests: RequestLog;
  start(): void;
  stop(): Promise<void>;
}

const PERIOD_SWEEP_MS = 60_000;

export async function createLimits(deps: Omit<Deps, 'limits'>): Promise<Limits> {
  const { config, log } = deps;
  if (!deps.plans[config.rateLimitAnonymousPlan]) {
    throw new Error(`RATE_LIMIT_ANON_PLAN: no plan "${config.rateLimitAnonymousPlan}" in the plans file`);
  }
  const limiter = config.redisUrl
    ? await createRedisLimiter({ url: config.redisUrl, prefix: config.rateLimitPrefix, log })
    : createMemoryLimiter(() => deps.now().getTime());
  const requests = createRequestLog({
    db: deps.db,
    log,
    flushMs: config.usageFlushMs,
    retentionDays: config.usageRetentionDays,
    now: () => deps.now(),
  });
  let sweep: NodeJS.Timeout | null = null;
  let sweeping: Promise<void> = Promise.resolve();
  return {
    limiter,
    requests,
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

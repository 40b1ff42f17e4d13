// Fixed-window request counters: in memory (one process) or in Redis (shared by every process).
//
// A window starts with the first request for a key and lasts window_seconds; every request in it counts
// (refused ones too, so hammering does not earn a fresh window). Reset = milliseconds until that window
// ends. In Redis one Lua script does INCR and PEXPIRE atomically and reads PTTL, so the expiry is
// judged by Redis' clock alone and processes with skewed clocks still agree on one window.
import type { Logger } from '../deps.ts';

export interface HitResult {
  limit: number;
  /** Requests counted in this window, this one included. */
  count: number;
  remaining: number;
  /** Milliseconds until the window ends and the count starts again. */
  resetMs: number;
  allowed: boolean;
}

/** A running window read without counting. */
export interface WindowState {
  count: number;
  resetMs: number;
}

export interface RateLimiter {
  readonly kind: 'memory' | 'redis';
  /** Counts a request: answered at once by the in-memory counters, when Redis answers by Redis'. */
  hit(key: string, limit: number, windowMs: number): HitResult | Promise<HitResult>;
  /** Resolves when the counters' store answers (readiness); the in-memory store always does. */
  ping(): Promise<void>;
  /** The key's running window, or null when none runs; counts nothing (login throttling reads its locks so). */
  peek(key: string): Promise<WindowState | null>;
  /** Ends the key's window now (a successful login clears its failure counter). */
  clear(key: string): Promise<void>;
  close(): Promise<void>;
}

function result(count: number, limit: number, resetMs: number): HitResult {
  return {
    limit,
    count,
    remaining: Math.max(0, limit - count),
    resetMs: Math.max(0, resetMs),
    allowed: count <= limit,
  };
}

// Entries are dropped once their window is over; the sweep runs only when the map grows, so memory stays
// proportional to the keys seen in the last window.
const SWEEP_AT = 10_000;

export function createMemoryLimiter(now: () => number): RateLimiter {
  const windows = new Map<string, { count: number; endsAt: number }>();
  let sweepAt = SWEEP_AT;
  const sweep = (t: number) => {
    for (const [key, w] of windows) if (w.endsAt <= t) windows.delete(key);
    sweepAt = Math.max(SWEEP_AT, windows.size * 2);
  };
  return {
    kind: 'memory',
    hit(key, limit, windowMs) {
      const t = now();
      let w = windows.get(key);
      if (!w || w.endsAt <= t) {
        if (windows.size >= sweepAt) sweep(t);
        w = { count: 0, endsAt: t + windowMs };
        windows.set(key, w);
      }
      w.count += 1;
      return result(w.count, limit, w.endsAt - t);
    },
    async ping() {},
    async peek(key) {
      const w = windows.get(key);
      const t = now();
      return w && w.endsAt > t ? { count: w.count, resetMs: w.endsAt - t } : null;
    },
    async clear(key) {
      windows.delete(key);
    },
    async close() {
      windows.clear();
    },
  };
}

// KEYS[1] = counter, ARGV[1] = window in ms. A key without expiry (PTTL -1, e.g. left by a crash between
// commands in some older version) gets one, so no counter can live forever.
const HIT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}`;

// KEYS[1] = counter: its count and remaining milliseconds, without counting.
const PEEK_SCRIPT = `
local n = redis.call('GET', KEYS[1])
if not n then return {0, -2} end
return {tonumber(n), redis.call('PTTL', KEYS[1])}`;

type HitCommand = {
  sqRateHit(key: string, windowMs: number): Promise<[number, number]>;
  sqRatePeek(key: string): Promise<[number, number]>;
};

export interface RedisLimiterOptions {
  url: string;
  prefix: string;
  log: Pick<Logger, 'error'>;
  /** The injected clock in milliseconds: the fallback's windows and the outage complaints' spacing count on it. */
  now: () => number;
  /** A request never waits longer than this for Redis; past it the local fallback answers. */
  commandTimeoutMs?: number;
}

/**
 * Counters in Redis. When Redis cannot answer (down, slow), the request is judged by a per-process
 * in-memory limiter instead of failing: the API stays up, and limits hold per process until Redis is back.
 */
export async function createRedisLimiter(opts: RedisLimiterOptions): Promise<RateLimiter> {
  // Loaded by the processes configured for Redis only.
  const { Redis } = await import('ioredis');
  const redis = new Redis(opts.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: opts.commandTimeoutMs ?? 500,
    connectionName: 'slicequote-rate-limits',
    // The counts of requests arriving together go to Redis in one write (one round trip under load).
    enableAutoPipelining: true,
  });
  redis.defineCommand('sqRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  redis.defineCommand('sqRatePeek', { numberOfKeys: 1, lua: PEEK_SCRIPT });
  let lastComplaint = 0;
  redis.on('error', (err) => complain(err));
  function complain(err: unknown) {
    // One line per 30 s at most: a Redis outage must not flood the log with one line per request.
    if (opts.now() - lastComplaint < 30_000) return;
    lastComplaint = opts.now();
    opts.log.error('rate limits: Redis unavailable, using per-process counters until it is back', err);
  }
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new Error(`REDIS_URL: cannot connect to Redis for rate limits: ${(err as Error).message}`);
  }
  const fallback = createMemoryLimiter(opts.now);
  const commands = redis as unknown as HitCommand;
  return {
    kind: 'redis',
    async hit(key, limit, windowMs) {
      try {
        const [count, ttl] = await commands.sqRateHit(opts.prefix + key, windowMs);
        return result(Number(count), limit, Number(ttl));
      } catch (err) {
        complain(err);
        return fallback.hit(key, limit, windowMs);
      }
    },
    async ping() {
      await redis.ping();
    },
    async peek(key) {
      try {
        const [count, ttl] = await commands.sqRatePeek(opts.prefix + key);
        return Number(ttl) > 0 ? { count: Number(count), resetMs: Number(ttl) } : null;
      } catch (err) {
        complain(err);
        return fallback.peek(key);
      }
    },
    async clear(key) {
      try {
        await redis.del(opts.prefix + key);
      } catch (err) {
        complain(err);
      }
      await fallback.clear(key);
    },
    async close() {
      await fallback.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

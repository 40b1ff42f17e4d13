// Quota periods are calendar months in UTC, named 'YYYY-MM'. Computed from the injected clock (deps.now),
// never from the database's now(), so tests can move to the next month without waiting for it.
export interface Period {
  name: string;
  start: Date;
  /** Exclusive: the start of the next month, when quote usage starts again from zero. */
  end: Date;
}

// The month last asked for: GET /v2/user asks on every request, and it changes once a month (read-only).
let last: Period | null = null;

export function monthPeriod(now: Date): Period {
  const t = now.getTime();
  if (last && last.start.getTime() <= t && t < last.end.getTime()) return last;
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const start = new Date(Date.UTC(y, m, 1));
  last = { name: start.toISOString().slice(0, 7), start, end: new Date(Date.UTC(y, m + 1, 1)) };
  return last;
}

/** Whole seconds until `end`, at least 1 (a Retry-After of 0 invites an immediate retry storm). */
export function secondsUntil(end: Date, now: Date): number {
  return Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000));
}

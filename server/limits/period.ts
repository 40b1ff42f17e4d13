// Quota periods are calendar months in UTC, named 'YYYY-MM'. Computed from the injected clock (deps.now),
// never from the database's now(), so tests can move to the next month without waiting for it.
export interface Period {
  name: string;
  start: Date;
  /** Exclusive: the start of the next month, when quote usage starts again from zero. */
  end: Date;
}

export function monthPeriod(now: Date): Period {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const start = new Date(Date.UTC(y, m, 1));
  return { name: start.toISOString().slice(0, 7), start, end: new Date(Date.UTC(y, m + 1, 1)) };
}

/** Whole seconds until `end`, at least 1 (a Retry-After of 0 invites an immediate retry storm). */
export function secondsUntil(end: Date, now: Date): number {
  return Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000));
}

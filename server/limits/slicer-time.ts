// Slicer time as a budget (docs/limits.md, "Slicer time"). Every slice that ran is recorded with the CPU seconds
// the slicer used (the work, which the host's load does not change) and the caller it is charged to, whatever its
// outcome: a failed or timed-out slice cost the server as much as a good one, and whoever asked for it pays. A
// caller's hourly budget is counted from these rows (so it holds across worker processes), the ratio of used to
// predicted seconds tells how fast this server's processors slice, and the slices' clock times on a host how long a
// shopper waits there for one.
import type { Queryable } from '../db/index.ts';
import { ApiError } from '../http/index.ts';

export type SliceOutcome = 'ok' | 'failed' | 'timeout' | 'stopped';

export interface SlicerCharge {
  account_id: string;
  caller: string;
  kind: 'quote' | 'prefetch' | 'check';
  outcome: SliceOutcome;
  /** The slicer's CPU seconds (wall seconds where the host has no /proc to read them from). */
  seconds: number;
  /** What the cost model predicted on the reference machine; null when unknown. */
  reference_s: number | null;
  /** The slice's clock time, start to G-code read, on the host named; null when not measured. */
  wall_s?: number | null;
  host?: string | null;
  at: Date;
}

export async function chargeSlicerTime(db: Queryable, c: SlicerCharge): Promise<void> {
  await db.query(
    `INSERT INTO slicer_usage (account_id, caller, kind, outcome, seconds, reference_s, wall_s, host, at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [c.account_id, c.caller, c.kind, c.outcome, c.seconds, c.reference_s, c.wall_s ?? null, c.host ?? null, c.at],
  );
}

const HOUR_S = 3600;

/** The caller's slicer seconds in the last hour, and when enough of them leave the window to be under `budget`. */
export async function slicerSecondsUsed(db: Queryable, caller: string, budget: number, now: Date) {
  const rows = await db.query<{ seconds: number; at: Date }>(
    `SELECT seconds::float8 AS seconds, at FROM slicer_usage WHERE caller = $1 AND at > $2 ORDER BY at`,
    [caller, new Date(now.getTime() - HOUR_S * 1000)],
  );
  let used = rows.reduce((sum, r) => sum + r.seconds, 0);
  let freeAt = now;
  for (const r of rows) {
    if (used < budget) break;
    used -= r.seconds;
    freeAt = new Date(r.at.getTime() + HOUR_S * 1000);
  }
  return { used: rows.reduce((sum, r) => sum + r.seconds, 0), freeAt };
}

/** 429 when the caller has spent its hourly slicer budget; a quote answered from the cache never asks. */
export async function checkSlicerBudget(db: Queryable, caller: string, budget: number, now: Date): Promise<void> {
  const { used, freeAt } = await slicerSecondsUsed(db, caller, budget, now);
  if (used < budget) return;
  const retryAfter = Math.max(1, Math.ceil((freeAt.getTime() - now.getTime()) / 1000));
  throw new ApiError(
    429,
    'slicer_budget_spent',
    `This caller used ${Math.round(used)} s of slicer time in the last hour, its budget is ${budget} s; slices of failed and timed-out quotes count too. Retry in ${retryAfter} s.`,
    { used_seconds: Math.round(used), budget_seconds: budget, window_seconds: HOUR_S },
    { 'Retry-After': String(retryAfter) },
  );
}

/**
 * How much slower (above 1) or faster than the reference machine this server's processors slice: used over
 * predicted CPU seconds of the last 50 good slices predicted at a second or more (below it, the server's fixed cost
 * per quote would pass for slowness), bounded so that a few odd slices cannot swing every prediction. CPU seconds,
 * not wall: a host busy with other work slices no less in CPU time, so its predictions do not grow with its load.
 */
export async function slicerSpeed(db: Queryable): Promise<number> {
  const [row] = await db.query<{ real: number | null; predicted: number | null }>(
    `SELECT sum(seconds)::float8 AS real, sum(reference_s)::float8 AS predicted FROM (
       SELECT seconds, reference_s FROM slicer_usage WHERE outcome = 'ok' AND reference_s >= 1 ORDER BY id DESC LIMIT 50) recent`,
  );
  if (!row?.real || !row.predicted) return 1;
  return Math.min(4, Math.max(0.5, row.real / row.predicted));
}

/** The slices a host's wall ratio is the median of: a few, so that a change of load shows within a minute or two. */
const WALL_RATIO_SLICES = 9;

/**
 * How many clock seconds a reference second of the cost model takes on this host, or null before its first slice:
 * the median over its last few good slices of wall over reference seconds. Wall, not CPU: it is what a shopper
 * waits, and it holds what the CPU speed leaves out, the cores PrusaSlicer keeps busy at once and the host's load
 * (a median, so one slice stalled by a burst of other work, or sped up by an idle moment, does not move it).
 */
export async function slicerWallRatio(db: Queryable, host: string): Promise<number | null> {
  const [row] = await db.query<{ ratio: number | null }>(
    `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY wall_s::float8 / reference_s)::float8 AS ratio FROM (
       SELECT wall_s, reference_s FROM slicer_usage
       WHERE outcome = 'ok' AND wall_s > 0 AND reference_s >= 1 AND host = $1 ORDER BY id DESC LIMIT $2) recent`,
    [host, WALL_RATIO_SLICES],
  );
  return row?.ratio ?? null;
}

/** Usage rows older than a day are no longer read: the budget looks back an hour, fair shares 15 minutes. */
export async function purgeSlicerUsage(db: Queryable, now: Date): Promise<number> {
  const rows = await db.query('DELETE FROM slicer_usage WHERE at < $1 RETURNING id', [
    new Date(now.getTime() - 24 * HOUR_S * 1000),
  ]);
  return rows.length;
}

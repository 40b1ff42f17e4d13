// Long slices make way for short ones (docs/limits.md, "The short lane"): while a slice predicted short runs, the
// long slices of this process are paused (SIGSTOP to their process group), so that the short one has the cores
// as if it were alone, whoever holds the other slots and whatever their parts do. A paused slice uses no CPU, so
// its CPU-time limit and its caller's charge stand still, and the time paused never counts as stalled
// (process.ts). Two bounds keep this from being abused:
// - a short slice is short only until it has used its allowance of CPU time (a multiple of its prediction): past
//   it, it is long from then on (reniced, and pausable), so a part made to look cheap cannot hold the others;
// - a long slice is paused at most half of its life: under a stream of short slices it still runs (niced) half
//   the time, so no one's large part waits for ever.
import type { ChildControl } from './process.ts';

/** A slice predicted short: long slices pause while it runs, until it has used `cpuMs`; then it runs at `niceness`. */
export interface ShortSlice {
  cpuMs: number;
  niceness: number;
}

/** How often running slices are looked at: CPU used, pauses due or over. A /proc read costs microseconds. */
const TICK_MS = 250;
/** The most of its life a long slice spends paused. */
export const MAX_PAUSED_SHARE = 0.5;

export interface Yielding {
  /** Still short (has not used its allowance). */
  short: ShortSlice | null;
  /** Set once the slicer runs. */
  control?: ChildControl;
  startedAt: number;
  /** When this paused it (null: running). */
  pausedAt: number | null;
  pausedMs: number;
  /** A short slice used its allowance: the pool decides what becomes of it. */
  outgrown(): void;
}

export interface YieldStats {
  /** Long slices paused now. */
  paused: number;
  /** Pauses so far. */
  pauses: number;
  /** Short slices that used their allowance. */
  outgrown: number;
}

export interface Scheduler {
  add(slice: Yielding): void;
  /** The slicer of `slice` runs now. */
  started(slice: Yielding, control: ChildControl): void;
  remove(slice: Yielding): void;
  stats(): YieldStats;
}

export function createScheduler(): Scheduler {
  const slices = new Set<Yielding>();
  const counts = { pauses: 0, outgrown: 0 };
  let timer: NodeJS.Timeout | undefined;

  const pausedFor = (s: Yielding, now: number) => s.pausedMs + (s.pausedAt === null ? 0 : now - s.pausedAt);

  function resume(s: Yielding, now: number) {
    if (s.pausedAt === null) return;
    s.pausedMs += now - s.pausedAt;
    s.pausedAt = null;
    s.control?.resume();
  }

  /** Short slices past their allowance become long; then each long slice is paused or resumed. */
  function schedule() {
    const now = performance.now();
    for (const s of slices) {
      if (!s.short || !s.control) continue;
      const used = s.control.cpuMs();
      if (used === null || used < s.short.cpuMs) continue;
      const { niceness } = s.short;
      s.short = null;
      counts.outgrown++;
      s.control.renice(niceness);
      s.outgrown();
    }
    const shortRunning = [...slices].some((s) => s.short && s.control);
    for (const s of slices) {
      if (s.short || !s.control) continue;
      const mayPause = shortRunning && pausedFor(s, now) < (now - s.startedAt) * MAX_PAUSED_SHARE;
      if (!mayPause) resume(s, now);
      else if (s.pausedAt === null && s.control.pause()) {
        s.pausedAt = now;
        counts.pauses++;
      }
    }
    const watching = [...slices].some((s) => s.short || s.pausedAt !== null);
    if (watching && !timer) timer = setInterval(schedule, TICK_MS).unref();
    if (!watching && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  }

  return {
    add(slice) {
      slices.add(slice);
    },
    started(slice, control) {
      slice.control = control;
      schedule();
    },
    remove(slice) {
      if (!slices.delete(slice)) return;
      slice.pausedAt = null; // a slice that ended is not resumed: it has exited, or is being killed
      schedule();
    },
    stats: () => ({ paused: [...slices].filter((s) => s.pausedAt !== null).length, ...counts }),
  };
}

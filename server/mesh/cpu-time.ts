// CPU time from Linux's /proc, so that budgets count the work a parse or a slice does, not how long it takes on a
// shared host (docs/limits.md): a thread's own time (/proc/<pid>/task/<tid>/stat), or a process's with all its
// threads and its waited-for children (/proc/<pid>/stat). Where /proc is missing (not Linux) the readers answer
// null and a watch judges the budget on wall time instead.
import { readFileSync, readlinkSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ, `getconf CLK_TCK`): 100 on every architecture Node runs on. */
const TICKS_PER_S = 100;
/** How often a watch reads the CPU time: a /proc read costs microseconds. */
const POLL_MS = 250;

/** The calling thread under /proc, "<pid>/task/<tid>"; null without /proc. */
export function currentThread(): string | null {
  try {
    return readlinkSync('/proc/thread-self');
  } catch {
    return null;
  }
}

/** utime + stime of a /proc stat line (fields 14 and 15), with `children` also cutime + cstime (16, 17), in ms. */
export function statCpuMs(stat: string, children: boolean): number {
  // The command name (field 2) is in parentheses and may hold spaces: count from its end, where field 3 begins.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = fields.slice(11, children ? 15 : 13).reduce((sum, f) => sum + Number(f), 0);
  return (ticks * 1000) / TICKS_PER_S;
}

function readCpuMs(path: string, children: boolean): number | null {
  try {
    return statCpuMs(readFileSync(path, 'utf8'), children);
  } catch {
    return null;
  }
}

/** CPU ms a thread ("<pid>/task/<tid>") has used; null when it is gone or /proc is missing. */
export const threadCpuMs = (thread: string) => readCpuMs(`/proc/${thread}/stat`, false);
/** CPU ms a process has used, all its threads and the children it waited for; null once it is reaped. */
export const processCpuMs = (pid: number) => readCpuMs(`/proc/${pid}/stat`, true);

export interface CpuLimit {
  /** CPU ms the work may use from the start of the watch. */
  cpuMs: number;
  /**
   * Wall ms the work may go without using any CPU time (time paused aside) before it is stopped: stalled on I/O or
   * blocked. Work that goes on, however slowly a loaded host lets it, is never stopped for the time it takes.
   */
  stallMs: number;
}

/** Which limit was reached: its CPU time, or no CPU used for `stallMs`. */
export type Spent = 'cpu' | 'stalled';

export interface CpuWatch {
  /** CPU ms used since the start, read now (the last reading once the work is gone); null without /proc. */
  used(): number | null;
  stop(): void;
  /**
   * The work is paused (SIGSTOP) until `resume`: a paused process uses no CPU, so its CPU budget stands still by
   * itself; waiting while paused never counts as stalling.
   */
  pause(): void;
  resume(): void;
}

/**
 * Calls `onSpent` once: when `read` (CPU ms of a thread or process) has grown by `cpuMs` since now, or when it has
 * not grown for `stallMs` of wall time while not paused. Where `read` answers null at the start (no /proc), `cpuMs`
 * is judged on wall time as the only bound. Its timer keeps the process alive until it fires or is stopped: work
 * that has ended uses no CPU, so a watch left running stops itself once `stallMs` have passed.
 */
export function watchCpu(read: () => number | null, limit: CpuLimit, onSpent: (why: Spent) => void): CpuWatch {
  const start = read();
  if (start === null) return wallWatch(limit.cpuMs, onSpent);
  let used = 0;
  let done = false;
  let paused = false;
  /** When the work was last seen using CPU, or was resumed. */
  let movedAt = performance.now();
  const sample = () => {
    const now = read();
    if (now !== null && now - start > used) {
      used = now - start;
      movedAt = performance.now();
    }
    return used;
  };
  const poll = setInterval(
    () => {
      if (sample() >= limit.cpuMs) spend('cpu');
      else if (!paused && performance.now() - movedAt >= limit.stallMs) spend('stalled');
    },
    Math.min(POLL_MS, Math.max(10, limit.cpuMs / 4)),
  );
  function spend(why: Spent) {
    if (done) return;
    stop();
    onSpent(why);
  }
  function stop() {
    done = true;
    clearInterval(poll);
  }
  return {
    used: sample,
    stop,
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
      movedAt = performance.now();
    },
  };
}

/** Without /proc: the CPU budget judged on wall time, standing still while the work is paused. */
function wallWatch(budgetMs: number, onSpent: (why: Spent) => void): CpuWatch {
  let left = budgetMs;
  let armedAt = performance.now();
  let done = false;
  const fire = () => {
    done = true;
    onSpent('cpu');
  };
  let timer: NodeJS.Timeout | undefined = setTimeout(fire, left);
  return {
    used: () => null,
    stop() {
      done = true;
      clearTimeout(timer);
    },
    pause() {
      if (done || !timer) return;
      clearTimeout(timer);
      timer = undefined;
      left = Math.max(0, left - (performance.now() - armedAt));
    },
    resume() {
      if (done || timer) return;
      armedAt = performance.now();
      timer = setTimeout(fire, left);
    },
  };
}

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
  /** Wall ms after which it is stopped whatever it used: the backstop for work stalled on I/O or starved of cores. */
  wallMs: number;
}

/** Which limit was reached. */
export type Spent = 'cpu' | 'wall';

export interface CpuWatch {
  /** CPU ms used since the start, read now (the last reading once the work is gone); null without /proc. */
  used(): number | null;
  stop(): void;
  /**
   * The work is paused (SIGSTOP) until `resume`: a paused process uses no CPU, so its CPU budget stands still by
   * itself; the wall-clock backstop stands still with it, so that waiting while paused never counts as stalling.
   */
  pause(): void;
  resume(): void;
}

/**
 * Calls `onSpent` once, when `read` (CPU ms of a thread or process) has grown by `cpuMs` since now, or when
 * `wallMs` have passed. Where `read` answers null at the start (no /proc), `cpuMs` is judged on wall time as the
 * only bound. The polling interval is unref'd; the one timer that always ends the work keeps the process alive.
 */
export function watchCpu(read: () => number | null, limit: CpuLimit, onSpent: (why: Spent) => void): CpuWatch {
  const start = read();
  let used = 0;
  let done = false;
  const sample = () => {
    const now = start === null ? null : read();
    if (now !== null) used = Math.max(used, now - start!);
    return used;
  };
  const spend = (why: Spent) => {
    if (done) return;
    stop();
    onSpent(why);
  };
  const poll =
    start === null
      ? undefined
      : setInterval(
          () => {
            if (sample() >= limit.cpuMs) spend('cpu');
          },
          Math.min(POLL_MS, Math.max(10, limit.cpuMs / 4)),
        ).unref();
  // Without /proc the CPU budget is judged on wall time, so it is the backstop that pauses stop.
  const why: Spent = start === null ? 'cpu' : 'wall';
  let left = start === null ? limit.cpuMs : Math.max(limit.cpuMs, limit.wallMs);
  let armedAt = performance.now();
  let backstop: NodeJS.Timeout | undefined = setTimeout(() => spend(why), left);
  function stop() {
    done = true;
    clearInterval(poll);
    clearTimeout(backstop);
  }
  function pause() {
    if (done || !backstop) return;
    clearTimeout(backstop);
    backstop = undefined;
    left = Math.max(0, left - (performance.now() - armedAt));
  }
  function resume() {
    if (done || backstop) return;
    armedAt = performance.now();
    backstop = setTimeout(() => spend(why), left);
  }
  return { used: () => (start === null ? null : sample()), stop, pause, resume };
}

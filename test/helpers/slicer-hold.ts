// Holds the slicers a process runs (this test process's, or a server process's) (SIGSTOP to each one's process group), so that a test about stopping
// a slice knows the slice is still running when it acts, however fast or loaded the machine is. A held slicer
// uses no CPU; the server still kills it (SIGKILL reaches a stopped process). release() lets the others go on.
import { readdirSync, readFileSync } from 'node:fs';
import { until } from './poll.ts';

/** The pids of `parent`'s children slicing with PrusaSlicer (not asked its version): each leads its process group. */
export function runningSlicers(parent = process.pid): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const command = readFileSync(`/proc/${name}/cmdline`, 'latin1');
      if (ppid === parent && /prusa-?slicer/i.test(command) && command.includes('--export-gcode'))
        found.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

/** The slicers found, if any (for `until`). */
export const someSlicers = (parent = process.pid): number[] | undefined => {
  const pids = runningSlicers(parent);
  return pids.length ? pids : undefined;
};

/** A process's state letter (R, S, D, T, t, Z…), or undefined once it is gone. */
function stateOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0];
  } catch {
    return undefined;
  }
}

/** Sends `sig` to each slicer's process group (the slicer and what it started). */
function signalGroups(pids: readonly number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(-pid, sig);
    } catch {
      // already gone (the server stopped it)
    }
  }
}

/** Stopped (T, or t while traced), or ended (a zombie, or gone): what a SIGSTOP sent to a live process leads to. */
const settled = (pid: number) => /^[TtZX]?$/.test(stateOf(pid) ?? '');
const isStopped = (pid: number) => /^[Tt]$/.test(stateOf(pid) ?? '');

/**
 * Stops the slicers. `stopped()` says whether every one of them is stopped: one found in its last moment may have
 * ended before the signal came, and then its slice is not held. It first waits for the signal to take effect: kill()
 * returns before a process running on the other core has stopped, and read at once its state still says running.
 */
export function holdSlicers(pids: number[]): { release(): void; kill(): void; stopped(): Promise<boolean> } {
  const signal = (sig: NodeJS.Signals) => signalGroups(pids, sig);
  signal('SIGSTOP');
  return {
    release: () => signal('SIGCONT'),
    kill: () => signal('SIGKILL'),
    stopped: async () => {
      await until('the held slicers to stop or end', 60_000, () => pids.every(settled) || undefined);
      return pids.every(isStopped);
    },
  };
}

export type HeldSlicers = ReturnType<typeof holdSlicers>;

/**
 * Holds the next slicer `parent` runs, mid-slice, where the slices a test waits for start one after another on
 * their own (an upload's prefetches): one found in its last moment may end before it is stopped, and then the next
 * one found is held.
 */
export async function holdNextSlicer(what: string, parent = process.pid, tries = 5): Promise<HeldSlicers> {
  for (let i = 0; i < tries; i++) {
    const held = holdSlicers(await until(what, 120_000, () => someSlicers(parent)));
    if (await held.stopped()) return held;
    held.release();
  }
  throw new Error(`${what}: no slice was held in ${tries} tries, each one ended before it was stopped`);
}

/**
 * Holds every slicer `parent` runs from now until release(): those running and each one it starts meanwhile, found
 * at every poll. For a test whose slice is one of several that may start: a prefetch that had begun before its row
 * was deleted starts its slicer late, and holding only the first slicer seen would let the others finish.
 */
export function holdEverySlicer(parent = process.pid) {
  const held: number[] = [];
  let releasing = false;
  const holding = until('the held slicers to be released', 600_000, () => {
    if (releasing) return true;
    const found = runningSlicers(parent).filter((pid) => !held.includes(pid));
    signalGroups(found, 'SIGSTOP');
    held.push(...found);
    return undefined;
  });
  return {
    /** The slicers held so far, with their state letters (T: stopped), for a long wait's report. */
    held: () => held.map((pid) => `${pid}:${stateOf(pid) ?? 'gone'}`),
    async release() {
      releasing = true;
      await holding;
      signalGroups(held, 'SIGCONT');
    },
  };
}

/**
 * Asks for slices (`ask(i)`, each one a slice of its own: another infill, say) until one is held mid-slice, and
 * answers the held slicers with what `ask` answered. A small part's slice may end between being found and being
 * stopped, or between two looks: then it is let finish (`ended(answer)` says it did) and the next one is asked.
 */
export async function askUntilHeld<T>(
  ask: (i: number) => Promise<T>,
  ended: (answer: T) => Promise<boolean>,
  parent = process.pid,
  tries = 5,
): Promise<{ held: HeldSlicers; answer: T }> {
  for (let i = 0; i < tries; i++) {
    let answer: T | undefined;
    const asking = ask(i).then((a) => {
      answer = a;
      return a;
    });
    let looks = 0;
    const seen = await until('the slicer to start, or the slice to end unseen', 120_000, async () => {
      const pids = someSlicers(parent);
      if (pids) return pids;
      // `ended` at every tenth look: it may ask the API, whose read limit a poll every look would spend.
      return answer !== undefined && looks++ % 10 === 0 && (await ended(answer)) ? null : undefined;
    });
    if (seen === null) continue;
    const held = holdSlicers(seen);
    const asked = await asking;
    if (await held.stopped()) return { held, answer: asked };
    held.release();
  }
  throw new Error(`no slice was held in ${tries} tries: each one ended before it was stopped`);
}

// Who parses next (docs/limits.md, "Fair parsing"): each caller has a queue of its own and at most one task
// running. Callers take turns: a caller joins the line at the back, and one whose task ends goes to the back
// again, so a free worker serves the callers with waiting work round robin. A caller with many files waits for
// its turn like everyone else instead of holding the workers (first come, first served would let it).

export interface Task {
  /** Who asked: tok:<token id>, acct:<account id>, ip:<client address> (uploads), mesh:<path> (estimates). */
  caller: string;
}

interface Caller<T> {
  running: T | null;
  waiting: T[];
  /** Its place in line: the lowest goes first. */
  turn: number;
}

export interface CallerState {
  caller: string;
  running: boolean;
  waiting: number;
}

export class FairQueue<T extends Task> {
  private readonly callers = new Map<string, Caller<T>>();
  private clock = 0;

  /** Tasks of this caller waiting (not running), those `counted` accepts only when given. */
  waiting(caller: string, counted: (task: T) => boolean = () => true): number {
    return this.callers.get(caller)?.waiting.filter(counted).length ?? 0;
  }

  /** The caller's running task, else its first waiting one. */
  first(caller: string): T | undefined {
    const entry = this.callers.get(caller);
    return entry?.running ?? entry?.waiting[0];
  }

  /** Adds a task at the end of its caller's queue; `first` puts it at the front (a task handed back). */
  add(task: T, first = false): void {
    let entry = this.callers.get(task.caller);
    if (!entry) {
      entry = { running: null, waiting: [], turn: ++this.clock };
      this.callers.set(task.caller, entry);
    }
    if (first) entry.waiting.unshift(task);
    else entry.waiting.push(task);
  }

  /** Whether `take` would find a task `fits` accepts: one waits with nothing of its caller's running. */
  ready(fits: (task: T) => boolean): boolean {
    for (const entry of this.callers.values()) {
      const head = entry.waiting[0];
      if (!entry.running && head && fits(head)) return true;
    }
    return false;
  }

  /**
   * The next task `fits` accepts, from the first caller in line with nothing running; it is running from now. With
   * `rank`, the caller whose next task ranks lowest goes first, and the line decides among equals.
   */
  take(fits: (task: T) => boolean, rank: (task: T) => number = () => 0): T | undefined {
    let best: Caller<T> | undefined;
    let bestRank = 0;
    for (const entry of this.callers.values()) {
      const head = entry.waiting[0];
      if (entry.running || !head || !fits(head)) continue;
      const r = rank(head);
      if (!best || r < bestRank || (r === bestRank && entry.turn < best.turn)) {
        best = entry;
        bestRank = r;
      }
    }
    if (!best) return undefined;
    best.running = best.waiting.shift()!; // the head checked above
    return best.running;
  }

  /** The caller's running task is over: to the back of the line, or forgotten when it has nothing left. */
  finished(caller: string): void {
    const entry = this.callers.get(caller);
    if (!entry) return;
    entry.running = null;
    entry.turn = ++this.clock;
    if (entry.waiting.length === 0) this.callers.delete(caller);
  }

  state(): CallerState[] {
    return [...this.callers].map(([caller, e]) => ({ caller, running: e.running !== null, waiting: e.waiting.length }));
  }
}

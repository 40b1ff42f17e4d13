// Waiting for a condition that another part (a worker, a receiver, a child process) brings about: poll a state
// the user would notice instead of sleeping a fixed time. No wait here has a clock: a loaded host (two runs of the
// suite on two cores, a load of 30 and more) only makes it longer. The one clock is the test runner's hang guard
// (scripts/test.sh), which ends a test still waiting after 30 minutes; a wait that goes on long first says, on
// stderr, what it is still waiting for, so that a hang names what never happened.
export const POLL_MS = 50;

/**
 * Polls fn until it answers a value other than undefined (`what` names it, or tells how things stand when called).
 * After the polls of `reportAfterMs`, and each time their count doubles, it says what it is still waiting for.
 */
export async function until<T>(
  what: string | (() => string),
  reportAfterMs: number,
  fn: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  let report = Math.max(1, Math.ceil(reportAfterMs / POLL_MS));
  for (let polls = 1; ; polls++) {
    const v = await fn();
    if (v !== undefined) return v;
    if (polls === report) {
      process.stderr.write(`still waiting for ${typeof what === 'string' ? what : what()} after ${polls} polls\n`);
      report *= 2;
    }
    await pause(POLL_MS);
  }
}

/**
 * At most `polls` polls of fn; undefined when none answered. Only for a wait whose giving up is part of the test:
 * the test then acts again (a click Chromium did not turn into a file chooser is clicked once more).
 */
export async function upTo<T>(polls: number, fn: () => Promise<T | undefined> | T | undefined): Promise<T | undefined> {
  for (let i = 0; i < polls; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await pause(POLL_MS);
  }
  return undefined;
}

/** Polls check until it answers a truthy value; a long wait reports the last value seen. */
export async function eventually<T>(
  check: () => Promise<T | null | undefined | false>,
  reportAfterMs = 20_000,
  what = 'condition',
): Promise<T> {
  let last: unknown;
  return until(
    () => `${what} (last: ${JSON.stringify(last)})`,
    reportAfterMs,
    async () => {
      last = await check();
      return last ? (last as T) : undefined;
    },
  );
}

/** The interval between two polls; only wait helpers use it (never a test before an assertion). */
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

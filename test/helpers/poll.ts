// Waiting for a condition that another part (a worker, a receiver, a child process) brings about: poll a state
// the user would notice instead of sleeping a fixed time. The bound is a generous number of polls, not a clock
// deadline: on a loaded machine the wait stretches, and when it does give up it names what never happened.
export const POLL_MS = 50;

/** Polls fn until it answers a value other than undefined; budgetMs / POLL_MS polls at most. */
export async function until<T>(
  what: string,
  budgetMs: number,
  fn: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  const tries = Math.max(1, Math.ceil(budgetMs / POLL_MS));
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await pause(POLL_MS);
  }
  throw new Error(`gave up waiting for ${what} after ${tries} polls`);
}

/** Polls check until it answers a truthy value; the last value seen is in the error. */
export async function eventually<T>(
  check: () => Promise<T | null | undefined | false>,
  budgetMs = 20_000,
  what = 'condition',
): Promise<T> {
  let last: unknown;
  const found = await until(what, budgetMs, async () => {
    last = await check();
    return last ? (last as T) : undefined;
  }).catch((err: Error) => {
    throw new Error(`${err.message} (last: ${JSON.stringify(last)})`);
  });
  return found;
}

/** The interval between two polls; only wait helpers use it (never a test before an assertion). */
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Asking again: the widget's calls that a busy server may refuse for now (a rate limit, a full parse queue, a 503)
// are repeated after the wait the server asked for, a few times, each with its own rule for what is worth it.

/**
 * Whether a call that failed with `error` on its `attempt`-th try (1 for the first) is tried again, and after how
 * many milliseconds; null when the failure is final.
 */
export type RetryRule = (error: unknown, attempt: number) => number | null;

/** Calls `call` until it succeeds or `rule` calls its failure final (then throws it). Stops when `signal` aborts. */
export async function retrying<T>(call: () => Promise<T>, rule: RetryRule, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (e) {
      const wait = rule(e, attempt);
      if (wait === null) throw e;
      await sleep(wait, signal);
    }
  }
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    if (ms <= 0) return resolve();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

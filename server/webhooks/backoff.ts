// When a failed delivery is tried again: exponential backoff with jitter.
//
// The step doubles with every failed attempt (base × 2^(attempt−1), capped), and the delay is drawn at random
// in the upper half of the step ("equal jitter"). After an outage every delivery to a receiver fails at about
// the same moment; without jitter all of their retries would arrive together again, a thundering herd hitting
// the receiver just as it recovers. The lower half stays empty so a retry never follows its failure at once.

/** No retry waits longer than this, however many attempts failed. */
export const MAX_RETRY_DELAY_MS = 15 * 60_000;

/** A number in [0, 1), like Math.random; injected so tests know the delay. */
export type Random = () => number;

/** The delay before the next attempt, counted from when `attempt` (1 for the first) failed. */
export function retryDelayMs(attempt: number, baseMs: number, random: Random = Math.random): number {
  const step = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + (step / 2) * random());
}

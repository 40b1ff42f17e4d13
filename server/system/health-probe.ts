// The database probe behind GET /healthz, shared by the health checks of one moment. A liveness check asks whether
// the process runs and its database answers; the checker (a load balancer, an orchestrator) asks every few seconds
// and gives each answer a timeout of seconds, so a probe sent at most PROBE_FRESH_MS before a check arrived tells it
// what a probe of its own would. Under load, the checks of a busy monitoring setup (or anyone's, /healthz needs no
// credentials) then cost one statement a second instead of one per turn of the event loop.
//
// What is shared is a probe that succeeded or is still under way. A failed probe is answered to the checks that
// joined it and forgotten: the next check probes again, so an outage shows on every check that follows it, and one
// that begins after a probe was sent shows at most PROBE_FRESH_MS later.

/** How old a probe may be when a check arrives and takes its answer. */
export const PROBE_FRESH_MS = 1000;

/**
 * `probe` run at most once per `freshMs` (by `now`, the service's clock) for the callers that ask meanwhile. A clock
 * set back makes the last probe look sent in the future: it is not shared then, and the next check probes.
 */
export function sharedProbe(
  probe: () => Promise<unknown>,
  now: () => Date,
  freshMs = PROBE_FRESH_MS,
): () => Promise<void> {
  let last: { sentAt: number; answered: Promise<void> } | null = null;
  return () => {
    const at = now().getTime();
    if (last && at >= last.sentAt && at - last.sentAt <= freshMs) return last.answered;
    const sent = {
      sentAt: at,
      answered: probe().then(
        () => undefined,
        (err: unknown) => {
          if (last === sent) last = null;
          throw err;
        },
      ),
    };
    last = sent;
    return sent.answered;
  };
}

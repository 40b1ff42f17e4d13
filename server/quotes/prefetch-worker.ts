// The prefetch worker: slices one claimed prefetch (docs/instant-price.md) and stores its slice, so the quotes
// that wait for it are answered from the cache. It stops when a quote needs its slot, its file is gone or its
// shopper session ended.
import type { Deps } from '../deps.ts';
import { PoolClosedError, PoolFullError } from '../slicer/index.ts';
import { deletePrefetch, type PrefetchRow, releasePrefetch, renewPrefetch } from './prefetch-sql.ts';
import type { WorkerContext } from './quote-worker.ts';
import { expectedWallSeconds } from './slice-cost.ts';
import { PrefetchPreemptedError } from './slice-step.ts';
import { sliceExpectation } from './time-left.ts';

/** A prefetch whose file was deleted, whose shopper session ended or that another worker took over. */
class PrefetchGoneError extends Error {}

export interface PrefetchContext extends WorkerContext {
  /** Prefetches running in this process, by slicing key: the ones a quote may preempt. */
  prefetching: Map<string, AbortController>;
  /** A slice was stored: the quotes of every process that wait for it look again. */
  wakeAll(): void;
}

export function prefetchWorker(
  deps: Pick<Deps, 'db' | 'metrics' | 'now'>,
  { owner, leaseMs, slice, fileOf, prefetching, wakeAll }: PrefetchContext,
) {
  /** Slices a prefetch and stores its slice; the quotes that wait for it are woken. */
  async function processPrefetch(p: PrefetchRow) {
    const ctrl = new AbortController();
    prefetching.set(p.slicing_key, ctrl);
    deps.metrics.prefetchesRunning.inc();
    // A shopper's quote may wait for this slice: it is told when the slice is expected to end (time-left.ts).
    const file = await fileOf(p.file_id);
    const expectation = sliceExpectation(await expectedWallSeconds(deps, { ...p, file }), () => deps.now().getTime());
    const beat = setInterval(
      async () => {
        const held = await renewPrefetch(
          deps.db,
          p.slicing_key,
          owner,
          leaseMs,
          deps.now(),
          expectation.doneAt(),
        ).catch(() => true);
        if (!held) ctrl.abort(new PrefetchGoneError());
      },
      // As often as a quote's: the time left told to a quote waiting for this slice follows it.
      Math.max(200, Math.min(1000, Math.floor(leaseMs / 3))),
    );
    try {
      const outcome = await slice(
        {
          ...p,
          file,
          backlog: 0,
          charge: { account_id: p.account_id, caller: p.caller ?? `acct:${p.account_id}`, kind: 'prefetch' },
        },
        ctrl.signal,
        expectation.onProgress,
      );
      deps.metrics.prefetches.inc({ outcome: outcome.cached ? 'cached' : 'sliced' });
      await deletePrefetch(deps.db, p.slicing_key);
      wakeAll();
    } catch (err) {
      const why = ctrl.signal.reason;
      if (why instanceof PrefetchPreemptedError) {
        deps.metrics.prefetches.inc({ outcome: 'preempted' });
        await releasePrefetch(deps.db, p.slicing_key, owner).catch(() => {});
      } else if (!(why instanceof PrefetchGoneError)) {
        // Failed or interrupted by shutdown: a failure is not retried (the shopper's own quote will say why).
        if (err instanceof PoolClosedError || err instanceof PoolFullError) return;
        deps.metrics.prefetches.inc({ outcome: 'failed' });
        await deletePrefetch(deps.db, p.slicing_key).catch(() => {});
      }
    } finally {
      clearInterval(beat);
      prefetching.delete(p.slicing_key);
      deps.metrics.prefetchesRunning.dec();
    }
  }

  return processPrefetch;
}

// The job worker: claims queued quotes (or ones whose worker died: lease expired) with FOR UPDATE SKIP LOCKED,
// most urgent first, slices them in the bounded pool (its normal slots, and its short lane for quotes predicted
// short), and records the outcome with its events. When no quote waits it slices prefetches
// (docs/instant-price.md), and a prefetch makes way for a quote that would otherwise wait for a slot. Any number
// of processes can run it against one database.
import { EventEmitter } from 'node:events';
import type { Queryable } from '../db/index.ts';
import { fileByIdAnyAccount } from '../files/index.ts';
import { newId } from '../ids.ts';
import { detectSlicer, type SlicePool } from '../slicer/index.ts';
import { isDeadOwnerHere, ownerFolderName } from '../storage/index.ts';
import { type AsideSlicer, asideSlicer } from './aside-slice.ts';
import { claimJob, type SlotRule } from './claim-sql.ts';
import { endFileWork, type FileChange } from './file-work.ts';
import { jobStatusChanged } from './finish.ts';
import { claimPrefetch } from './prefetch-sql.ts';
import { prefetchWorker } from './prefetch-worker.ts';
import { type QuoteWorkerPorts, quoteWorker } from './quote-worker.ts';
import { SHORT_SLICE_S } from './slice-cost.ts';
import { PrefetchPreemptedError, type SliceStepPorts, sliceStep } from './slice-step.ts';
import { leaseHolders, quoteStatus, releaseDeadOwner, releaseLeases, waitingKeys } from './sql.ts';

export { MAX_JOB_ATTEMPTS } from './quote-worker.ts';

const POLL_MS = 1000;
/** PostgreSQL NOTIFY channel on which a new job wakes every worker process. */
const JOBS_CHANNEL = 'slicequote_jobs';

export interface JobRunner {
  /**
   * New work was queued: claim it now rather than at the next poll. Resolves once this process has looked for it (a
   * claim round begun after the wake has ended), at once where this process claims nothing.
   */
  wake(): Promise<void>;
  /**
   * Resolves when the job has finished (completed or failed), or false after timeoutMs or once `signal` aborts (the
   * caller stopped waiting for another reason: its timers and poll end with it).
   */
  waitFor(id: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  start(): void;
  stop(): Promise<void>;
  /** The file was deleted or rescaled: its unfinished quotes and prefetches end, in the caller's transaction. */
  endFileWork(tx: Queryable, fileId: string, change: FileChange): Promise<number>;
  /** A slice outside the queue (the import check's reference part), in the same pool, charged to its caller. */
  sliceAside: AsideSlicer;
}

/** The runner is its workers and their slice step, and no more: it is built before the deps that hold it. */
type JobRunnerPorts = QuoteWorkerPorts & SliceStepPorts;

export function createJobRunner(deps: JobRunnerPorts, pool: SlicePool): JobRunner {
  // Names this process (pid, start time, host) so that the next start on this host can tell its leases are dead.
  const owner = `${ownerFolderName()}~${newId('w')}`;
  const finished = new EventEmitter();
  finished.setMaxListeners(0);
  const active = new Set<Promise<void>>();
  /** Prefetches running in this process, by slicing key: the ones a quote may preempt. */
  const prefetching = new Map<string, AbortController>();
  /**
   * The account of each quote this process slices: the rule of the last free slot. Prefetches are not counted:
   * they make way for any quote that needs their slot.
   */
  const holders = new Map<string, string>();
  /** Quotes this process slices in its short lane (docs/limits.md, "The short lane"). */
  const inLane = new Set<string>();
  const leaseMs = deps.config.jobLeaseMs;
  let running = false;
  let timer: NodeJS.Timeout | null = null;
  let pumping = false;
  let pumpAgain = false;
  /** Who waits for the round after the one under way (woken during it). */
  let nextRound: { done: Promise<void>; end(): void } | null = null;
  /** The claim round under way, which `stop` lets end before the database closes under it. */
  let round: Promise<void> = Promise.resolve();

  /**
   * A process of this host that was killed mid-slice left its jobs "processing" under a lease that runs on for up
   * to JOB_LEASE_MS: they are handed on now, their progress back to 0, instead of when the lease runs out.
   */
  async function releaseDeadOwners() {
    try {
      for (const holder of await leaseHolders(deps.db)) {
        if (!isDeadOwnerHere(holder.split('~')[0]!)) continue;
        const released = await releaseDeadOwner(deps.db, holder);
        if (released) deps.log.info(`jobs: ${released} job(s) of a stopped process on this host are queued again`);
      }
    } catch (err) {
      deps.log.error('jobs: could not release the leases of stopped processes; they pass on when they run out', err);
    }
  }

  /** Claims the next quote by fair share (claim-sql.ts) for a normal slot, or for the short lane. */
  async function claim(rule: SlotRule) {
    return deps.db.transaction(async (tx) => {
      const claimed = await claimJob(tx, owner, leaseMs, rule, [...holders.keys(), ...inLane]);
      if (claimed && claimed.previous_status === 'queued') await jobStatusChanged(tx, claimed, 'queued', deps.now());
      return claimed;
    });
  }

  /** Slices in normal slots: quotes and prefetches, not the short lane's. */
  const inNormalSlots = () => active.size - inLane.size;

  async function pump(): Promise<void> {
    if (!running) return endNextRound();
    if (pumping) {
      pumpAgain = true; // a wake-up during a claim round that may already have looked: look once more after it
      nextRound ??= roundToCome();
      return nextRound.done;
    }
    pumping = true;
    pumpAgain = false;
    const awaited = nextRound;
    nextRound = null;
    round = claimRound();
    await round;
    awaited?.end();
    if (pumpAgain) void pump();
  }

  function roundToCome() {
    let end = () => {};
    const done = new Promise<void>((resolve) => {
      end = resolve;
    });
    return { done, end };
  }

  /** Stopped: nobody waits for a round that will not come. */
  function endNextRound() {
    nextRound?.end();
    nextRound = null;
  }

  async function claimRound() {
    try {
      await makeWayForQuotes();
      await fillNormalSlots();
      // Beyond the normal slots, the short lane: a quote predicted short starts whoever holds them.
      while (running && inLane.size < deps.config.slicerShortLane) {
        const job = await claim({ lastSlot: false, heldAccounts: [], shortLaneS: SHORT_SLICE_S });
        if (!job) break;
        deps.events.wake();
        inLane.add(job.id);
        track(runQuote({ ...job, lane: 'short' }), job.id);
      }
    } catch (err) {
      deps.log.error('job runner: claim failed', err);
    } finally {
      pumping = false;
    }
  }

  async function fillNormalSlots() {
    const slots = deps.config.slicerConcurrency;
    while (running && inNormalSlots() < slots) {
      const rule = {
        lastSlot: slots > 1 && inNormalSlots() === slots - 1,
        heldAccounts: [...new Set(holders.values())],
      };
      const job = await claim(rule);
      if (job) {
        deps.events.wake();
        holders.set(job.id, job.account_id);
        track(runQuote(job), job.id);
        continue;
      }
      // Prefetches only while no quote waits (not even for a slice being made: it would share the cores), and
      // always leaving a slot for the next quote.
      if (prefetching.size >= Math.max(1, deps.config.slicerConcurrency - 1)) break;
      if ((await waitingKeys(deps.db)).length) break;
      const prefetch = await claimPrefetch(deps.db, owner, leaseMs, deps.now());
      if (!prefetch) break;
      track(runPrefetch(prefetch), null);
    }
  }

  /** The file to slice (undefined when it is gone: the slice then fails on its own). */
  const fileOf = (fileId: string) => fileByIdAnyAccount(deps.db, fileId).catch(() => undefined);
  const context = { owner, leaseMs, slice: sliceStep(deps, pool), fileOf };
  const runQuote = quoteWorker(deps, context);
  const runPrefetch = prefetchWorker(deps, { ...context, prefetching, wakeAll });

  function track(work: Promise<void>, jobId: string | null) {
    const tracked = work.finally(() => {
      active.delete(tracked);
      if (jobId) {
        holders.delete(jobId);
        inLane.delete(jobId);
        finished.emit(jobId);
      }
      void pump();
    });
    active.add(tracked);
  }

  /**
   * A quote never waits behind prefetch work: when a quote is queued, the prefetches it does not wait for stop and
   * go back to the queue if every slot is busy or if the quote waits for another prefetch's slice.
   */
  async function makeWayForQuotes() {
    if (prefetching.size === 0) return;
    const waiting = new Set(await waitingKeys(deps.db));
    if (!waiting.size) return;
    // A quote waiting for a prefetch's slice lets it finish; the others stop so as not to share the cores with it.
    const awaited = [...prefetching.keys()].some((key) => waiting.has(key));
    for (const [key, ctrl] of prefetching) {
      if (waiting.has(key)) continue;
      if (awaited || inNormalSlots() >= deps.config.slicerConcurrency) ctrl.abort(new PrefetchPreemptedError());
    }
  }

  function wakeAll() {
    deps.db.notify(JOBS_CHANNEL).catch((err) => deps.log.error('jobs: could not notify the other workers', err));
    return pump();
  }

  return {
    // Workers in other processes (WORKER_ROLE=worker, other hosts) start the job at once rather than at their next
    // poll.
    wake: wakeAll,
    endFileWork: (tx, fileId, change) => endFileWork(tx, fileId, change, deps.now()),
    sliceAside: asideSlicer(deps, pool),
    async waitFor(id, timeoutMs, signal) {
      const isDone = async () => ['completed', 'failed'].includes((await quoteStatus(deps.db, id)) ?? '');
      if (await isDone()) return true;
      return new Promise<boolean>((resolve) => {
        let settled = false;
        const settle = (v: boolean) => {
          if (settled) return;
          settled = true;
          clearTimeout(deadline);
          clearInterval(poll);
          finished.off(id, onFinished);
          signal?.removeEventListener('abort', onAbort);
          resolve(v);
        };
        const onFinished = () => settle(true);
        const onAbort = () => settle(false);
        finished.on(id, onFinished);
        // Another process may be the one slicing it: look at the row now and then too.
        const poll = setInterval(async () => (await isDone().catch(() => false)) && settle(true), 500);
        const deadline = setTimeout(() => settle(false), timeoutMs);
        if (signal?.aborted) settle(false);
        else signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    start() {
      if (running || deps.config.workerRole === 'api') return;
      running = true;
      // The slicer's version names every slice: asked now (PrusaSlicer's --help takes a few hundred ms), not by the
      // first upload's prefetch with its shopper waiting. A slicer missing now is looked for again when needed.
      detectSlicer(deps.config.slicerBinary).catch(() => {});
      void releaseDeadOwners().then(() => pump());
      timer = setInterval(() => void pump(), POLL_MS);
      deps.db
        .listen(JOBS_CHANNEL, () => void pump())
        .catch((err) => deps.log.error('jobs: cannot listen for new jobs; polling only', err));
      void pump();
    },
    async stop() {
      running = false;
      if (timer) clearInterval(timer);
      await round;
      endNextRound();
      await pool.close();
      await Promise.allSettled([...active]);
      // The slices were stopped: hand their jobs to the other workers now rather than when the leases run out.
      const released = await releaseLeases(deps.db, owner).catch((err) => {
        deps.log.error('jobs: could not hand back the leases on stop; they pass on when they run out', err);
        return 0;
      });
      if (released) {
        deps.log.info(`jobs: handed back ${released} job(s) on stop`);
        await deps.db.notify(JOBS_CHANNEL).catch(() => {}); // the other workers take them now
      }
    },
  };
}

declare module '../deps.ts' {
  interface Deps {
    /** Claims and runs quote jobs (in-process worker). */
    jobs: JobRunner;
  }
}

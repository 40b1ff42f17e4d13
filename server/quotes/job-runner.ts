// The job worker: claims queued quotes (or ones whose worker died: lease expired) with
// FOR UPDATE SKIP LOCKED, most urgent first, slices them in the bounded pool, and records the outcome with its
// events. When no quote waits it slices prefetches (docs/instant-price.md), and a prefetch makes way for a quote
// that would otherwise wait for a slot. Any number of processes can run it against one database.
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { existsSync } from 'node:fs';
import type { Deps } from '../deps.ts';
import type { Queryable } from '../db/index.ts';
import { renewLease, sliceByKey, insertSlice, quoteStatus, releaseLeases, waitingKeys, type QuoteRow } from './sql.ts';
import { claimJob } from './claim-sql.ts';
import { endFileWork, type FileChange } from './file-work.ts';
import { referenceCost, sliceNiceness, sliceTimeoutMs } from './slice-cost.ts';
import { chargeSlicerTime, type SliceOutcome } from '../limits/slicer-time.ts';
import type { FileRow } from '../files/sql.ts';
import { claimPrefetch, deletePrefetch, releasePrefetch, renewPrefetch, type PrefetchRow } from './prefetch-sql.ts';
import type { StoredResolution } from './service.ts';
import { fileByIdAnyAccount } from '../files/sql.ts';
import { finishQuote, failJob, buildResult, jobStatusChanged, LeaseLostError } from './service.ts';
import {
  SliceFailedError,
  SliceTimeoutError,
  PoolFullError,
  PoolClosedError,
  SliceAbortedError,
} from '../slicer/errors.ts';
import type { SlicePool } from '../slicer/pool.ts';
import type { SliceMeasure } from '../slicer/gcode-stats.ts';
import type { SliceProgress } from '../slicer/engine.ts';
import { newId } from '../ids.ts';
import { ApiError } from '../http/errors.ts';

export const MAX_JOB_ATTEMPTS = 3;
const POLL_MS = 1000;
/** PostgreSQL NOTIFY channel on which a new job wakes every worker process. */
const JOBS_CHANNEL = 'slicequote_jobs';

export interface JobRunner {
  /** New work was queued: claim it now rather than at the next poll. */
  wake(): void;
  /** Resolves when the job has finished (completed or failed), or false after timeoutMs. */
  waitFor(id: string, timeoutMs: number): Promise<boolean>;
  start(): void;
  stop(): Promise<void>;
  /** The file was deleted or rescaled: its unfinished quotes and prefetches end, in the caller's transaction. */
  endFileWork(tx: Queryable, fileId: string, change: FileChange): Promise<number>;
}

type JobError = { code: string; message: string; status: number };

function describeFailure(err: unknown): JobError {
  if (err instanceof SliceTimeoutError)
    return { code: 'slice_timeout', message: `The model is too complex: ${err.message}.`, status: 422 };
  if (err instanceof SliceFailedError) {
    const status = err.code === 'slicer_unavailable' ? 503 : 422;
    return { code: err.code, message: err.message, status };
  }
  if (err instanceof ApiError) return { code: err.code, message: err.message, status: err.status };
  return {
    code: 'internal_error',
    message: 'The quote could not be computed because of a server error; it was logged.',
    status: 500,
  };
}

/** A prefetch stopped to make way for a quote; it goes back to the queue. */
class PrefetchPreemptedError extends Error {}
/** A prefetch whose file was deleted, whose shopper session ended or that another worker took over. */
class PrefetchGoneError extends Error {}

export function createJobRunner(deps: Omit<Deps, 'jobs'>, pool: SlicePool): JobRunner {
  const owner = newId(
    `w_${hostname()
      .replace(/[^a-z0-9]/gi, '')
      .slice(0, 12)
      .toLowerCase()}`,
  );
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
  const leaseMs = deps.config.jobLeaseMs;
  let running = false;
  let timer: NodeJS.Timeout | null = null;
  let pumping = false;
  let pumpAgain = false;

  async function pump() {
    if (!running) return;
    if (pumping) {
      pumpAgain = true; // a wake-up during a claim round that may already have looked: look once more after it
      return;
    }
    pumping = true;
    pumpAgain = false;
    try {
      await makeWayForQuotes();
      const slots = deps.config.slicerConcurrency;
      while (running && active.size < slots) {
        const rule = {
          lastSlot: slots > 1 && active.size === slots - 1,
          heldAccounts: [...new Set(holders.values())],
        };
        const job = await deps.db.transaction(async (tx) => {
          const claimed = await claimJob(tx, owner, leaseMs, rule);
          if (claimed && claimed.previous_status === 'queued') await jobStatusChanged(tx, claimed, 'queued');
          return claimed;
        });
        if (job) {
          deps.events.wake();
          holders.set(job.id, job.account_id);
          track(process(job), job.id);
          continue;
        }
        // Prefetches only while no quote waits (not even for a slice being made: it would share the cores), and
        // always leaving a slot for the next quote.
        if (prefetching.size >= Math.max(1, deps.config.slicerConcurrency - 1)) break;
        if ((await waitingKeys(deps.db)).length) break;
        const prefetch = await claimPrefetch(deps.db, owner, leaseMs, deps.now());
        if (!prefetch) break;
        track(processPrefetch(prefetch), null);
      }
    } catch (err) {
      deps.log.error('job runner: claim failed', err);
    } finally {
      pumping = false;
    }
    if (pumpAgain) void pump();
  }

  /** The file to slice (undefined when it is gone: the slice then fails on its own). */
  const fileOf = (fileId: string) => fileByIdAnyAccount(deps.db, fileId).catch(() => undefined);

  function track(work: Promise<void>, jobId: string | null) {
    const tracked = work.finally(() => {
      active.delete(tracked);
      if (jobId) {
        holders.delete(jobId);
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
      if (awaited || active.size >= deps.config.slicerConcurrency) ctrl.abort(new PrefetchPreemptedError());
    }
  }

  /** What a slice is for and who pays for it (docs/limits.md, "Slicer time"). */
  interface SliceTarget {
    file_id: string;
    slicing_key: string;
    resolved: StoredResolution;
    file: FileRow | undefined;
    predicted_s: number | null;
    /** More quotes of the same account waiting when this one was claimed: bulk work (see sliceNiceness). */
    backlog: number;
    charge: { account_id: string; caller: string; kind: 'quote' | 'prefetch' };
  }

  async function slice(
    target: SliceTarget,
    signal: AbortSignal,
    onProgress?: (progress: SliceProgress) => void,
  ): Promise<{
    stats: SliceMeasure;
    slice: { slicer: string; slicer_version: string; duration_ms: number };
    cached: boolean;
  }> {
    const hit = await sliceByKey(deps.db, target.slicing_key);
    if (hit) return { stats: hit.stats, slice: hit, cached: true };
    await deps.storage.ensureLocal(target.file_id).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    const meshPath = deps.storage.canonicalPath(target.file_id);
    if (!existsSync(meshPath))
      throw new SliceFailedError('The model file was deleted before it could be sliced.', 'slice_failed');
    const { settings, placement } = target.resolved;
    const timeoutMs = sliceTimeoutMs(target.predicted_s, deps.config.slicerTimeoutMs);
    const niceness = sliceNiceness(target.charge.kind, target.predicted_s, target.backlog);
    const started = performance.now();
    const charge = (outcome: SliceOutcome | null) => chargeFor(target, outcome, (performance.now() - started) / 1000);
    let out: Awaited<ReturnType<SlicePool['slice']>>;
    try {
      out = await timedSlice(() =>
        pool.slice(
          { meshPath, settings, transform: placement?.transform ?? undefined, onProgress, timeoutMs, niceness },
          signal,
        ),
      );
    } catch (err) {
      await charge(outcomeOf(err, signal));
      throw err;
    }
    await charge('ok');
    const row = {
      key: target.slicing_key,
      stats: out.stats,
      slicer: out.slicer.name,
      slicer_version: out.slicer.version,
      duration_ms: out.durationMs,
    };
    await insertSlice(deps.db, row);
    return { stats: out.stats, slice: row, cached: false };
  }

  /**
   * Charges the seconds a slice ran to its caller, whatever the outcome; not a prefetch stopped to make way for a
   * quote, nor a slice stopped by this process shutting down (neither is the caller's doing).
   */
  async function chargeFor(target: SliceTarget, outcome: SliceOutcome | null, seconds: number) {
    if (outcome === null || seconds <= 0) return;
    const { placement, settings } = target.resolved;
    const reference =
      target.file && placement?.placement ? referenceCost(target.file, placement.placement, settings) : null;
    await chargeSlicerTime(deps.db, {
      ...target.charge,
      outcome,
      seconds: Math.round(seconds * 100) / 100,
      reference_s: outcome === 'ok' ? reference : null,
      at: deps.now(),
    }).catch((err) => deps.log.error('jobs: could not record slicer time', err));
  }

  /** Runs a slice and records its duration and outcome (an aborted slice, handed to another worker, is not one). */
  async function timedSlice<T>(run: () => Promise<T>): Promise<T> {
    const stop = deps.metrics.slices.startTimer();
    try {
      const out = await run();
      stop({ outcome: 'ok' });
      return out;
    } catch (err) {
      if (err instanceof SliceTimeoutError) stop({ outcome: 'timeout' });
      else if (err instanceof SliceFailedError) stop({ outcome: 'failed' });
      throw err;
    }
  }

  /**
   * Keeps the lease alive and reports progress: the slicer's own stage and percentage, and when the slice is
   * expected to end (the cost model's prediction, docs/limits.md). Aborts the slice if another worker took the
   * job over, or the quote ended meanwhile (its file deleted or rescaled, the shopper asked for another).
   */
  function heartbeat(job: QuoteRow, ctrl: AbortController) {
    const started = deps.now().getTime();
    const expectedMs = Math.max(1000, (job.predicted_s ?? 10) * 1000);
    let reported: SliceProgress | null = null;
    const beat = setInterval(
      async () => {
        const elapsed = deps.now().getTime() - started;
        const byTime = Math.min(95, 5 + Math.round((90 * elapsed) / expectedMs));
        const percent = Math.min(95, Math.max(byTime, reported?.percent ?? 0));
        const expectedDoneAt = new Date(started + Math.max(expectedMs, elapsed + 500));
        const progress = { percent, stage: reported?.stage ?? null, expectedDoneAt };
        const held = await renewLease(deps.db, job.id, owner, leaseMs, progress).catch(() => true);
        if (!held) ctrl.abort(new LeaseLostError(job.id));
      },
      Math.max(200, Math.min(1000, Math.floor(leaseMs / 3))),
    );
    return { beat, onProgress: (p: SliceProgress) => (reported = p) };
  }

  function outcomeOf(err: unknown, signal: AbortSignal): SliceOutcome | null {
    if (err instanceof SliceTimeoutError) return 'timeout';
    if (err instanceof SliceFailedError) return 'failed';
    if (err instanceof PoolClosedError || err instanceof PoolFullError) return null;
    if (signal.reason instanceof PrefetchPreemptedError) return null;
    return 'stopped';
  }

  async function process(job: QuoteRow & { backlog?: number }) {
    if (job.attempts > MAX_JOB_ATTEMPTS) {
      return record(job, (tx) =>
        failJob(tx, job, owner, {
          code: 'worker_lost',
          message: `The quote was interrupted ${MAX_JOB_ATTEMPTS} times and was given up.`,
          status: 500,
        }),
      );
    }
    const ctrl = new AbortController();
    const { beat, onProgress } = heartbeat(job, ctrl);
    try {
      const outcome = await slice(
        {
          ...job,
          slicing_key: job.slicing_key!,
          resolved: job.resolved!,
          file: await fileOf(job.file_id),
          backlog: job.backlog ?? 0,
          charge: { account_id: job.account_id, caller: job.caller ?? `acct:${job.account_id}`, kind: 'quote' },
        },
        ctrl.signal,
        onProgress,
      );
      if (job.mode === 'async') deps.metrics.sliceCache.inc({ result: outcome.cached ? 'hit' : 'miss' }); // sync: at request
      buildResult(job, outcome); // pricing may refuse (price_out_of_range): the job then fails below, not retries
      await record(job, async (tx) => {
        const done = await finishQuote(tx, deps as Deps, job, owner, outcome);
        await jobStatusChanged(tx, done, 'processing');
      });
    } catch (err) {
      if (ctrl.signal.aborted || err instanceof LeaseLostError) return; // another worker owns it now
      // Shutting down, or the pool is full: the job stays claimed and its lease expiry hands it to a worker again.
      if (err instanceof PoolFullError || err instanceof PoolClosedError || err instanceof SliceAbortedError) return;
      // Slicer refusals and priced refusals (ApiError) are the job's outcome, not a server fault.
      if (!(err instanceof SliceFailedError || err instanceof SliceTimeoutError || err instanceof ApiError))
        deps.log.error(`job ${job.id} failed`, err);
      await record(job, (tx) => failJob(tx, job, owner, describeFailure(err)));
    } finally {
      clearInterval(beat);
    }
  }

  /** Slices a prefetch and stores its slice; the quotes that wait for it are woken. */
  async function processPrefetch(p: PrefetchRow) {
    const ctrl = new AbortController();
    prefetching.set(p.slicing_key, ctrl);
    deps.metrics.prefetchesRunning.inc();
    const beat = setInterval(
      async () => {
        const held = await renewPrefetch(deps.db, p.slicing_key, owner, leaseMs, deps.now()).catch(() => true);
        if (!held) ctrl.abort(new PrefetchGoneError());
      },
      Math.max(200, Math.floor(leaseMs / 3)),
    );
    try {
      const outcome = await slice(
        {
          ...p,
          file: await fileOf(p.file_id),
          backlog: 0,
          charge: { account_id: p.account_id, caller: p.caller ?? `acct:${p.account_id}`, kind: 'prefetch' },
        },
        ctrl.signal,
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

  function wakeAll() {
    void pump();
    deps.db.notify(JOBS_CHANNEL).catch((err) => deps.log.error('jobs: could not notify the other workers', err));
  }

  async function record(job: QuoteRow, write: (tx: Queryable) => Promise<unknown>) {
    try {
      await deps.db.transaction(write);
      deps.events.wake();
    } catch (err) {
      if (!(err instanceof LeaseLostError)) deps.log.error(`job ${job.id}: could not record the outcome`, err);
    }
  }

  return {
    // Workers in other processes (WORKER_ROLE=worker, other hosts) start the job at once rather than at their next
    // poll.
    wake: wakeAll,
    endFileWork,
    async waitFor(id, timeoutMs) {
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
          resolve(v);
        };
        const onFinished = () => settle(true);
        finished.on(id, onFinished);
        // Another process may be the one slicing it: look at the row now and then too.
        const poll = setInterval(async () => (await isDone().catch(() => false)) && settle(true), 500);
        const deadline = setTimeout(() => settle(false), timeoutMs);
      });
    },
    start() {
      if (running || deps.config.workerRole === 'api') return;
      running = true;
      timer = setInterval(() => void pump(), POLL_MS);
      deps.db
        .listen(JOBS_CHANNEL, () => void pump())
        .catch((err) => deps.log.error('jobs: cannot listen for new jobs; polling only', err));
      void pump();
    },
    async stop() {
      running = false;
      if (timer) clearInterval(timer);
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

// The job worker: claims queued quotes (or ones whose worker died: lease expired) with
// FOR UPDATE SKIP LOCKED, slices them in the bounded pool, and records the outcome with its events.
// Any number of processes can run it against one database.
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { existsSync } from 'node:fs';
import type { Deps } from '../deps.ts';
import type { Queryable } from '../db/index.ts';
import { claimJob, renewLease, sliceByKey, insertSlice, quoteStatus, releaseLeases, type QuoteRow } from './sql.ts';
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
      while (running && active.size < deps.config.slicerConcurrency) {
        const job = await deps.db.transaction(async (tx) => {
          const claimed = await claimJob(tx, owner, leaseMs);
          if (claimed && claimed.previous_status === 'queued') await jobStatusChanged(tx, claimed, 'queued');
          return claimed;
        });
        if (!job) break;
        deps.events.wake();
        const work = process(job).finally(() => {
          active.delete(work);
          finished.emit(job.id);
          void pump();
        });
        active.add(work);
      }
    } catch (err) {
      deps.log.error('job runner: claim failed', err);
    } finally {
      pumping = false;
    }
    if (pumpAgain) void pump();
  }

  async function slice(
    job: QuoteRow,
    signal: AbortSignal,
  ): Promise<{
    stats: SliceMeasure;
    slice: { slicer: string; slicer_version: string; duration_ms: number };
    cached: boolean;
  }> {
    const hit = await sliceByKey(deps.db, job.slicing_key!);
    if (job.mode === 'async') deps.metrics.sliceCache.inc({ result: hit ? 'hit' : 'miss' }); // sync: counted at request
    if (hit) return { stats: hit.stats, slice: hit, cached: true };
    await deps.storage.ensureLocal(job.file_id).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    const meshPath = deps.storage.canonicalPath(job.file_id);
    if (!existsSync(meshPath))
      throw new SliceFailedError('The model file was deleted before it could be sliced.', 'slice_failed');
    const { settings, placement } = job.resolved!;
    const out = await timedSlice(() =>
      pool.slice({ meshPath, settings, transform: placement?.transform ?? undefined }, signal),
    );
    const row = {
      key: job.slicing_key!,
      stats: out.stats,
      slicer: out.slicer.name,
      slicer_version: out.slicer.version,
      duration_ms: out.durationMs,
    };
    await insertSlice(deps.db, row);
    return { stats: out.stats, slice: row, cached: false };
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

  /** Keeps the lease alive and reports estimated progress; aborts the slice if another worker took over. */
  function heartbeat(job: QuoteRow, ctrl: AbortController) {
    const started = Date.now();
    const expected = Math.max(2000, pool.stats().avgSliceMs || 10_000);
    return setInterval(
      async () => {
        const progress = Math.min(95, 5 + Math.round((90 * (Date.now() - started)) / expected));
        const held = await renewLease(deps.db, job.id, owner, leaseMs, progress).catch(() => true);
        if (!held) ctrl.abort(new LeaseLostError(job.id));
      },
      Math.max(200, Math.floor(leaseMs / 3)),
    );
  }

  async function process(job: QuoteRow) {
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
    const beat = heartbeat(job, ctrl);
    try {
      const outcome = await slice(job, ctrl.signal);
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

  async function record(job: QuoteRow, write: (tx: Queryable) => Promise<unknown>) {
    try {
      await deps.db.transaction(write);
      deps.events.wake();
    } catch (err) {
      if (!(err instanceof LeaseLostError)) deps.log.error(`job ${job.id}: could not record the outcome`, err);
    }
  }

  return {
    wake() {
      void pump();
      // Workers in other processes (WORKER_ROLE=worker, other hosts) start the job at once rather than at their
      // next poll.
      deps.db.notify(JOBS_CHANNEL).catch((err) => deps.log.error('jobs: could not notify the other workers', err));
    },
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

// The quote worker: slices one claimed quote job while keeping its lease and reporting progress, then completes
// it (or fails it) with its events in one transaction. A job another worker took over is left to that worker.

import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import type { FileRow } from '../files/index.ts';
import { ApiError } from '../http/index.ts';
import type { SliceLane, SliceProgress } from '../slicer/index.ts';
import {
  PoolClosedError,
  PoolFullError,
  ShortLaneOutgrownError,
  SliceAbortedError,
  SliceFailedError,
  SliceTimeoutError,
} from '../slicer/index.ts';
import { buildResult, failJob, finishQuote, jobStatusChanged, LeaseLostError } from './finish.ts';
import { expectedWallSeconds } from './slice-cost.ts';
import type { SliceStep } from './slice-step.ts';
import { handBackOutgrown, type QuoteRow, renewLease } from './sql.ts';
import { sliceExpectation } from './time-left.ts';

export const MAX_JOB_ATTEMPTS = 3;

/** What the runner hands its workers: who holds the leases, for how long, the slice step, the file to slice. */
export interface WorkerContext {
  owner: string;
  leaseMs: number;
  slice: SliceStep;
  /** The file to slice (undefined when it is gone: the slice then fails on its own). */
  fileOf(fileId: string): Promise<FileRow | undefined>;
}

/** A worker claims and finishes quotes (their plans' allowances, the clock, the metrics and the events they write). */
export type QuoteWorkerPorts = Pick<Deps, 'db' | 'plans' | 'log' | 'now' | 'metrics' | 'events'>;

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

/** Runs one claimed quote job to its end. */
export function quoteWorker(deps: QuoteWorkerPorts, { owner, leaseMs, slice, fileOf }: WorkerContext) {
  /**
   * Keeps the lease alive and reports progress: the slicer's own stage and percentage, and when the slice is
   * expected to end (its predicted cost in this host's clock seconds, slice-cost.ts, re-estimated as the slicer
   * reaches its stages: time-left.ts). Aborts the slice if another worker took the job over, or the quote ended
   * meanwhile (its file deleted or rescaled, the shopper asked for another).
   */
  function heartbeat(job: QuoteRow, expectedS: number | null, ctrl: AbortController) {
    const started = deps.now().getTime();
    const expectation = sliceExpectation(expectedS, () => deps.now().getTime());
    let reported: SliceProgress | null = null;
    const beat = setInterval(
      async () => {
        const elapsed = deps.now().getTime() - started;
        const byTime = Math.min(95, 5 + Math.round((90 * elapsed) / expectation.expectedMs()));
        const percent = Math.min(95, Math.max(byTime, reported?.percent ?? 0));
        const expectedDoneAt = expectation.doneAt();
        const progress = { percent, stage: reported?.stage ?? null, expectedDoneAt, slower: expectation.slower() };
        const held = await renewLease(deps.db, job.id, owner, leaseMs, progress).catch(() => true);
        if (!held) ctrl.abort(new LeaseLostError(job.id));
      },
      Math.max(200, Math.min(1000, Math.floor(leaseMs / 3))),
    );
    const onProgress = (p: SliceProgress) => {
      expectation.onProgress(p);
      reported = p;
    };
    return { beat, onProgress };
  }

  async function process(job: QuoteRow & { backlog?: number; lane?: SliceLane }) {
    if (job.attempts > MAX_JOB_ATTEMPTS) {
      return record(job, (tx) =>
        failJob(
          tx,
          job,
          owner,
          {
            code: 'worker_lost',
            message: `The quote was interrupted ${MAX_JOB_ATTEMPTS} times and was given up.`,
            status: 500,
          },
          deps.now(),
        ),
      );
    }
    const ctrl = new AbortController();
    const file = await fileOf(job.file_id);
    const { beat, onProgress } = heartbeat(job, await expectedWallSeconds(deps, { ...job, file }), ctrl);
    try {
      const outcome = await slice(
        {
          ...job,
          slicing_key: job.slicing_key!,
          resolved: job.resolved!,
          file,
          backlog: job.backlog ?? 0,
          lane: job.lane,
          charge: { account_id: job.account_id, caller: job.caller ?? `acct:${job.account_id}`, kind: 'quote' },
        },
        ctrl.signal,
        onProgress,
      );
      if (job.mode === 'async') deps.metrics.sliceCache.inc({ result: outcome.cached ? 'hit' : 'miss' }); // sync: at request
      buildResult(job, outcome, deps.now()); // pricing may refuse (price_out_of_range): the job then fails below, not retries
      await record(job, async (tx) => {
        const done = await finishQuote(tx, deps, job, owner, outcome);
        await jobStatusChanged(tx, done, 'processing', deps.now());
      });
    } catch (err) {
      if (ctrl.signal.aborted || err instanceof LeaseLostError) return; // another worker owns it now
      // It outgrew the short lane: a normal slot slices it again (the runner claims it as soon as this returns).
      if (err instanceof ShortLaneOutgrownError) {
        await handBackOutgrown(deps.db, job.id, owner).catch((e) => deps.log.error(`job ${job.id}: hand-back`, e));
        return;
      }
      // Shutting down, or the pool is full: the job stays claimed and its lease expiry hands it to a worker again.
      if (err instanceof PoolFullError || err instanceof PoolClosedError || err instanceof SliceAbortedError) return;
      // Slicer refusals and priced refusals (ApiError) are the job's outcome, not a server fault.
      if (!(err instanceof SliceFailedError || err instanceof SliceTimeoutError || err instanceof ApiError))
        deps.log.error(`job ${job.id} failed`, err);
      await record(job, (tx) => failJob(tx, job, owner, describeFailure(err), deps.now()));
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

  return process;
}

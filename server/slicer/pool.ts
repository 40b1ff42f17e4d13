// Bounds concurrent slices (PrusaSlicer is CPU-bound: one per core by default) behind a bounded FIFO queue.
// A full queue refuses at once (PoolFullError -> 503 + Retry-After) rather than letting latency grow unbounded.
// Created once per process, it first sweeps the work folders (and slicers) that killed processes left behind.
import { availableParallelism, tmpdir } from 'node:os';
import type { ResolvedSettings } from '../../shared/settings.ts';
import {
  sliceOnce,
  DEFAULT_BINARY,
  DEFAULT_TIMEOUT_MS,
  type SliceOutcome,
  type SliceProgress,
  type SliceTransform,
} from './engine.ts';
import { PoolClosedError, PoolFullError, SliceAbortedError, SliceTimeoutError } from './errors.ts';
import { sweepWorkDirs, type SweepReport } from './workdirs.ts';

export interface SlicePoolOptions {
  size?: number;
  maxQueue?: number;
  /** The most CPU time any slice may use, ms (SLICER_TIMEOUT_MS). */
  timeoutMs?: number;
  binary?: string;
  tmpRoot?: string;
}

export interface SliceRequest {
  meshPath: string;
  settings: ResolvedSettings;
  transform?: SliceTransform;
  onProgress?: (progress: SliceProgress) => void;
  /** This slice's own CPU-time limit (its predicted cost decides it); at most the pool's. */
  timeoutMs?: number;
  /** Called once the slicer process has ended with the CPU ms it used (null without /proc); not if it never ran. */
  onCpuTime?: (ms: number | null) => void;
  /** Scheduling niceness of the slicer process (see SliceOnceOptions). */
  niceness?: number;
}

export interface SlicePoolStats {
  size: number;
  running: number;
  queued: number;
  maxQueue: number;
  completed: number;
  failed: number;
  timedOut: number;
  rejected: number;
  /** Mean duration of recent successful slices, ms (0 before the first). */
  avgSliceMs: number;
}

export interface SlicePool {
  slice(req: SliceRequest, signal?: AbortSignal): Promise<SliceOutcome>;
  stats(): SlicePoolStats;
  /** Refuses queued work, kills running slices, resolves when they have exited and cleaned up. */
  close(): Promise<void>;
  /** The start-up sweep of dead processes' work folders under tmpRoot (it runs beside the first slices). */
  swept: Promise<SweepReport>;
}

interface Waiter {
  start: () => void;
  fail: (e: Error) => void;
}

export function createSlicePool(opts: SlicePoolOptions = {}): SlicePool {
  const size = Math.max(1, opts.size ?? availableParallelism());
  const maxQueue = Math.max(0, opts.maxQueue ?? size * 4);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const binary = opts.binary ?? DEFAULT_BINARY;
  const queue: Waiter[] = [];
  const running = new Set<{ ctrl: AbortController; done: Promise<unknown> }>();
  const counts = { completed: 0, failed: 0, timedOut: 0, rejected: 0 };
  let avgSliceMs = 0;
  let closed = false;
  // Slots are counted when granted, not when the slice starts, so no caller can slip in between.
  let slotsUsed = 0;
  // Only dead owners' folders are touched, so slices of this process need not wait for it.
  const swept = sweepWorkDirs(opts.tmpRoot ?? tmpdir());

  const retryAfter = (): number => Math.max(1, Math.ceil(((avgSliceMs || 10_000) * (queue.length / size + 1)) / 1000));

  function waitForSlot(signal?: AbortSignal): Promise<void> {
    if (slotsUsed < size && queue.length === 0) {
      slotsUsed++;
      return Promise.resolve();
    }
    if (queue.length >= maxQueue) {
      counts.rejected++;
      return Promise.reject(new PoolFullError(retryAfter()));
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        queue.splice(queue.indexOf(w), 1);
        reject(new SliceAbortedError(signal?.reason));
      };
      const w: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, // inherits the releaser's slot
        fail: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(w);
    });
  }

  async function run(req: SliceRequest, signal?: AbortSignal): Promise<SliceOutcome> {
    const ctrl = new AbortController();
    const onAbort = () => ctrl.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const limit = Math.min(timeoutMs, req.timeoutMs ?? timeoutMs);
    const work = sliceOnce({ ...req, binary, timeoutMs: limit, tmpRoot: opts.tmpRoot, signal: ctrl.signal });
    const entry = { ctrl, done: work.catch(() => undefined) };
    running.add(entry);
    try {
      const out = await work;
      counts.completed++;
      avgSliceMs = avgSliceMs ? avgSliceMs * 0.8 + out.durationMs * 0.2 : out.durationMs;
      return out;
    } catch (e) {
      if (e instanceof SliceTimeoutError) counts.timedOut++;
      else counts.failed++;
      throw e;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      running.delete(entry);
      releaseSlot();
    }
  }

  function releaseSlot(): void {
    const next = closed ? undefined : queue.shift();
    if (next) next.start();
    else slotsUsed--;
  }

  return {
    async slice(req, signal) {
      if (closed) throw new PoolClosedError();
      if (signal?.aborted) throw new SliceAbortedError(signal.reason);
      await waitForSlot(signal);
      if (closed || signal?.aborted) {
        releaseSlot();
        throw closed ? new PoolClosedError() : new SliceAbortedError(signal?.reason);
      }
      return run(req, signal);
    },
    swept,
    stats: () => ({
      size,
      running: running.size,
      queued: queue.length,
      maxQueue,
      ...counts,
      avgSliceMs: Math.round(avgSliceMs),
    }),
    async close() {
      closed = true;
      for (const w of queue.splice(0)) w.fail(new PoolClosedError());
      for (const r of running) r.ctrl.abort(new PoolClosedError());
      await Promise.all([...running].map((r) => r.done));
    },
  };
}

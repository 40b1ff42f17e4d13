// Bounds concurrent slices (PrusaSlicer is CPU-bound: one per core by default) behind a bounded FIFO queue, plus a
// short lane: slots beyond those only slices predicted short may take, so that a short quote starts whoever holds
// the others (docs/limits.md, "The short lane"). While a short slice runs, long ones pause (yielding.ts).
// A full queue refuses at once (PoolFullError -> 503 + Retry-After) rather than letting latency grow unbounded.
// Created once per process, it first sweeps the work folders (and slicers) that killed processes left behind.
import { availableParallelism, tmpdir } from 'node:os';
import type { ResolvedSettings } from '../../shared/settings.ts';
import {
  DEFAULT_BINARY,
  DEFAULT_TIMEOUT_MS,
  type SliceOutcome,
  type SliceProgress,
  type SliceTransform,
  sliceOnce,
} from './engine.ts';
import {
  PoolClosedError,
  PoolFullError,
  ShortLaneOutgrownError,
  SliceAbortedError,
  SliceTimeoutError,
} from './errors.ts';
import type { ChildControl } from './process.ts';
import { type SweepReport, sweepWorkDirs } from './workdirs.ts';
import { createScheduler, type ShortSlice, type Yielding } from './yielding.ts';

export type { ShortSlice } from './yielding.ts';

/** The normal slots, or the short lane beyond them. */
export type SliceLane = 'normal' | 'short';

export interface SlicePoolOptions {
  size?: number;
  /** Slots beyond `size` that only slices predicted short may take (SLICER_SHORT_LANE). */
  shortLane?: number;
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
  /** The slot it takes (default normal); the short lane is for `short` slices only. */
  lane?: SliceLane;
  /**
   * A slice predicted short: long slices pause while it runs, until it has used `short.cpuMs`. In the short lane
   * it is then stopped (ShortLaneOutgrownError), in a normal slot reniced to `short.niceness` and long from then on.
   */
  short?: ShortSlice;
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
  /** Slots of the short lane, and the slices in it now. */
  shortLane: number;
  shortRunning: number;
  /** Long slices paused now, pauses so far, and short slices that used their allowance. */
  paused: number;
  pauses: number;
  outgrown: number;
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

/** Slots of one lane: how many, how many are granted, and who waits for one. */
interface Slots {
  size: number;
  used: number;
  queue: Waiter[];
}

export function createSlicePool(opts: SlicePoolOptions = {}): SlicePool {
  const size = Math.max(1, opts.size ?? availableParallelism());
  const maxQueue = Math.max(0, opts.maxQueue ?? size * 4);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const binary = opts.binary ?? DEFAULT_BINARY;
  // Slots are counted when granted, not when the slice starts, so no caller can slip in between.
  const lanes: Record<SliceLane, Slots> = {
    normal: { size, used: 0, queue: [] },
    short: { size: Math.max(0, opts.shortLane ?? 0), used: 0, queue: [] },
  };
  const running = new Set<{ ctrl: AbortController; done: Promise<unknown>; lane: SliceLane }>();
  const scheduler = createScheduler();
  const counts = { completed: 0, failed: 0, timedOut: 0, rejected: 0 };
  let avgSliceMs = 0;
  let closed = false;
  // Only dead owners' folders are touched, so slices of this process need not wait for it.
  const swept = sweepWorkDirs(opts.tmpRoot ?? tmpdir());

  const retryAfter = (slots: Slots): number =>
    Math.max(1, Math.ceil(((avgSliceMs || 10_000) * (slots.queue.length / Math.max(1, slots.size) + 1)) / 1000));

  function waitForSlot(slots: Slots, signal?: AbortSignal): Promise<void> {
    const { queue } = slots;
    if (slots.used < slots.size && queue.length === 0) {
      slots.used++;
      return Promise.resolve();
    }
    if (queue.length >= maxQueue || slots.size === 0) {
      counts.rejected++;
      return Promise.reject(new PoolFullError(retryAfter(slots)));
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

  async function run(req: SliceRequest, lane: SliceLane, signal?: AbortSignal): Promise<SliceOutcome> {
    const ctrl = new AbortController();
    const onAbort = () => ctrl.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const limit = Math.min(timeoutMs, req.timeoutMs ?? timeoutMs);
    const yielding: Yielding = {
      short: req.short ?? null,
      startedAt: performance.now(),
      pausedAt: null,
      pausedMs: 0,
      // Past its allowance a slice leaves the short lane free for the next short quote (a normal slot's just runs on).
      outgrown: () => lane === 'short' && ctrl.abort(new ShortLaneOutgrownError(req.short?.cpuMs ?? 0)),
    };
    scheduler.add(yielding);
    const onControl = (control: ChildControl) => scheduler.started(yielding, control);
    const work = sliceOnce({ ...req, binary, timeoutMs: limit, tmpRoot: opts.tmpRoot, signal: ctrl.signal, onControl });
    const entry = { ctrl, done: work.catch(() => undefined), lane };
    running.add(entry);
    try {
      const out = await work;
      counts.completed++;
      avgSliceMs = avgSliceMs ? avgSliceMs * 0.8 + out.durationMs * 0.2 : out.durationMs;
      return out;
    } catch (e) {
      if (e instanceof SliceTimeoutError) counts.timedOut++;
      else counts.failed++;
      if (e instanceof SliceAbortedError && e.reason instanceof ShortLaneOutgrownError && !signal?.aborted)
        throw e.reason;
      throw e;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      scheduler.remove(yielding);
      running.delete(entry);
      releaseSlot(lanes[lane]);
    }
  }

  function releaseSlot(slots: Slots): void {
    const next = closed ? undefined : slots.queue.shift();
    if (next) next.start();
    else slots.used--;
  }

  return {
    async slice(req, signal) {
      if (closed) throw new PoolClosedError();
      if (signal?.aborted) throw new SliceAbortedError(signal.reason);
      // Only a short slice may take the short lane.
      const lane: SliceLane = req.lane === 'short' && req.short ? 'short' : 'normal';
      await waitForSlot(lanes[lane], signal);
      if (closed || signal?.aborted) {
        releaseSlot(lanes[lane]);
        throw closed ? new PoolClosedError() : new SliceAbortedError(signal?.reason);
      }
      return run(req, lane, signal);
    },
    swept,
    stats: () => ({
      size,
      running: running.size,
      queued: lanes.normal.queue.length + lanes.short.queue.length,
      maxQueue,
      ...counts,
      shortLane: lanes.short.size,
      shortRunning: [...running].filter((r) => r.lane === 'short').length,
      ...scheduler.stats(),
      avgSliceMs: Math.round(avgSliceMs),
    }),
    async close() {
      closed = true;
      for (const w of [...lanes.normal.queue.splice(0), ...lanes.short.queue.splice(0)]) w.fail(new PoolClosedError());
      for (const r of running) r.ctrl.abort(new PoolClosedError());
      await Promise.all([...running].map((r) => r.done));
    },
  };
}

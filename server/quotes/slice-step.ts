// The one slice step quote jobs and prefetches share: the slice cache first, then the model sliced in the bounded
// pool with its CPU-time limit and niceness from the cost model, the slicer's CPU time charged to its caller
// whatever the outcome, and the new slice stored under its slicing key.
import { existsSync } from 'node:fs';
import type { Deps } from '../deps.ts';
import type { FileRow } from '../files/index.ts';
import { chargeSlicerTime, type SliceOutcome } from '../limits/index.ts';
import type { ShortSlice, SliceLane, SliceMeasure, SlicePool, SliceProgress } from '../slicer/index.ts';
import {
  PoolClosedError,
  PoolFullError,
  ShortLaneOutgrownError,
  SliceFailedError,
  SliceTimeoutError,
} from '../slicer/index.ts';
import { HOST } from '../storage/index.ts';
import type { StoredResolution } from './model.ts';
import {
  isShortSlice,
  LONG_NICENESS,
  referenceCost,
  shortAllowanceMs,
  sliceNiceness,
  sliceTimeoutMs,
} from './slice-cost.ts';
import { insertSlice, sliceByKey } from './sql.ts';

/** A prefetch stopped to make way for a quote; it goes back to the queue. */
export class PrefetchPreemptedError extends Error {}

export type SliceStepPorts = Pick<Deps, 'db' | 'storage' | 'config' | 'metrics' | 'log' | 'now'>;

/** A slice's measure and where it came from (cached: the slice cache answered). */
export interface SliceDone {
  stats: SliceMeasure;
  slice: { slicer: string; slicer_version: string; duration_ms: number };
  cached: boolean;
}

export type SliceStep = (
  target: SliceTarget,
  signal: AbortSignal,
  onProgress?: (progress: SliceProgress) => void,
) => Promise<SliceDone>;

/** What a slice is for and who pays for it (docs/limits.md, "Slicer time"). */
export interface SliceTarget {
  file_id: string;
  slicing_key: string;
  resolved: StoredResolution;
  file: FileRow | undefined;
  predicted_s: number | null;
  /** More quotes of the same account waiting when this one was claimed: bulk work (see sliceNiceness). */
  backlog: number;
  /** The slot it was claimed for: a normal one, or the short lane (docs/limits.md, "The short lane"). */
  lane?: SliceLane;
  /** It used its short allowance in the short lane once: it is long from then on. */
  short_lane_outgrown?: boolean;
  charge: { account_id: string; caller: string; kind: 'quote' | 'prefetch' };
}

export function sliceStep(deps: SliceStepPorts, pool: SlicePool): SliceStep {
  async function slice(
    target: SliceTarget,
    signal: AbortSignal,
    onProgress?: (progress: SliceProgress) => void,
  ): Promise<SliceDone> {
    const startedAt = deps.now().getTime();
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
    // The slicer's CPU time, once it has ended; without it (no /proc, or it never ran) the wall time stands in.
    let cpuMs: number | null = null;
    const onCpuTime = (ms: number | null) => {
      cpuMs = ms;
    };
    const seconds = () => (cpuMs ?? performance.now() - started) / 1000;
    const charge = (outcome: SliceOutcome | null) =>
      chargeFor(target, outcome, seconds(), (deps.now().getTime() - startedAt) / 1000);
    let out: Awaited<ReturnType<SlicePool['slice']>>;
    try {
      out = await timedSlice(() =>
        pool.slice(
          {
            meshPath,
            settings,
            transform: placement?.transform ?? undefined,
            onProgress,
            timeoutMs,
            niceness,
            onCpuTime,
            lane: target.lane,
            short: shortOf(target),
          },
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
      gcode_read_ms: out.gcodeReadMs,
    };
    await insertSlice(deps.db, row);
    return { stats: out.stats, slice: row, cached: false };
  }

  /**
   * Charges the slicer's CPU seconds to the caller, whatever the outcome: the work it cost, which the host's load
   * does not change. Not a prefetch stopped to make way for a quote, nor a slice stopped by this process shutting
   * down (neither is the caller's doing). Its clock time on this host is kept beside them: what the next shopper
   * here is told to wait is learnt from it (slice-cost.ts, wallPerPredictedSecond).
   */
  async function chargeFor(target: SliceTarget, outcome: SliceOutcome | null, seconds: number, wallS: number) {
    if (outcome === null || seconds <= 0) return;
    const { placement, settings } = target.resolved;
    const reference =
      target.file && placement?.placement ? referenceCost(target.file, placement.placement, settings) : null;
    await chargeSlicerTime(deps.db, {
      ...target.charge,
      outcome,
      seconds: Math.round(seconds * 100) / 100,
      reference_s: outcome === 'ok' ? reference : null,
      wall_s: wallS > 0 ? Math.round(wallS * 100) / 100 : null,
      host: HOST,
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

  return slice;
}

/** A quote predicted short is short (long slices pause while it runs) until it has used its allowance. */
function shortOf(target: SliceTarget): ShortSlice | undefined {
  if (target.charge.kind !== 'quote' || target.short_lane_outgrown || !isShortSlice(target.predicted_s)) return;
  return { cpuMs: shortAllowanceMs(target.predicted_s), niceness: LONG_NICENESS };
}

function outcomeOf(err: unknown, signal: AbortSignal): SliceOutcome | null {
  if (err instanceof SliceTimeoutError) return 'timeout';
  // Sliced again in a normal slot: what it used so far is its caller's, as for any slice that ran.
  if (err instanceof ShortLaneOutgrownError) return 'stopped';
  if (err instanceof SliceFailedError) return 'failed';
  if (err instanceof PoolClosedError || err instanceof PoolFullError) return null;
  if (signal.reason instanceof PrefetchPreemptedError) return null;
  return 'stopped';
}

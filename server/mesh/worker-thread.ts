// One parse worker thread: started once (the TypeScript loader and the parsers load once), heap-capped, given one
// job at a time and stopped when the job has used its CPU time (or has used none for a while: stalled).
// What runs inside is parse-worker.ts.
import { Worker } from 'node:worker_threads';
import { ApiError } from '../http/index.ts';
import { type CpuLimit, type Spent, threadCpuMs, watchCpu } from './cpu-time.ts';
import type { FeaturesJob, ParseJob } from './parse-worker.ts';

const YOUNG_GENERATION_MB = 32;

type Reply<T> =
  | { ok: true; result: T }
  | { ok: false; code: string; message: string; details: Record<string, unknown> | null };

export const tooComplex = (why: string, details?: Record<string, unknown>) =>
  new ApiError(422, 'model_too_complex', why, details);

/** A parse used up its CPU time (`cpu`) or used none for its stall time (`stalled`); the worker is gone. */
export class ParseTimeout extends Error {
  constructor(readonly why: Spent) {
    super(`parse stopped: ${why} limit`);
  }
}

/** The worker's thread under /proc ("<pid>/task/<tid>"), which it reports when ready; null without /proc. */
const threads = new WeakMap<Worker, string | null>();

/**
 * One worker thread, started once and ready before its first job, at `niceness` (0: the API's own), which the
 * thread sets first thing (parse-worker-entry.mjs), before it loads the parsers.
 */
export function spawn(maxHeapMb: number, niceness = 0): Promise<Worker> {
  const worker = new Worker(new URL('./parse-worker-entry.mjs', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    workerData: { niceness },
  });
  worker.unref();
  return new Promise((resolve, reject) => {
    worker.once('message', (ready: { thread?: string | null }) => {
      threads.set(worker, ready.thread ?? null);
      resolve(worker);
    });
    worker.once('error', reject);
  });
}

/**
 * Runs one job on the worker. The job may use `limit.cpuMs` of the worker thread's CPU time, so that a busy host
 * does not make a valid file too slow; a worker that uses no CPU time for `limit.stallMs` (stalled on I/O) is
 * stopped too. Without /proc the CPU budget is judged on wall time.
 */
export function runOn<T>(worker: Worker, job: ParseJob | FeaturesJob, limit: CpuLimit): Promise<T> {
  const thread = threads.get(worker) ?? null;
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      watch.stop();
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
    };
    const onMessage = (msg: Reply<T>) => {
      cleanup();
      if (msg.ok) resolve(msg.result);
      else reject(new ApiError(422, msg.code, msg.message, msg.details ?? undefined));
    };
    const onError = (err: NodeJS.ErrnoException) => {
      cleanup();
      reject(
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? tooComplex('The model needs more memory to read than this server allows.')
          : err,
      );
    };
    const onExit = (code: number) => {
      cleanup();
      reject(new Error(`model parser exited with code ${code}`));
    };
    const watch = watchCpu(
      () => (thread === null ? null : threadCpuMs(thread)),
      limit,
      (why) => {
        cleanup();
        void worker.terminate();
        reject(new ParseTimeout(why));
      },
    );
    worker.on('message', onMessage).once('error', onError).once('exit', onExit);
    worker.postMessage(job);
  });
}

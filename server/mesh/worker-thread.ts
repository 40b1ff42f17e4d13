// One parse worker thread: started once (the TypeScript loader and the parsers load once), heap-capped, given one
// job at a time and stopped when the job has used its CPU time (or has used none for a while: stalled).
// What runs inside is parse-worker.ts.
import { Worker } from 'node:worker_threads';
import { ApiError } from '../http/index.ts';
import { type CpuLimit, type CpuWatch, type Spent, threadCpuMs, watchCpu } from './cpu-time.ts';
import type { FeaturesJob, ParseJob, StreamMessage } from './parse-worker.ts';

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
  const exchange = answerOf<T>(worker, limit);
  worker.postMessage(job);
  return exchange.answer;
}

/** An upload read as it arrives, on one worker: its chunks, then its end, answered once as `runOn` answers. */
export interface WorkerStream<T> {
  /** The next bytes of the upload (handed over to the worker: the caller keeps no view of them). */
  write(bytes: Uint8Array): void;
  /** The upload is complete: the answer to `job`, within the CPU time counted from the stream's start. */
  end(job: ParseJob): Promise<T>;
  /** The stream is given up before its end: the worker forgets it. Answers whether the worker is fit for more work. */
  drop(): boolean;
}

/**
 * Streams an upload to the worker. Its CPU time counts from the start, against `limit.cpuMs`; waiting for the
 * upload's bytes is not a stall, so the stall watch starts at the end.
 */
export function streamOn<T>(worker: Worker, limit: CpuLimit): WorkerStream<T> {
  const exchange = answerOf<T>(worker, limit);
  exchange.watch.pause();
  // Until the end is sent nothing answers: a worker that died or ran out of CPU time meanwhile is seen at the end.
  exchange.answer.catch(() => {});
  const send = (message: StreamMessage, transfer: ArrayBuffer[] = []) => worker.postMessage(message, transfer);
  send({ kind: 'stream-start' });
  return {
    write: (bytes) => send({ kind: 'stream-chunk', bytes }, [bytes.buffer as ArrayBuffer]),
    end(job) {
      exchange.watch.resume();
      send({ kind: 'stream-end', job });
      return exchange.answer;
    },
    drop() {
      const fit = !exchange.over();
      exchange.cancel();
      if (fit) send({ kind: 'stream-drop' });
      return fit;
    },
  };
}

/** Waits for the worker's one answer, or its end: an error, an exit, or its CPU time or stall limit reached. */
function answerOf<T>(worker: Worker, limit: CpuLimit) {
  const thread = threads.get(worker) ?? null;
  let cleanup = () => {};
  let over = false;
  let watch!: CpuWatch;
  const answer = new Promise<T>((resolve, reject) => {
    cleanup = () => {
      over = true;
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
    watch = watchCpu(
      () => (thread === null ? null : threadCpuMs(thread)),
      limit,
      (why) => {
        cleanup();
        void worker.terminate();
        reject(new ParseTimeout(why));
      },
    );
    worker.on('message', onMessage).once('error', onError).once('exit', onExit);
  });
  /** over: the worker answered, failed or ran out of time, or the exchange was cancelled. */
  return { answer, watch, cancel: () => cleanup(), over: () => over };
}

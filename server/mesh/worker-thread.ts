// One parse worker thread: started once (the TypeScript loader and the parsers load once), heap-capped, given one
// job at a time and stopped when the job runs out of time. What runs inside is parse-worker.ts.
import { Worker } from 'node:worker_threads';
import { ApiError } from '../http/index.ts';
import type { FeaturesJob, ParseJob } from './parse-worker.ts';

const YOUNG_GENERATION_MB = 32;

type Reply<T> =
  | { ok: true; result: T }
  | { ok: false; code: string; message: string; details: Record<string, unknown> | null };

export const tooComplex = (why: string, details?: Record<string, unknown>) =>
  new ApiError(422, 'model_too_complex', why, details);

/** A parse ran out of its time; the worker is gone. */
export class ParseTimeout extends Error {}

/** One worker thread, started once and ready before its first job. */
export function spawn(maxHeapMb: number): Promise<Worker> {
  const worker = new Worker(new URL('./parse-worker-entry.mjs', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
  worker.unref();
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve(worker));
    worker.once('error', reject);
  });
}

export function runOn<T>(worker: Worker, job: ParseJob | FeaturesJob, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
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
    const timer = setTimeout(() => {
      cleanup();
      void worker.terminate();
      reject(new ParseTimeout());
    }, timeoutMs);
    worker.on('message', onMessage).once('error', onError).once('exit', onExit);
    worker.postMessage(job);
  });
}

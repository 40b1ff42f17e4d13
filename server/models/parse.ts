// Parses uploads in worker threads with a memory cap and a timeout, a bounded number at a time.
import { Worker } from 'node:worker_threads';
import type { Measurements, ModelFormat } from '../../shared/model/index.ts';
import { ApiError } from '../errors.ts';
import type { ParseJob } from './parse-worker.ts';

export interface ParsedUpload {
  format: ModelFormat;
  unit: string;
  measurements: Measurements;
  warnings: string[];
  meshSha256: string;
  footprint: [number, number][];
}

export interface ModelParser {
  parse(job: ParseJob): Promise<ParsedUpload>;
}

export function createModelParser(opts: { concurrency: number; timeoutMs: number; maxHeapMb: number }): ModelParser {
  let running = 0;
  const waiting: (() => void)[] = [];
  const acquire = async () => {
    if (running >= opts.concurrency) await new Promise<void>((r) => waiting.push(r));
    running++;
  };
  const release = () => {
    running--;
    waiting.shift()?.();
  };
  return {
    async parse(job) {
      await acquire();
      try {
        return await runWorker(job, opts);
      } finally {
        release();
      }
    },
  };
}

function runWorker(job: ParseJob, opts: { timeoutMs: number; maxHeapMb: number }): Promise<ParsedUpload> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./parse-worker-entry.mjs', import.meta.url), {
      workerData: job,
      resourceLimits: { maxOldGenerationSizeMb: opts.maxHeapMb },
    });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    const timer = setTimeout(
      () => finish(() => reject(new ApiError(422, 'model_too_complex', 'The model took too long to read; it is too complex or malformed.'))),
      opts.timeoutMs,
    );
    worker.on('message', (msg: { ok: true; result: ParsedUpload } | { ok: false; code: string; message: string; details: Record<string, unknown> | null }) =>
      finish(() => (msg.ok ? resolve(msg.result) : reject(new ApiError(422, msg.code, msg.message, msg.details ?? undefined)))),
    );
    worker.on('error', (err) =>
      finish(() =>
        reject(
          /ERR_WORKER_OUT_OF_MEMORY/.test(String((err as NodeJS.ErrnoException).code))
            ? new ApiError(422, 'model_too_complex', 'The model needs more memory to read than this server allows.')
            : err,
        ),
      ),
    );
    worker.on('exit', (code) => finish(() => reject(new Error(`model parser exited with code ${code}`))));
  });
}

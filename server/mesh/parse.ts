// Parses uploads in a small pool of long-lived worker threads (heap-capped), one job per worker at a time.
// A worker that runs out of time or memory is terminated and replaced; the API process is never at risk.
import { Worker } from 'node:worker_threads';
import type { Measurements, ModelFormat, ModelWarning } from '../../shared/model/index.ts';
import { ApiError } from '../http/errors.ts';
import type { FeaturesJob, ParseJob } from './parse-worker.ts';
import type { Features } from '../../shared/estimate/index.ts';
import type { ModelShape } from './footprint.ts';

export interface ParsedUpload {
  format: ModelFormat;
  unit: string;
  measurements: Measurements;
  warnings: ModelWarning[];
  /** Which canonical mesh the parser wrote. */
  canonical: 'obj' | '3mf';
  meshSha256: string;
  footprint: [number, number][];
  shape: ModelShape;
}

export interface ModelParser {
  parse(job: ParseJob): Promise<ParsedUpload>;
  /** The instant estimate's features of a stored canonical mesh (docs/estimate.md). */
  features(job: Omit<FeaturesJob, 'kind'>): Promise<Features>;
  close(): Promise<void>;
}

interface Options {
  concurrency: number;
  timeoutMs: number;
  /** V8 heap of one worker (old generation; the young generation is capped at YOUNG_GENERATION_MB). */
  maxHeapMb: number;
}

/**
 * The memory bound of parsing (shared/model/README.md, "Memory"). Strings and objects live in a worker's
 * V8 heap, capped here; the parsers keep every string small (XML tokens are capped). Meshes live in typed
 * arrays outside that heap, bounded by the vertex and triangle caps. Two workers at most parse at once.
 */
export const MODEL_PARSER_OPTIONS: Options = { concurrency: 2, timeoutMs: 120_000, maxHeapMb: 256 };
const YOUNG_GENERATION_MB = 32;

type Reply<T> =
  | { ok: true; result: T }
  | { ok: false; code: string; message: string; details: Record<string, unknown> | null };

const tooComplex = (why: string) => new ApiError(422, 'model_too_complex', why);

/** One worker thread, started once and ready before its first job. */
function spawn(opts: Options): Promise<Worker> {
  const worker = new Worker(new URL('./parse-worker-entry.mjs', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: opts.maxHeapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
  worker.unref();
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve(worker));
    worker.once('error', reject);
  });
}

function runOn<T>(worker: Worker, job: ParseJob | FeaturesJob, timeoutMs: number): Promise<T> {
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
      reject(tooComplex('The model took too long to read; it is too complex or malformed.'));
    }, timeoutMs);
    worker.on('message', onMessage).once('error', onError).once('exit', onExit);
    worker.postMessage(job);
  });
}

export function createModelParser(opts: Options): ModelParser {
  const idle: Worker[] = [];
  const waiting: ((w: Worker | null) => void)[] = [];
  const all = new Set<Worker>();
  let starting = 0;
  let closed = false;

  async function acquire(): Promise<Worker> {
    const ready = idle.pop();
    if (ready) return ready;
    if (all.size + starting < opts.concurrency) {
      starting++;
      try {
        const w = await spawn(opts);
        all.add(w);
        w.once('exit', () => all.delete(w));
        return w;
      } finally {
        starting--;
      }
    }
    const w = await new Promise<Worker | null>((resolve) => waiting.push(resolve));
    return w ?? acquire(); // null: a worker died, a slot is free to start a new one
  }

  function release(w: Worker, healthy: boolean) {
    if (!healthy || closed) {
      void w.terminate();
      all.delete(w);
      waiting.shift()?.(null);
      return;
    }
    const next = waiting.shift();
    if (next) next(w);
    else idle.push(w);
  }

  async function run<T>(job: ParseJob | FeaturesJob): Promise<T> {
    const worker = await acquire();
    try {
      const result = await runOn<T>(worker, job, opts.timeoutMs);
      release(worker, true);
      return result;
    } catch (err) {
      // A refused model leaves the worker healthy; a timeout, crash or memory exhaustion does not.
      release(worker, err instanceof ApiError && err.code !== 'model_too_complex');
      throw err;
    }
  }

  return {
    parse: (job) => run<ParsedUpload>(job),
    features: (job) => run<Features>({ kind: 'features', ...job }),
    async close() {
      closed = true;
      await Promise.all([...all].map((w) => w.terminate()));
    },
  };
}

// The one worker thread that holds the printer library: started on the first request, heap-capped, kept for the
// process's life (it holds the parsed bundles), and started again if it dies. Jobs carry ids, so concurrent
// requests share it; a job's error comes back as the ApiError the worker raised.
import { Worker } from 'node:worker_threads';
import { ApiError } from '../http/index.ts';
import { BundleError } from '../prusa-config/index.ts';
import type { LibraryJob } from './library-worker.ts';

/** Prusa Research's bundle resolves to a few tens of MB; far more means something is wrong. */
const MAX_HEAP_MB = 512;

type Reply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; status: number; code: string; message: string; details: Record<string, unknown> | null };

interface Pending {
  kind: LibraryJob['kind'];
  resolve(value: unknown): void;
  reject(err: Error): void;
}

let worker: Worker | null = null;
let nextId = 1;
const pending = new Map<number, Pending>();

function start(): Worker {
  const started = new Worker(new URL('./library-worker-entry.mjs', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: MAX_HEAP_MB },
  });
  started.unref();
  started.on('message', (reply: Reply) => settle(reply));
  const fail = (err: NodeJS.ErrnoException) => {
    if (worker === started) worker = null;
    for (const job of pending.values()) job.reject(outOfMemory(err, job.kind) ?? err);
    pending.clear();
  };
  started.on('error', fail);
  started.on('exit', (code) => fail(new Error(`printer library worker exited with code ${code}`)));
  return started;
}

/** A user's bundle that needs more memory than the thread has is the bundle's fault; the library's is not. */
function outOfMemory(err: NodeJS.ErrnoException, kind: LibraryJob['kind']): ApiError | null {
  if (err.code !== 'ERR_WORKER_OUT_OF_MEMORY' || kind !== 'bundle') return null;
  return new BundleError('bundle_too_large', 'The config bundle needs more memory to resolve than this server allows.');
}

function settle(reply: Reply) {
  const job = pending.get(reply.id);
  if (!job) return;
  pending.delete(reply.id);
  if (pending.size === 0) worker?.unref();
  if (reply.ok) job.resolve(reply.result);
  else if (reply.status >= 500) job.reject(new Error(`printer library: ${reply.message}`));
  else job.reject(new ApiError(reply.status, reply.code, reply.message, reply.details ?? undefined));
}

/** Runs a job on the library's thread. */
export function runLibraryJob<T>(job: LibraryJob): Promise<T> {
  worker ??= start();
  const id = nextId++;
  const target = worker;
  return new Promise<T>((resolve, reject) => {
    pending.set(id, { kind: job.kind, resolve: resolve as (value: unknown) => void, reject });
    // Referenced while it has work, so a script awaiting a pick is not ended early; idle, it holds no process open.
    target.ref();
    target.postMessage({ id, job });
  });
}

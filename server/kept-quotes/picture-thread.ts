// The pictures' worker thread (picture-worker.ts): started on the first picture, heap-capped, one drawing at a
// time. A worker that fails or runs past its time is dropped and the next drawing starts a fresh one.
import { Worker } from 'node:worker_threads';
import type { PictureJob, PictureReply } from './picture-worker.ts';

export interface PictureThread {
  draw(job: PictureJob): Promise<PictureReply>;
  close(): Promise<void>;
}

function spawn(maxHeapMb: number): Promise<Worker> {
  const w = new Worker(new URL('./picture-worker-entry.mjs', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: 16 },
  });
  w.unref();
  return new Promise((resolve, reject) => {
    w.once('message', () => resolve(w));
    w.once('error', reject);
  });
}

export function createPictureThread(opts: { maxHeapMb: number; timeoutMs: number }): PictureThread {
  let worker: Promise<Worker> | null = null;
  return {
    async draw(job) {
      worker ??= spawn(opts.maxHeapMb);
      const w = await worker.catch((err: Error) => {
        worker = null;
        throw err;
      });
      return new Promise((resolve) => {
        const done = (reply: PictureReply, healthy: boolean) => {
          clearTimeout(timer);
          w.off('message', onMessage).off('error', onError).off('exit', onExit);
          if (!healthy) {
            worker = null;
            void w.terminate();
          }
          resolve(reply);
        };
        const onMessage = (reply: PictureReply) => done(reply, true);
        const onError = (err: Error) => done({ ok: false, message: String(err) }, false);
        const onExit = (code: number) => done({ ok: false, message: `picture worker exited with ${code}` }, false);
        const timer = setTimeout(() => done({ ok: false, message: 'picture took too long' }, false), opts.timeoutMs);
        w.on('message', onMessage).once('error', onError).once('exit', onExit);
        w.postMessage(job);
      });
    },
    async close() {
      const w = await worker?.catch(() => null);
      worker = null;
      await w?.terminate();
    },
  };
}

// Parts' pictures for kept quotes (docs/security.md, "Kept quotes' pictures"): drawn in one worker thread of their
// own (picture-worker.ts), never on the API's event loop, one at a time, callers taking turns; each within the
// drawing budget (picture.ts), else the part's outline. A file's picture is made once, on the first open of a
// link to it, and kept in memory: opening the link again, or its PDF, draws nothing; concurrent first opens
// share one drawing.

import { PICTURE_WORK_BUDGET } from './picture.ts';
import { createPictureThread } from './picture-thread.ts';
import type { PictureJob } from './picture-worker.ts';

type V3 = [number, number, number];

export interface PictureOptions {
  /** Canonical meshes larger than this are not read: their outline is shown (bounding box from the file's row). */
  maxMeshBytes: number;
  /** Drawing work one picture may take (picture.ts). */
  budget: number;
  /** Pictures kept in memory (a few KiB each); the least recently opened go first. */
  cached: number;
  /** A drawing still running after this long (it cannot, within the budget) is stopped: no picture this time. */
  timeoutMs: number;
  /** V8 heap of the worker (strings of the mesh's text; its vertices live outside it). */
  maxHeapMb: number;
  /** Test seam: hold drawings once they have spent this much work, until release() (the worker thread waits). */
  pauseAtWork?: number;
}

export const pictureOptions = (): PictureOptions => ({
  maxMeshBytes: 16 * 1024 * 1024,
  budget: PICTURE_WORK_BUDGET,
  cached: 256,
  timeoutMs: 60_000,
  maxHeapMb: 128,
});

export interface PictureFile {
  id: string;
  /** The file's bounding box as measured at upload, for the outline. */
  bbox: { min: V3; max: V3 } | null;
  /** Where the canonical mesh is readable on this host (object storage downloads it first). */
  meshPath(): Promise<string>;
}

export interface PictureState {
  /** Drawings waiting for the worker, over all callers. */
  waiting: number;
  /** A drawing holds the worker. */
  drawing: boolean;
  /** Work the running drawing has spent so far, as the worker counts it. */
  work: number;
  /** The running drawing is held at `pauseAtWork` (tests). */
  held: boolean;
  /** Pictures drawn since start, by kind. */
  made: { part: number; outline: number; none: number };
}

export interface PartPictures {
  /** The part's picture as a PNG, or null when there is none (a 3MF project, a file that cannot be read). */
  of(file: PictureFile, caller: string): Promise<Buffer | null>;
  state(): PictureState;
  /** Lets a drawing held at `pauseAtWork` go on. */
  release(): void;
  close(): Promise<void>;
}

interface Task {
  file: PictureFile;
  resolve(png: Buffer | null): void;
  /** The picture could not be made this time (the worker failed): it is not kept. */
  fail(): void;
}

export function createPartPictures(opts: PictureOptions): PartPictures {
  const cache = new Map<string, Promise<Buffer | null>>();
  const turns = new RoundRobin<Task>();
  const progress = new Int32Array(new SharedArrayBuffer(8));
  const release = new Int32Array(new SharedArrayBuffer(4));
  const made = { part: 0, outline: 0, none: 0 };
  const thread = createPictureThread(opts);
  let running = false;
  let closed = false;

  async function run(task: Task) {
    try {
      const job: PictureJob = {
        meshPath: await task.file.meshPath(),
        bbox: task.file.bbox,
        maxMeshBytes: opts.maxMeshBytes,
        budget: opts.budget,
        progress,
        pause: opts.pauseAtWork === undefined ? undefined : { atWork: opts.pauseAtWork, release },
      };
      const reply = await thread.draw(job);
      if (!reply.ok) return task.fail();
      made[reply.kind]++;
      task.resolve(reply.png ? Buffer.from(reply.png) : null);
    } catch {
      task.fail();
    }
  }

  async function pump() {
    if (running || closed) return;
    const task = turns.take();
    if (!task) return;
    running = true;
    try {
      await run(task.item);
    } finally {
      running = false;
      void pump();
    }
  }

  return {
    of(file, caller) {
      const hit = cache.get(file.id);
      if (hit) {
        cache.delete(file.id);
        cache.set(file.id, hit); // most recently used last
        return hit;
      }
      const picture = new Promise<Buffer | null>((resolve) => {
        const fail = () => {
          if (cache.get(file.id) === picture) cache.delete(file.id);
          resolve(null);
        };
        turns.add(caller, { file, resolve, fail });
      });
      cache.set(file.id, picture);
      if (cache.size > opts.cached) cache.delete(cache.keys().next().value!);
      void pump();
      return picture;
    },
    state: () => ({
      waiting: turns.size(),
      drawing: running,
      work: running ? Atomics.load(progress, 0) : 0,
      held: Atomics.load(progress, 1) === 1,
      made: { ...made },
    }),
    release() {
      Atomics.store(release, 0, 1);
      Atomics.notify(release, 0);
    },
    async close() {
      closed = true;
      await thread.close();
    },
  };
}

/**
 * Callers take turns: each has its own line, and the caller whose turn it is gives one item, then goes to the
 * back. A caller opening many links waits for its own pictures, not everyone's.
 */
class RoundRobin<T> {
  private readonly lines = new Map<string, T[]>();

  add(caller: string, item: T) {
    const line = this.lines.get(caller);
    if (line) line.push(item);
    else this.lines.set(caller, [item]);
  }

  take(): { caller: string; item: T } | undefined {
    const next = this.lines.entries().next();
    if (next.done) return undefined;
    const [caller, line] = next.value;
    const item = line.shift()!;
    this.lines.delete(caller);
    if (line.length > 0) this.lines.set(caller, line); // to the back of the line
    return { caller, item };
  }

  size(): number {
    let n = 0;
    for (const line of this.lines.values()) n += line.length;
    return n;
  }
}

declare module '../deps.ts' {
  interface Deps {
    /** Parts' pictures for kept quotes, drawn in a worker thread and kept in memory. */
    pictures: PartPictures;
  }
}

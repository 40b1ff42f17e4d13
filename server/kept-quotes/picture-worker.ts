// Runs in a worker thread: reads a stored canonical mesh and draws its picture (picture.ts) within the drawing
// budget, or its bounding box when the mesh is too large to read or too costly to draw. The API process only
// sends the job and gets a PNG of a few KiB back. The work spent so far is published in shared memory, so the
// service can say how far a drawing is; a test may hold a drawing there (`pause`) to show the event loop free.

import { readFileSync, readlinkSync, statSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { encodePng, outline, PICTURE_PX, render } from './picture.ts';

type V3 = [number, number, number];

export interface PictureJob {
  meshPath: string;
  /** The file's bounding box as measured at upload: the outline when the mesh is not drawn. */
  bbox: { min: V3; max: V3 } | null;
  /** Meshes larger than this are not read: their outline is drawn. */
  maxMeshBytes: number;
  budget: number;
  /** [0] work spent by the running drawing, [1] 1 while a drawing is held at `pause.atWork`. */
  progress: Int32Array;
  /** Test seam: hold the drawing once it has spent this much work, until `release[0]` is set. */
  pause?: { atWork: number; release: Int32Array };
}

export type PictureReply =
  | { ok: true; png: Uint8Array | null; kind: 'part' | 'outline' | 'none'; work: number }
  | { ok: false; message: string };

/** Vertices and triangles of a canonical OBJ (only `v` and `f` lines, 1-based indices). */
function readObj(text: string): { v: Float64Array; f: Uint32Array } {
  let v = new Float64Array(3 * 4096);
  let f = new Uint32Array(3 * 4096);
  let nv = 0;
  let nf = 0;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const kind = text.charCodeAt(start);
    if ((kind === 118 || kind === 102) && text.charCodeAt(start + 1) === 32) {
      const parts = text.slice(start, end).trim().split(/\s+/);
      if (kind === 118) {
        if (nv + 3 > v.length) v = grow(v);
        for (let i = 1; i <= 3; i++) v[nv++] = Number(parts[i]);
      } else {
        if (nf + 3 > f.length) f = grow(f);
        for (let i = 1; i <= 3; i++) f[nf++] = Number.parseInt(parts[i]!, 10) - 1;
      }
    }
    start = end + 1;
  }
  return { v: v.subarray(0, nv), f: f.subarray(0, nf) };
}

function grow<T extends Float64Array | Uint32Array>(a: T): T {
  const bigger = new (a.constructor as new (n: number) => T)(a.length * 2);
  bigger.set(a);
  return bigger;
}

function boxOf(v: Float64Array): { min: V3; max: V3 } {
  const min: V3 = [Infinity, Infinity, Infinity];
  const max: V3 = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < v.length; i += 3)
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k]!, v[i + k]!);
      max[k] = Math.max(max[k]!, v[i + k]!);
    }
  return { min, max };
}

function outlinePng(box: { min: V3; max: V3 } | null, work: number): PictureReply {
  if (!box) return { ok: true, png: null, kind: 'none', work };
  return { ok: true, png: encodePng(outline(box.min, box.max), PICTURE_PX, 'outline'), kind: 'outline', work };
}

function draw(job: PictureJob): PictureReply {
  Atomics.store(job.progress, 0, 0);
  if (!job.meshPath.endsWith('.obj')) return { ok: true, png: null, kind: 'none', work: 0 };
  if (statSync(job.meshPath).size > job.maxMeshBytes) return outlinePng(job.bbox, 0);
  const { v, f } = readObj(readFileSync(job.meshPath, 'latin1'));
  if (f.length === 0) return { ok: true, png: null, kind: 'none', work: 0 };
  for (const i of f) if (!(i < v.length / 3)) return outlinePng(job.bbox ?? boxOf(v), 0);
  const { pause } = job;
  let held = false;
  const drawing = render(v, f, {
    budget: job.budget,
    progress(work) {
      Atomics.store(job.progress, 0, Math.min(work, 2 ** 31 - 1));
      if (pause && !held && work >= pause.atWork) {
        held = true;
        Atomics.store(job.progress, 1, 1);
        Atomics.wait(pause.release, 0, 0);
        Atomics.store(job.progress, 1, 0);
      }
    },
  });
  if (!drawing.complete) return outlinePng(job.bbox ?? boxOf(v), drawing.work);
  return { ok: true, png: encodePng(drawing.rgb, PICTURE_PX, 'part'), kind: 'part', work: drawing.work };
}

/**
 * This thread yields the cores to the API's event loop and the parsers: on Linux a thread has a niceness of its own,
 * set through its thread id (/proc/thread-self is /proc/<pid>/task/<tid>).
 */
function lowerPriority(niceness: number) {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), niceness);
  } catch {
    /* not Linux, or not permitted: it runs at normal priority */
  }
}

lowerPriority(10);
parentPort!.on('message', (job: PictureJob) => {
  let reply: PictureReply;
  try {
    reply = draw(job);
  } catch (err) {
    reply = { ok: false, message: String(err) };
  }
  parentPort!.postMessage(reply); // a few KiB, copied: a small Buffer may share its memory with others
});
parentPort!.postMessage({ ready: true });

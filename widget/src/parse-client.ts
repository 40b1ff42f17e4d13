// Parses model files in Web Workers. The worker's code is a second file built beside the widget
// script (slice-quote-worker.js), so a shop page's first load carries only the element and its
// preview: it is fetched once per page (at idle after the widget has its options, or at the first
// file) and started from a blob URL, since a worker script cannot be loaded from the API's origin
// into the shop's page. The preview comes first; the estimate's features follow from the same worker
// (null without settings or on failure). The worker then keeps the part's mesh: a changed choice's
// features are measured there again (ParseRun.measure).
//
// The workers are a small pool (MAX_PARSE_WORKERS), however many parts a widget with `multiple` holds: each worker
// keeps one mesh, the last part it read, so memory on a phone stays bounded at 25 parts. A part whose mesh a worker
// gave up to read another reads its file again when it needs a new measurement. Aborting a part ends the worker
// that is reading it (a shopper who drops a second file does not wait for the first) or drops its mesh.
import workerUrl from './parse.worker.ts?worker&url';
import type { EstimateSettings, Features } from '../../shared/estimate/index.ts';
import { networkError, WidgetError } from './errors.ts';
import type {
  MeasuredFeatures,
  MeasureRequest,
  ParsedPreview,
  ParseReply,
  ParseRequest,
  ReleaseRequest,
} from './parse-protocol.ts';

/** User Timing names under which the page can read the worker's own times (docs/widget.md, "Timings"). */
export const PARSE_MEASURE = 'slice-quote:parse';
export const FEATURES_MEASURE = 'slice-quote:features';

let workerCode: Promise<string> | null = null;

/**
 * The blob URL of the worker's code, fetched once per page from beside the widget script. A failed fetch is
 * forgotten, so the next file tries again.
 */
export function loadParser(): Promise<string> {
  if (workerCode) return workerCode;
  const loading = fetch(workerUrl, { credentials: 'omit' }).then(async (res) => {
    if (!res.ok) throw networkError();
    const code = await res.blob();
    return URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
  });
  workerCode = loading;
  loading.catch(() => {
    if (workerCode === loading) workerCode = null;
  });
  return loading;
}

/** Fetches the worker's code once the page is idle, so that the first file does not wait for it. */
export function prefetchParser(): void {
  const load = () => void loadParser().catch(() => undefined);
  if ('requestIdleCallback' in window) requestIdleCallback(load, { timeout: 5000 });
  else setTimeout(load, 0);
}

export interface ParseRun {
  parsed: Promise<ParsedPreview>;
  /** Never rejects: null when no features could be measured. */
  features: Promise<Features | null>;
  /**
   * The features again with other settings (a changed choice), the mesh scaled by `scale` (rescaled since it was
   * read), until the run's signal aborts. Never rejects: null when none can be measured (the parse failed, the run
   * ended, the estimator refuses the mesh).
   */
  measure(settings: EstimateSettings, scale: number): Promise<Features | null>;
}

/** Parse workers alive at once, whatever the number of parts: each keeps at most one mesh. */
export const MAX_PARSE_WORKERS = 2;

/** One worker of the pool: the run whose mesh it keeps, whether a run holds it, and when it was last used. */
interface Slot {
  worker: Worker;
  holds: object | null;
  busy: boolean;
  used: number;
}

/** The pool of parse workers: a run waits for a worker, the one keeping its mesh when there is one. */
class ParserPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: { run: object; grant: (slot: Slot) => void }[] = [];
  private url = '';
  private clock = 0;

  /** A worker for `run`, held until release(): its own (with its mesh), an idle one, a new one, or the least used. */
  acquire(run: object, url: string, signal: AbortSignal): Promise<Slot> {
    this.url = url;
    return new Promise((resolve, reject) => {
      const waiter = {
        run,
        grant: (slot: Slot) => {
          signal.removeEventListener('abort', aborted);
          resolve(slot);
        },
      };
      const aborted = () => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(signal.reason);
      };
      if (signal.aborted) return reject(signal.reason);
      signal.addEventListener('abort', aborted, { once: true });
      this.waiting.push(waiter);
      this.pump();
    });
  }

  release(slot: Slot): void {
    if (!this.slots.includes(slot)) return;
    slot.busy = false;
    slot.used = ++this.clock;
    this.pump();
  }

  /** Ends a worker (an aborted parse, a crash): it leaves the pool, with its mesh. */
  discard(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    slot.worker.terminate();
    this.slots.splice(i, 1);
    this.pump();
  }

  /** The run ended: the worker keeping its mesh drops it (a worker still busy with it is ended by its abort). */
  forget(run: object): void {
    for (const slot of this.slots) {
      if (slot.holds !== run) continue;
      slot.holds = null;
      if (!slot.busy) slot.worker.postMessage({ kind: 'release' } satisfies ReleaseRequest);
    }
  }

  private pump(): void {
    for (let i = 0; i < this.waiting.length; ) {
      const waiter = this.waiting[i]!;
      const slot = this.pick(waiter.run);
      if (!slot) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      slot.busy = true;
      waiter.grant(slot);
    }
  }

  private pick(run: object): Slot | null {
    const own = this.slots.find((s) => s.holds === run);
    if (own) return own.busy ? null : own;
    const free = this.slots.filter((s) => !s.busy);
    const empty = free.find((s) => s.holds === null);
    if (empty) return empty;
    if (this.slots.length < MAX_PARSE_WORKERS) {
      const slot = {
        worker: new Worker(this.url, { type: 'module', name: 'slice-quote-parser' }),
        holds: null,
        busy: false,
        used: 0,
      };
      this.slots.push(slot);
      return slot;
    }
    // Every worker keeps a mesh: the one used longest ago gives its up.
    return free.sort((a, b) => a.used - b.used)[0] ?? null;
  }
}

const pool = new ParserPool();

/**
 * One exchange with a worker the caller holds: `send` posts, `receive` reads each reply until it calls done or fail.
 * On abort or a worker error the worker is ended. The caller releases the worker.
 */
function exchange<T>(
  slot: Slot,
  signal: AbortSignal,
  send: (w: Worker) => void,
  receive: (reply: ParseReply | MeasuredFeatures, done: (v: T) => void, fail: (e: unknown) => void) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const w = slot.worker;
    const finish = () => {
      w.onmessage = w.onerror = null;
      signal.removeEventListener('abort', aborted);
    };
    const aborted = () => {
      finish();
      pool.discard(slot);
      reject(signal.reason);
    };
    if (signal.aborted) return reject(signal.reason); // nothing sent: the worker is as it was
    signal.addEventListener('abort', aborted, { once: true });
    w.onerror = () => {
      finish();
      pool.discard(slot);
      reject(new WidgetError('parse_failed', 'The model could not be read in the browser.', false));
    };
    w.onmessage = (e: MessageEvent<ParseReply | MeasuredFeatures>) =>
      receive(
        e.data,
        (v) => {
          finish();
          resolve(v);
        },
        (err) => {
          finish();
          reject(err);
        },
      );
    send(w);
  });
}

/**
 * Reads `file` in a worker of the pool (the worker then keeps its mesh): its preview, then its features with
 * `settings`. `timed`: the worker's times become the page's User Timing entries (not for a file read again).
 */
function readOn(
  slot: Slot,
  run: object,
  file: { name: string; bytes: ArrayBuffer; maxBytes: number; settings: EstimateSettings | null },
  signal: AbortSignal,
  onPreview: (preview: ParsedPreview) => void,
  timed: boolean,
): Promise<Features | null> {
  const request: ParseRequest = { kind: 'parse', ...file };
  return exchange(
    slot,
    signal,
    (w) => {
      slot.holds = run; // the worker drops the mesh it kept as it starts reading this one
      w.postMessage(request, [file.bytes]);
    },
    (reply, done, fail) => {
      if ('features' in reply) {
        if (timed && reply.ms !== null) recordMeasure(FEATURES_MEASURE, reply.ms);
        done(reply.features);
      } else if (reply.ok) {
        if (timed) recordMeasure(PARSE_MEASURE, reply.ms);
        onPreview(reply);
      } else {
        slot.holds = null;
        fail(new WidgetError(reply.code, reply.message, false));
      }
    },
  );
}

export function parseInWorker(
  file: File,
  maxBytes: number,
  settings: EstimateSettings | null,
  signal: AbortSignal,
): ParseRun {
  const run = {};
  let ended = false;
  let nextId = 1;
  signal.addEventListener(
    'abort',
    () => {
      ended = true;
      pool.forget(run);
    },
    { once: true },
  );
  let preview: (p: ParsedPreview) => void = () => {};
  const parsed = new Promise<ParsedPreview>((resolve) => (preview = resolve));
  const read = (async () => {
    const [url, bytes] = await Promise.all([loadParser(), file.arrayBuffer()]);
    const slot = await pool.acquire(run, url, signal);
    try {
      return await readOn(slot, run, { name: file.name, bytes, maxBytes, settings }, signal, preview, true);
    } finally {
      pool.release(slot);
    }
  })();
  // The preview comes first; a failure before it is the parse's.
  const parsedOrFailed = Promise.race([parsed, read.then(() => parsed)]);
  const features = read.catch(() => null);
  parsedOrFailed.catch(() => undefined); // read by the caller; a failed parse leaves nothing to measure
  const measure = async (again: EstimateSettings, scale: number): Promise<Features | null> => {
    // The first measurement comes first, and the mesh must have been read.
    await features;
    const readOk = await parsedOrFailed.then(
      () => true,
      () => false,
    );
    if (ended || !readOk) return null;
    try {
      const url = await loadParser();
      const slot = await pool.acquire(run, url, signal);
      try {
        if (slot.holds !== run) {
          // A worker gave this part's mesh up to read another part: read the file again, quietly.
          const bytes = await file.arrayBuffer();
          await readOn(slot, run, { name: file.name, bytes, maxBytes, settings: null }, signal, () => {}, false);
        }
        const id = nextId++;
        const request: MeasureRequest = { kind: 'measure', id, settings: again, scale };
        return await exchange<Features | null>(
          slot,
          signal,
          (w) => w.postMessage(request),
          (reply, done) => {
            if ('features' in reply && reply.id === id) done(reply.features);
          },
        );
      } finally {
        pool.release(slot);
      }
    } catch {
      return null;
    }
  };
  return { parsed: parsedOrFailed, features, measure };
}

/** A time the worker measured, as a User Timing entry ending now (the worker's clock has another origin). */
function recordMeasure(name: string, ms: number): void {
  try {
    performance.measure(name, { end: performance.now(), duration: ms });
  } catch {
    // A browser without User Timing level 3 options: the timing is only informative.
  }
}

// Runs one parse in a fresh Web Worker. The worker's code is a second file built beside the widget
// script (slice-quote-worker.js), so a shop page's first load carries only the element and its
// preview: it is fetched once per page (at idle after the widget has its options, or at the first
// file) and started from a blob URL, since a worker script cannot be loaded from the API's origin
// into the shop's page. Aborting terminates the worker: a shopper who drops a second file does not
// wait for the first. The preview comes first; the estimate's features follow from the same worker
// (null without settings or on failure). One worker waits ready at idle, its estimator already run
// once on a small part (warmed up), so the shopper's first model is measured by compiled code.
import workerUrl from './parse.worker.ts?worker&url';
import type { EstimateSettings, Features } from '../../shared/estimate/index.ts';
import { networkError, WidgetError } from './errors.ts';
import type {
  MeasuredFeatures,
  ParsedPreview,
  ParseReply,
  ParseRequest,
  WarmedUp,
  WarmUpRequest,
} from './parse-protocol.ts';

/** User Timing names under which the page can read the worker's own times (docs/widget.md, "Timings"). */
export const PARSE_MEASURE = 'slice-quote:parse';
export const FEATURES_MEASURE = 'slice-quote:features';
export const WARM_UP_MEASURE = 'slice-quote:warm-up';

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

/** A worker started and warmed up ahead of the next file (one per page), or null. */
let spare: Promise<Worker> | null = null;
let spareSettings: EstimateSettings | null = null;

/**
 * Once the page is idle: fetches the worker's code, so that the first file does not wait for it, and starts a
 * worker that runs the estimator once on a small part with the shop's settings (`settings`; none: no warm-up).
 */
export function prefetchParser(settings: EstimateSettings | null = null): void {
  spareSettings = settings;
  whenIdle(() => void startSpare().catch(() => undefined));
}

const whenIdle = (run: () => void) => {
  if ('requestIdleCallback' in window) requestIdleCallback(run, { timeout: 5000 });
  else setTimeout(run, 0);
};

function startSpare(): Promise<Worker> {
  if (spare) return spare;
  const starting = loadParser().then((url) => {
    const worker = new Worker(url, { type: 'module', name: 'slice-quote-parser' });
    if (!spareSettings) return worker;
    return new Promise<Worker>((resolve) => {
      worker.onmessage = (e: MessageEvent<WarmedUp>) => {
        recordMeasure(WARM_UP_MEASURE, e.data.warmedUp);
        resolve(worker);
      };
      // A worker that fails to warm up is still a worker: the file's own run reports any real failure.
      worker.onerror = () => resolve(worker);
      const request: WarmUpRequest = { warmUp: spareSettings! };
      worker.postMessage(request);
    });
  });
  spare = starting;
  starting.catch(() => {
    if (spare === starting) spare = null;
  });
  return starting;
}

/** The worker for the next file: the spare one (whose warm-up is awaited) or a new one; another spare follows. */
async function takeWorker(url: string): Promise<Worker> {
  const ready = spare;
  spare = null;
  const worker = ready ? await ready.catch(() => null) : null;
  if (spareSettings) whenIdle(() => void startSpare().catch(() => undefined));
  return worker ?? new Worker(url, { type: 'module', name: 'slice-quote-parser' });
}

export interface ParseRun {
  parsed: Promise<ParsedPreview>;
  /** Never rejects: null when no features could be measured. */
  features: Promise<Features | null>;
}

export function parseInWorker(
  file: File,
  maxBytes: number,
  settings: EstimateSettings | null,
  signal: AbortSignal,
): ParseRun {
  let settleFeatures: (f: Features | null) => void = () => {};
  const features = new Promise<Features | null>((resolve) => (settleFeatures = resolve));
  const parsed = new Promise<ParsedPreview>((resolve, reject) => {
    let worker: Worker | null = null;
    const end = (error?: unknown) => {
      worker?.terminate();
      settleFeatures(null);
      if (error !== undefined) reject(error);
    };
    signal.addEventListener('abort', () => end(signal.reason), { once: true });
    const start = (started: Worker, bytes: ArrayBuffer) => {
      if (signal.aborted) return void started.terminate();
      worker = started;
      worker.onerror = () => end(new WidgetError('parse_failed', 'The model could not be read in the browser.', false));
      worker.onmessage = (e: MessageEvent<ParseReply | MeasuredFeatures>) => {
        const reply = e.data;
        if ('features' in reply) {
          if (reply.ms !== null) recordMeasure(FEATURES_MEASURE, reply.ms);
          settleFeatures(reply.features);
          return end();
        }
        if (reply.ok) {
          recordMeasure(PARSE_MEASURE, reply.ms);
          resolve(reply);
        } else end(new WidgetError(reply.code, reply.message, false));
      };
      const request: ParseRequest = { name: file.name, bytes, maxBytes, settings };
      worker.postMessage(request, [bytes]);
    };
    Promise.all([loadParser().then(takeWorker), file.arrayBuffer()]).then(([w, bytes]) => start(w, bytes), end);
  });
  return { parsed, features };
}

/** A time the worker measured, as a User Timing entry ending now (the worker's clock has another origin). */
function recordMeasure(name: string, ms: number): void {
  try {
    performance.measure(name, { end: performance.now(), duration: ms });
  } catch {
    // A browser without User Timing level 3 options: the timing is only informative.
  }
}

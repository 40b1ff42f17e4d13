// Runs one parse in a fresh Web Worker. The worker's code is a second file built beside the widget
// script (slice-quote-worker.js), so a shop page's first load carries only the element and its
// preview: it is fetched once per page (at idle after the widget has its options, or at the first
// file) and started from a blob URL, since a worker script cannot be loaded from the API's origin
// into the shop's page. Aborting terminates the worker: a shopper who drops a second file does not
// wait for the first. The preview comes first; the estimate's features follow from the same worker
// (null without settings or on failure). The worker then stays, holding the mesh, until the part's run
// ends: a changed choice's features are measured there again (ParseRun.measure).
import workerUrl from './parse.worker.ts?worker&url';
import type { EstimateSettings, Features } from '../../shared/estimate/index.ts';
import { networkError, WidgetError } from './errors.ts';
import type { MeasuredFeatures, MeasureRequest, ParsedPreview, ParseReply, ParseRequest } from './parse-protocol.ts';

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
   * read): the worker keeps the mesh until the run's signal aborts. Never rejects: null when none can be measured
   * (the parse failed, the run ended, the estimator refuses the mesh).
   */
  measure(settings: EstimateSettings, scale: number): Promise<Features | null>;
}

export function parseInWorker(
  file: File,
  maxBytes: number,
  settings: EstimateSettings | null,
  signal: AbortSignal,
): ParseRun {
  let settleFeatures: (f: Features | null) => void = () => {};
  const features = new Promise<Features | null>((resolve) => (settleFeatures = resolve));
  let worker: Worker | null = null;
  let ended = false;
  let nextId = 1;
  const asked = new Map<number, (f: Features | null) => void>();
  const end = () => {
    ended = true;
    worker?.terminate();
    settleFeatures(null);
    for (const settle of asked.values()) settle(null);
    asked.clear();
  };
  const parsed = new Promise<ParsedPreview>((resolve, reject) => {
    const fail = (error: unknown) => {
      end();
      reject(error);
    };
    signal.addEventListener('abort', () => fail(signal.reason), { once: true });
    const start = (url: string, bytes: ArrayBuffer) => {
      if (signal.aborted) return;
      const w = new Worker(url, { type: 'module', name: 'slice-quote-parser' });
      worker = w;
      w.onerror = () => fail(new WidgetError('parse_failed', 'The model could not be read in the browser.', false));
      w.onmessage = (e: MessageEvent<ParseReply | MeasuredFeatures>) => {
        const reply = e.data;
        if ('features' in reply) {
          if (reply.id !== undefined) {
            asked.get(reply.id)?.(reply.features);
            asked.delete(reply.id);
            return;
          }
          if (reply.ms !== null) recordMeasure(FEATURES_MEASURE, reply.ms);
          settleFeatures(reply.features);
          return;
        }
        if (reply.ok) {
          recordMeasure(PARSE_MEASURE, reply.ms);
          resolve(reply);
        } else fail(new WidgetError(reply.code, reply.message, false));
      };
      const request: ParseRequest = { kind: 'parse', name: file.name, bytes, maxBytes, settings };
      w.postMessage(request, [bytes]);
    };
    Promise.all([loadParser(), file.arrayBuffer()]).then(([url, bytes]) => start(url, bytes), fail);
  });
  parsed.catch(() => undefined); // read by the caller; a failed parse leaves nothing to measure
  const measure = async (again: EstimateSettings, scale: number): Promise<Features | null> => {
    // The first measurement comes first: the worker answers in order, and the mesh must have been read.
    if (
      !(await parsed.then(
        () => true,
        () => false,
      )) ||
      ended ||
      !worker
    )
      return null;
    await features;
    if (ended) return null;
    const id = nextId++;
    const request: MeasureRequest = { kind: 'measure', id, settings: again, scale };
    return new Promise((resolve) => {
      asked.set(id, resolve);
      worker!.postMessage(request);
    });
  };
  return { parsed, features, measure };
}

/** A time the worker measured, as a User Timing entry ending now (the worker's clock has another origin). */
function recordMeasure(name: string, ms: number): void {
  try {
    performance.measure(name, { end: performance.now(), duration: ms });
  } catch {
    // A browser without User Timing level 3 options: the timing is only informative.
  }
}

// Runs one parse in a fresh Web Worker. The worker's code is a second file built beside the widget
// script (slice-quote-worker.js), so a shop page's first load carries only the element and its
// preview: it is fetched once per page (at idle after the widget has its options, or at the first
// file) and started from a blob URL, since a worker script cannot be loaded from the API's origin
// into the shop's page. Aborting terminates the worker: a shopper who drops a second file does not
// wait for the first. The preview comes first; the estimate's features follow from the same worker
// (null without settings or on failure). The worker then stays, holding the mesh, until the part's run
// ends: a changed choice's features are measured there again (ParseRun.measure).

import type { EstimateSettings } from '../../shared/estimate/index.ts';
import { networkError, WidgetError } from './errors.ts';
import workerUrl from './parse.worker.ts?worker&url';
import type {
  EstimateStage,
  MeasuredFeatures,
  MeasureRequest,
  ParsedPreview,
  ParseReply,
  ParseRequest,
  StageFeatures,
} from './parse-protocol.ts';

/** User Timing names under which the page can read the worker's own times (docs/widget.md, "Timings"). */
export const PARSE_MEASURE = 'slice-quote:parse';
export const FEATURES_MEASURE = 'slice-quote:features';
export const COARSE_MEASURE = 'slice-quote:coarse-features';

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
  /** The first measurement of each stage, with the parse's settings. Never rejects: null when none was made. */
  first: { [S in EstimateStage]: Promise<StageFeatures[S] | null> };
  /**
   * A stage's features again with other settings (a changed choice), the mesh scaled by `scale` (rescaled since it
   * was read): the worker keeps the mesh until the run's signal aborts. Never rejects: null when none can be
   * measured (the parse failed, the run ended, the estimator refuses the mesh).
   */
  measure<S extends EstimateStage>(
    stage: S,
    settings: EstimateSettings,
    scale: number,
  ): Promise<StageFeatures[S] | null>;
}

type Settle = (f: StageFeatures[EstimateStage] | null) => void;

/** A promise and the function that settles it. */
function settled<T>(): { promise: Promise<T | null>; settle: (v: T | null) => void } {
  let settle: (v: T | null) => void = () => {};
  const promise = new Promise<T | null>((resolve) => (settle = resolve));
  return { promise, settle };
}

export function parseInWorker(
  file: File,
  maxBytes: number,
  settings: EstimateSettings | null,
  signal: AbortSignal,
): ParseRun {
  const coarse = settled<StageFeatures['coarse']>();
  const fine = settled<StageFeatures['fine']>();
  const settleFirst: Record<EstimateStage, Settle> = { coarse: coarse.settle as Settle, fine: fine.settle as Settle };
  let worker: Worker | null = null;
  let ended = false;
  let nextId = 1;
  const asked = new Map<number, Settle>();
  const end = () => {
    ended = true;
    worker?.terminate();
    coarse.settle(null);
    fine.settle(null);
    for (const settle of asked.values()) settle(null);
    asked.clear();
  };
  const measured = (reply: MeasuredFeatures) => {
    if (reply.id !== undefined) {
      asked.get(reply.id)?.(reply.features);
      asked.delete(reply.id);
      return;
    }
    if (reply.ms !== null) recordMeasure(reply.stage === 'coarse' ? COARSE_MEASURE : FEATURES_MEASURE, reply.ms);
    settleFirst[reply.stage](reply.features);
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
        if ('stage' in reply) return measured(reply);
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
  const first = { coarse: coarse.promise, fine: fine.promise };
  const measure = async <S extends EstimateStage>(stage: S, again: EstimateSettings, scale: number) => {
    // The first measurement of the stage comes first: the worker answers in order, and the mesh must have been read.
    const read = await parsed.then(
      () => true,
      () => false,
    );
    if (!read || ended || !worker) return null;
    await first[stage];
    if (ended) return null;
    const id = nextId++;
    const request: MeasureRequest = { kind: 'measure', id, stage, settings: again, scale };
    return new Promise<StageFeatures[S] | null>((resolve) => {
      asked.set(id, resolve as Settle);
      worker!.postMessage(request);
    });
  };
  return { parsed, first, measure };
}

/** A time the worker measured, as a User Timing entry ending now (the worker's clock has another origin). */
function recordMeasure(name: string, ms: number): void {
  try {
    performance.measure(name, { end: performance.now(), duration: ms });
  } catch {
    // A browser without User Timing level 3 options: the timing is only informative.
  }
}

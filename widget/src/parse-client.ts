// Runs one parse in a fresh Web Worker. The worker is inlined in the bundle (a blob URL), since a
// worker script cannot be loaded from the API's origin into the shop's page. Aborting terminates
// the worker: a shopper who drops a second file does not wait for the first. The preview comes
// first; the estimate's features follow from the same worker (null without settings or on failure).
import ParseWorker from './parse.worker.ts?worker&inline';
import type { EstimateSettings, Features } from '../../shared/estimate/index.ts';
import { WidgetError } from './errors.ts';
import type { MeasuredFeatures, ParsedPreview, ParseReply, ParseRequest } from './parse-protocol.ts';

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
    const worker = new ParseWorker({ name: 'slice-quote-parser' });
    const end = (error?: unknown) => {
      worker.terminate();
      settleFeatures(null);
      if (error !== undefined) reject(error);
    };
    signal.addEventListener('abort', () => end(signal.reason), { once: true });
    worker.onerror = () => end(new WidgetError('parse_failed', 'The model could not be read in the browser.', false));
    worker.onmessage = (e: MessageEvent<ParseReply | MeasuredFeatures>) => {
      const reply = e.data;
      if ('features' in reply) {
        settleFeatures(reply.features);
        return end();
      }
      if (reply.ok) resolve(reply);
      else end(new WidgetError(reply.code, reply.message, false));
    };
    file.arrayBuffer().then((bytes) => {
      if (signal.aborted) return;
      const request: ParseRequest = { name: file.name, bytes, maxBytes, settings };
      worker.postMessage(request, [bytes]);
    }, end);
  });
  return { parsed, features };
}

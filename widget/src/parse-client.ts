// Runs one parse in a fresh Web Worker. The worker is inlined in the bundle (a blob URL), since a
// worker script cannot be loaded from the API's origin into the shop's page. Aborting terminates
// the worker: a shopper who drops a second file does not wait for the first.
import ParseWorker from './parse.worker.ts?worker&inline';
import { WidgetError } from './errors.ts';
import type { ParsedPreview, ParseReply, ParseRequest } from './parse-protocol.ts';

export async function parseInWorker(file: File, maxBytes: number, signal: AbortSignal): Promise<ParsedPreview> {
  const bytes = await file.arrayBuffer();
  const worker = new ParseWorker({ name: 'slice-quote-parser' });
  try {
    return await new Promise<ParsedPreview>((resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      worker.onerror = () =>
        reject(new WidgetError('parse_failed', 'The model could not be read in the browser.', false));
      worker.onmessage = (e: MessageEvent<ParseReply>) => {
        const reply = e.data;
        if (reply.ok) resolve(reply);
        else reject(new WidgetError(reply.code, reply.message, false));
      };
      const request: ParseRequest = { name: file.name, bytes, maxBytes };
      worker.postMessage(request, [bytes]);
    });
  } finally {
    worker.terminate();
  }
}

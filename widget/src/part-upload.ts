// A part's upload: through its own single-use upload id (the shopper's token is the client's, shared by all parts),
// sent beside the parse; a file the parse refuses is not kept: its upload stops on the way, or the file is deleted
// once it has arrived.
import type { WidgetApi } from './api.ts';
import { toWidgetError, WidgetError } from './errors.ts';
import { type RetryRule, retrying } from './retry.ts';
import type { FileRecord } from './types.ts';

/** Uploads smaller than this are never cut short: they are let arrive and deleted (see worthCutting). */
const CUT_MIN_BYTES = 8 * 1024 * 1024;

/** How many times in all an upload is sent while the server refuses it because the shopper's other files are read. */
const QUEUE_TRIES = 5;

/** How many times a refused file's deletion is asked: a busy server's 429 or 503 is not the last word on it. */
const DELETE_TRIES = 5;

/**
 * Whether to stop an unwanted upload on its way rather than let it arrive and delete it. Progress events lag the
 * bytes (a small file leaves in one write and reports it later), and the server keeps an upload whose last byte
 * arrived even if the browser then cuts it: so only a large upload with at least half still to send is cut, where
 * the bytes saved matter and the events' lag cannot span that half on a shopper's connection.
 */
function worthCutting(size: number, progress: number): boolean {
  return size >= CUT_MIN_BYTES && progress < 0.5;
}

/**
 * The shopper's other files are still being read (several dropped at once): this one waits its turn, as long as the
 * server asks, a few times, instead of failing its row.
 */
const queueWait: RetryRule = (e, attempt) =>
  e instanceof WidgetError && e.code === 'parse_queue_full' && attempt < QUEUE_TRIES ? e.retryAfterMs || 1000 : null;

/** A deletion refused for now (429, 5xx, the connection lost) is asked again after Retry-After, or a growing pause. */
const deleteWait: RetryRule = (e, attempt) => {
  const err = toWidgetError(e);
  return err.retryable && attempt < DELETE_TRIES ? err.retryAfterMs || 500 * attempt : null;
};

/** An upload under way beside the parse. */
export interface Sending {
  done: Promise<FileRecord>;
  /** Stops the upload, or deletes the file once it has arrived. */
  drop(): void;
}

/** How an upload reports: the share of the file sent (0..1), and the last share reported. */
export interface UploadProgress {
  report(sent: number): void;
  last(): number;
}

/** One upload of `file`, stopped when `run` aborts; its progress is reported until it is dropped. */
export function sendFile(client: WidgetApi, file: File, run: AbortSignal, progress: UploadProgress): Sending {
  const stop = new AbortController();
  run.addEventListener('abort', () => stop.abort(), { once: true });
  let dropped = false;
  const done = retrying(
    async () => {
      const ticket = await client.uploadTicket(stop.signal);
      return client.upload(ticket, file, (f) => dropped || progress.report(f), stop.signal);
    },
    queueWait,
    stop.signal,
  );
  done.catch(() => undefined); // read by the part once the parse has accepted the file
  const drop = () => {
    dropped = true;
    // Bytes still on their way stop (the server keeps nothing of a cut upload); a file it already has is deleted.
    if (worthCutting(file.size, progress.last())) stop.abort();
    done.then((f) => deleteUnwanted(client, f.file_id)).catch(() => undefined);
  };
  return { done, drop };
}

/** Deletes an upload the shopper's parse refused, asking again while the server is busy: it is not left with the shop. */
async function deleteUnwanted(client: WidgetApi, fileId: string): Promise<void> {
  await retrying(() => client.deleteFile(fileId), deleteWait).catch(() => undefined);
}

/** Uploads a part the widget refused before upload (too big for the printer), so that the server can rescale it. */
export async function uploadAtOnce(client: WidgetApi, file: File): Promise<FileRecord> {
  const ticket = await client.uploadTicket();
  return client.upload(ticket, file, () => undefined);
}

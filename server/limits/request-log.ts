// The request log behind GET /v2/usage: each attributed /v2 request is kept in a memory buffer and written
// in multi-row INSERTs (every flushMs, or at once when maxBatch rows wait), so a request costs an array push,
// not a database round trip. A database outage keeps at most maxBuffered rows and drops the oldest beyond.
import type { Db } from '../db/index.ts';
import type { Logger } from '../deps.ts';
import { insertRequests, pruneRequests, type RequestRecord } from './counters-sql.ts';

export interface RequestLog {
  record(r: RequestRecord): void;
  /** Writes what is buffered; GET /v2/usage calls it so a caller sees its own latest requests. */
  flush(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
  /** Rows waiting in memory (for tests and metrics). */
  readonly pending: number;
}

export interface RequestLogOptions {
  db: Db;
  log: Pick<Logger, 'error'>;
  flushMs: number;
  retentionDays: number;
  /** The injected clock: rows older than retentionDays by it are pruned (their created_at came from it too). */
  now: () => Date;
  maxBatch?: number;
  maxBuffered?: number;
}

const PRUNE_EVERY_MS = 3_600_000;

export function createRequestLog(opts: RequestLogOptions): RequestLog {
  const maxBatch = opts.maxBatch ?? 500;
  const maxBuffered = opts.maxBuffered ?? 20_000;
  let buffer: RequestRecord[] = [];
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  let lastPrune = 0;
  let dropped = 0;

  async function writeAll() {
    while (buffer.length) {
      // Taken out before the await: rows recorded meanwhile land behind it, untouched.
      const batch = buffer.splice(0, maxBatch);
      try {
        await insertRequests(opts.db, batch);
      } catch (err) {
        opts.log.error(`request log: could not write ${batch.length} rows; keeping them for the next flush`, err);
        buffer = batch.concat(buffer).slice(-maxBuffered);
        return;
      }
    }
    const now = opts.now();
    if (now.getTime() - lastPrune > PRUNE_EVERY_MS) {
      lastPrune = now.getTime();
      await pruneRequests(opts.db, opts.retentionDays, now).catch((err) =>
        opts.log.error('request log: pruning failed', err),
      );
    }
  }

  // One flush at a time; a flush asked for while one runs waits for it and then writes the rest.
  const flush = () => (running = running.then(writeAll));

  return {
    record(r) {
      buffer.push(r);
      if (buffer.length > maxBuffered) {
        buffer.splice(0, buffer.length - maxBuffered);
        if (dropped++ % 1000 === 0)
          opts.log.error('request log: buffer full (database unreachable?); dropping the oldest rows');
      }
      if (buffer.length === maxBatch) void flush();
    },
    flush,
    start() {
      timer ??= setInterval(() => void flush(), opts.flushMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await flush();
    },
    get pending() {
      return buffer.length;
    },
  };
}

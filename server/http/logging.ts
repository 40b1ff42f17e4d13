// Structured logs: one JSON object per line (pino) on stdout, and an access log line per request carrying the
// request id that the response also returns in X-Request-Id (request-edge.ts; docs/deployment.md, "Logs").
import type { Context } from 'koa';
import pino from 'pino';
import type { LogLevel } from '../config.ts';

export interface Logger {
  info(msg: string, extra?: Record<string, unknown>): void;
  error(msg: string, err?: unknown): void;
  /** The access log line of a request that ended (request-edge.ts), at level info like the others. */
  request(line: AccessLine): void;
}

/** What the access log line of a request carries besides level, time and pid (docs/deployment.md, "Logs"). */
export interface AccessLine {
  request_id: string;
  method: string;
  route: string;
  path: string;
  status: number;
  duration_ms: number;
}

/**
 * Lines are gathered and written together, at the latest LOG_FLUSH_MS after the first of them: one write per line
 * was a tenth of a health check's CPU. What is gathered is written when the process exits, a crash included
 * (pino flushes on exit); a process killed with SIGKILL loses at most the last 2 × LOG_FLUSH_MS of lines (access
 * lines are held up to LOG_FLUSH_MS before they join the batch, below).
 */
const LOG_FLUSH_MS = 200;
/** Each write hands a batch to a thread of libuv's pool, a cost per write: 12 KB is some sixty access log lines. */
const LOG_BATCH_BYTES = 12_288;

export function createLogger(level: LogLevel): Logger {
  const stdout = pino.destination({
    dest: 1,
    sync: false,
    minLength: LOG_BATCH_BYTES,
    periodicFlush: LOG_FLUSH_MS,
    contentMode: 'buffer',
  });
  // pino hands over each line as a string; gathered as strings, the batch was measured again, whole, for every line
  // added to it (9–17 % of a health check's CPU under load). As bytes, a line joins it in constant time.
  const bytes = stdout as unknown as { write(chunk: Buffer): boolean };
  const writeText = (text: string) => bytes.write(Buffer.from(text));
  const access = accessLines(process.pid, writeText);
  // Held access lines go first, so the log keeps the order in which things happened.
  const lines = {
    write: (line: string) => {
      access.handOver();
      writeText(line);
    },
  };
  const out = pino({ level, base: { pid: process.pid }, messageKey: 'msg' }, lines);
  return {
    info: (msg, extra) => out.info(extra ?? {}, msg),
    error: (msg, err) => out.error(err === undefined ? {} : { err }, msg),
    request: out.isLevelEnabled('info') ? access.hold : () => {},
  };
}

/** Access lines put together at once, ACCESS_BATCH of them (or fewer, LOG_FLUSH_MS after the first was held). */
const ACCESS_BATCH = 64;

/** Hands over the access lines each logger holds, before pino writes its destination out when the process exits. */
const holding = new Set<() => void>();
let exitHooked = false;
function handOverAtExit(handOver: () => void) {
  if (!exitHooked) {
    exitHooked = true;
    process.prependListener('exit', () => {
      for (const held of holding) held();
    });
  }
  holding.add(handOver);
}

/**
 * Access log lines, written as pino writes an info line with these fields, fields and order included, but put
 * together directly (pino's general path, its object walk, serializers and hooks, cost about 3 µs of the 55 µs
 * of CPU a health check took under load: docs/performance.md, run 8) and many at a time. A line is held with its
 * time, and the lines held are formatted in one loop into one string: formatted one by one between the requests'
 * own work, each line cost about twice as much (run 10).
 */
function accessLines(pid: number, write: (text: string) => void) {
  const text = JSON.stringify;
  const held: AccessLine[] = [];
  const times: number[] = [];
  let timer: NodeJS.Timeout | null = null;
  function handOver() {
    if (!held.length) return;
    if (timer) clearTimeout(timer);
    timer = null;
    holding.delete(handOver);
    let out = '';
    for (let i = 0; i < held.length; i++) {
      const l = held[i]!;
      out +=
        `{"level":30,"time":${times[i]},"pid":${pid},"request_id":${text(l.request_id)},"method":${text(l.method)},` +
        `"route":${text(l.route)},"path":${text(l.path)},"status":${l.status},"duration_ms":${l.duration_ms},"msg":"request"}\n`;
    }
    held.length = 0;
    times.length = 0;
    write(out);
  }
  function hold(line: AccessLine) {
    times.push(Date.now());
    if (held.push(line) >= ACCESS_BATCH) return handOver();
    if (timer) return;
    timer = setTimeout(handOver, LOG_FLUSH_MS);
    timer.unref();
    handOverAtExit(handOver);
  }
  return { hold, handOver };
}

/** The route template a request matched (ids stay out of logs, usage and metric labels), or '(unmatched)'. */
export const routeTemplate = (ctx: Context): string =>
  (ctx as Context & { _matchedRoute?: string })._matchedRoute ?? '(unmatched)';

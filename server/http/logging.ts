// Structured logs: one JSON object per line (pino) on stdout, and an access log line per request carrying the
// request id that the response also returns in X-Request-Id (request-edge.ts; docs/deployment.md, "Logs").
import type { Context } from 'koa';
import pino from 'pino';
import type { LogLevel } from '../config.ts';

export interface Logger {
  info(msg: string, extra?: Record<string, unknown>): void;
  error(msg: string, err?: unknown): void;
}

export function createLogger(level: LogLevel): Logger {
  const out = pino({ level, base: { pid: process.pid }, messageKey: 'msg' });
  return {
    info: (msg, extra) => out.info(extra ?? {}, msg),
    error: (msg, err) => out.error(err === undefined ? {} : { err }, msg),
  };
}

/** The route template a request matched (ids stay out of logs, usage and metric labels), or '(unmatched)'. */
export const routeTemplate = (ctx: Context): string =>
  (ctx as Context & { _matchedRoute?: string })._matchedRoute ?? '(unmatched)';

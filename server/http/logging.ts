// Structured logs: one JSON object per line (pino) on stdout, and an access log line per request carrying the
// request id that the response also returns in X-Request-Id (docs/deployment.md, "Logs").
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
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

/** A caller's own X-Request-Id is kept when it is a plain token; anything else gets a fresh id. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Gives every request an id (X-Request-Id) and writes its access log line when the response is done. */
export function requestLog(log: Logger) {
  return async (ctx: Context, next: Next) => {
    const given = ctx.get('x-request-id');
    const id = REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    const started = performance.now();
    ctx.res.once('close', () => {
      log.info('request', {
        request_id: id,
        method: ctx.method,
        route: routeTemplate(ctx),
        path: ctx.path,
        status: ctx.res.writableFinished ? ctx.status : 499,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
      });
    });
    await next();
  };
}

declare module '../deps.ts' {
  interface AppState {
    /** The request id, also answered in X-Request-Id. */
    requestId?: string;
  }
}

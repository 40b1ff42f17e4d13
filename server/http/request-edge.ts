// What every request goes through, whatever its route, in one middleware: its id (X-Request-Id), the
// X-Content-Type-Options header, the one error shape, a lingering close when an answer leaves the body unread, and
// one listener for the end of the answer that writes the access log line and hands the request's end to the
// others that count it (metrics, the request log). One listener and one timing instead of one per concern: the
// end of a request is where several used to pay separately for the same clock reads and closures.
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { answerError, routeNotFound } from './errors.ts';
import { type Logger, routeTemplate } from './logging.ts';

/** How a request ended: its status (499 when the client went away first) and how long the answer took. */
export interface RequestEnd {
  status: number;
  durationMs: number;
}

export type OnRequestEnd = (ctx: Context, end: RequestEnd) => void;

export interface EdgeOptions {
  log: Logger;
  maxUploadBytes: number;
  /** Called once per request when its answer is done or abandoned, after the access log line. */
  onEnd: readonly OnRequestEnd[];
}

/** A caller's own X-Request-Id is kept when it is a plain token; anything else gets a fresh id. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

export function requestEdge(opts: EdgeOptions) {
  const logError = (msg: string, err: unknown) => opts.log.error(msg, err);
  return async function edge(ctx: Context, next: Next): Promise<void> {
    const given = ctx.req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    ctx.res.setHeader('X-Request-Id', id);
    ctx.res.setHeader('X-Content-Type-Options', 'nosniff');
    const started = performance.now();
    ctx.res.once('close', () => {
      // 499 (as nginx logs it): the client went away before the answer was complete.
      const end = { status: ctx.res.writableFinished ? ctx.status : 499, durationMs: performance.now() - started };
      opts.log.request({
        request_id: id,
        method: ctx.method,
        route: routeTemplate(ctx),
        path: ctx.path,
        status: end.status,
        duration_ms: Math.round(end.durationMs * 10) / 10,
      });
      for (const onEnd of opts.onEnd) onEnd(ctx, end);
    });
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw routeNotFound(ctx);
    } catch (thrown) {
      answerError(ctx, thrown, opts.maxUploadBytes, logError);
    }
    // A refusal answered before the upload was read: Connection: close, so the connection ends in a bounded
    // lingering close (connections.ts) rather than reading an unbounded body to keep it alive.
    if (!ctx.req.complete && !ctx.headerSent) ctx.set('Connection', 'close');
  };
}

declare module '../deps.ts' {
  interface AppState {
    /** The request id, also answered in X-Request-Id. */
    requestId?: string;
  }
}

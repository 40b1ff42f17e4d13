// Times every request into slicequote_http_request_duration_seconds, labelled by route template (never by the
// raw path, which carries ids) and status; 499 when the client went away before the answer was complete.
import type { Context, Next } from 'koa';
import type { Metrics } from './metrics.ts';
import { routeTemplate } from '../http/index.ts';

export function httpMetrics(metrics: Metrics) {
  return async (ctx: Context, next: Next) => {
    const stop = metrics.requests.startTimer();
    ctx.res.once('close', () => {
      stop({
        method: ctx.method,
        route: routeTemplate(ctx),
        status: String(ctx.res.writableFinished ? ctx.status : 499),
      });
    });
    await next();
  };
}

// Times every request into slicequote_http_request_duration_seconds, labelled by route template (never by the
// raw path, which carries ids) and status; 499 when the client went away before the answer was complete. Called
// by the request edge when the answer ends (server/http/request-edge.ts), which timed it.

import { type OnRequestEnd, routeTemplate } from '../http/index.ts';
import type { Metrics } from './metrics.ts';

export function requestMetrics(metrics: Metrics): OnRequestEnd {
  return (ctx, end) => metrics.requests.observe(ctx.method, routeTemplate(ctx), end.status, end.durationMs / 1000);
}

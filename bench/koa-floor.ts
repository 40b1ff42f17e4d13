// The floor of `npm run bench -- http` (startKoaFloor in http.ts): a Koa process with one route that answers what
// every answer of ours carries and nothing else. The same response headers, the access log line written by the
// server's own logger, one observation of a request histogram; no routing, no rate limit, no credentials, no
// database. Run as `node --import tsx bench/koa-floor.ts <port>`; it says "up" on stderr once it listens.
import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import { Histogram } from 'prom-client';
import { FRAME_ANCESTORS_SELF } from '../server/accounts/index.ts';
import { createLogger, JSON_CONTENT_TYPE } from '../server/http/index.ts';

const log = createLogger('info');
const requests = new Histogram({ name: 'floor_seconds', help: 'floor', labelNames: ['method', 'route', 'status'] });
const app = new Koa();
let remaining = 1e7;
app.use((ctx) => {
  const started = performance.now();
  const id = randomUUID();
  ctx.set('X-Request-Id', id);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'SAMEORIGIN');
  ctx.set('Content-Security-Policy', FRAME_ANCESTORS_SELF);
  ctx.set('X-RateLimit-Limit', String(1e7));
  ctx.set('X-RateLimit-Remaining', String(--remaining));
  ctx.set('X-RateLimit-Reset', '60');
  ctx.res.once('close', () => {
    const ms = performance.now() - started;
    const status = ctx.status;
    log.request({
      request_id: id,
      method: ctx.method,
      route: '/healthz',
      path: ctx.path,
      status,
      duration_ms: Math.round(ms * 10) / 10,
    });
    requests.observe({ method: ctx.method, route: '/healthz', status: String(status) }, ms / 1000);
  });
  ctx.set('Content-Type', JSON_CONTENT_TYPE);
  ctx.body = '{"status":"ok","database":"postgres"}';
});
app.listen(Number(process.argv[2]), '127.0.0.1', () => console.error('up'));

// GET /metrics (Prometheus text format) and GET /readyz (can this process take traffic?), for operators
// (docs/deployment.md). /healthz (server/system/router.ts) stays the liveness check.

import { createHash, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { ANYONE, allow, type RouterPorts } from '../accounts/access/index.ts';
import type { Deps } from '../deps.ts';
import { ApiError } from '../http/index.ts';

/** 'unavailable' hides the reason from the (unauthenticated) caller; the log has it. */
type Check = 'ok' | 'not_configured' | 'unavailable';

export function operationsRouter(
  deps: RouterPorts & Pick<Deps, 'storage' | 'log' | 'lifecycle' | 'limits' | 'metrics'>,
) {
  const router = new Router();
  if (metricsServed(deps)) {
    router.get('/metrics', allow(deps, ANYONE), async (ctx) => {
      requireMetricsToken(ctx, deps.config.metricsToken);
      ctx.type = deps.metrics.registry.contentType;
      ctx.body = await deps.metrics.registry.metrics();
    });
  }
  router.get('/readyz', allow(deps, ANYONE), async (ctx) => {
    const checks = await readiness(deps);
    const ready = !deps.lifecycle.draining && Object.values(checks).every((c) => c === 'ok' || c === 'not_configured');
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : deps.lifecycle.draining ? 'draining' : 'not_ready', checks };
  });
  return router;
}

/**
 * Outside demo mode /metrics needs METRICS_TOKEN: without one it is not served (404) rather than open to anyone.
 * A missing token turns metrics off instead of stopping start-up: the service itself works without them.
 */
function metricsServed(deps: Pick<Deps, 'config' | 'log'>): boolean {
  if (deps.config.metricsToken || deps.config.demoAccount) return true;
  deps.log.info('GET /metrics is off: set METRICS_TOKEN to serve it (demo mode serves it without one)');
  return false;
}

/** With METRICS_TOKEN set, /metrics wants it as a Bearer token (compared in constant time). */
function requireMetricsToken(ctx: Context, token: string | null) {
  if (!token) return;
  const given = /^Bearer (.+)$/.exec(ctx.get('authorization'))?.[1] ?? '';
  const digest = (s: string) => createHash('sha256').update(s).digest();
  if (!timingSafeEqual(digest(given), digest(token))) {
    throw new ApiError(401, 'unauthorized', 'GET /metrics needs the METRICS_TOKEN as a Bearer token.', undefined, {
      'WWW-Authenticate': 'Bearer',
    });
  }
}

async function readiness(
  deps: Pick<Deps, 'db' | 'storage' | 'log' | 'limits'>,
): Promise<Record<'database' | 'storage' | 'redis', Check>> {
  const attempt = (name: string, run: () => Promise<unknown>): Promise<Check> =>
    run().then(
      () => 'ok',
      (err: unknown) => {
        deps.log.error(`readyz: ${name} unavailable`, err);
        return 'unavailable';
      },
    );
  const [database, storage, redis] = await Promise.all([
    attempt('database', () => deps.db.query('SELECT 1')),
    attempt('storage', () => deps.storage.ready()),
    deps.limits.limiter.kind === 'redis'
      ? attempt('redis', () => deps.limits.limiter.ping())
      : Promise.resolve<Check>('not_configured'),
  ]);
  return { database, storage, redis };
}

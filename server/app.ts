// The Koa application: error shape, routers, nothing else. Dependencies come in as one parameter.
import Koa from 'koa';
import type Router from '@koa/router';
import type { Deps } from './deps.ts';
import { errorMiddleware } from './errors.ts';
import { systemRouter } from './routes/system.ts';
import { userRouter } from './routes/user.ts';
import { filesRouter } from './routes/files.ts';
import { printabilityRouter } from './routes/printability.ts';
import { dashboardRouter } from './routes/dashboard.ts';
import { webhooksRouter } from './routes/webhooks.ts';
import { profilesRouter } from './routes/profiles.ts';
import { quotesRouter } from './routes/quotes.ts';
import { usageRouter } from './routes/usage.ts';
import { analyticsRouter } from './routes/analytics.ts';
import { limitsMiddleware } from './limits/middleware.ts';
import { widgetRouter } from './routes/widget.ts';
import { widgetKeysRouter } from './routes/widget-keys.ts';
import { staticRouter } from './routes/static.ts';
import { widgetPreflight, widgetRefusalCors } from './auth/widget.ts';
import { offerRouter } from './offer/router.ts';
import { signingRouter } from './quotes/signing-router.ts';
import { operationsRouter } from './metrics/router.ts';
import { httpMetrics } from './metrics/middleware.ts';
import { requestLog } from './logging.ts';

export function createApp(deps: Deps): Koa {
  // Koa keeps the last maxIpsCount X-Forwarded-For entries and takes the first of them: with n trusted hops,
  // the address the nearest trusted proxy saw. Entries further left are the client's to invent.
  const hops = deps.config.trustProxy;
  const app = new Koa({ proxy: hops > 0, maxIpsCount: hops });
  app.use(httpMetrics(deps.metrics));
  app.use(requestLog(deps.log));
  app.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    await next();
  });
  app.use(errorMiddleware({ maxUploadBytes: deps.config.maxUploadBytes, log: (m, e) => deps.log.error(m, e) }));
  // Rate limits and X-RateLimit-* on every response (inside the error middleware, so 429s and errors carry them).
  app.use(widgetRefusalCors);
  app.use(limitsMiddleware(deps));
  app.use(widgetPreflight);
  // A worker-only process serves health checks and nothing else. Each router types its own ctx.state.
  const routers = (
    deps.config.workerRole === 'worker'
      ? [systemRouter(deps), operationsRouter(deps)]
      : [
          systemRouter(deps),
          operationsRouter(deps),
          userRouter(deps),
          filesRouter(deps),
          printabilityRouter(deps),
          dashboardRouter(deps),
          webhooksRouter(deps),
          profilesRouter(deps),
          quotesRouter(deps),
          usageRouter(deps),
          analyticsRouter(deps),
          widgetRouter(deps),
          widgetKeysRouter(deps),
          offerRouter(deps),
          signingRouter(deps),
          staticRouter(),
        ]
  ) as Router<unknown>[];
  for (const router of routers) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: true }));
  }
  return app;
}

// The Koa application: one router that mounts every feature's routes, and the few things every request goes
// through — metrics, logs, the error shape, who is calling, CORS, rate limits — in that order. Each route
// declares who may call it (server/accounts/access.ts); dependencies come in as one parameter.
import Koa from 'koa';
import Router from '@koa/router';
import type { Deps } from './deps.ts';
import { closeWhenBodyUnread, errorMiddleware } from './http/index.ts';
import { requestLog } from './http/index.ts';
import { declaredCors } from './accounts/index.ts';
import { frameGuard } from './accounts/index.ts';
import { credentialsOf } from './accounts/index.ts';
import { routeAccess } from './accounts/index.ts';
import { limitsMiddleware } from './limits/index.ts';
import { httpMetrics } from './metrics/index.ts';
import { systemRouter } from './system/index.ts';
import { openApiDocument } from './contract.ts';
import { staticRouter } from './system/index.ts';
import { operationsRouter } from './system/index.ts';
import { accountsRouter } from './accounts/index.ts';
import { filesRouter } from './files/index.ts';
import { prefetchOnUpload } from './quotes/index.ts';
import { printabilityRouter } from './files/index.ts';
import { quotesRouter } from './quotes/index.ts';
import { signingRouter } from './quotes/index.ts';
import { profilesRouter } from './profiles/index.ts';
import { printerLibraryRouter } from './printer-library/index.ts';
import { offerRouter } from './offer/index.ts';
import { webhooksRouter } from './webhooks/index.ts';
import { usageRouter } from './usage/index.ts';
import { analyticsRouter } from './usage/index.ts';
import { limitsRouter } from './limits/index.ts';
import { retentionRouter } from './retention/index.ts';
import { widgetRouter } from './widget/index.ts';
import { widgetKeysRouter } from './widget/index.ts';
import { keptQuotesRouter } from './kept-quotes/index.ts';
import { quoteRequestsRouter } from './quote-requests/index.ts';
import { setupRouter } from './setup/index.ts';

/** Every route of the service; a worker-only process serves health checks and metrics and nothing else. */
export function createRouter(deps: Deps): Router<never> {
  const features =
    deps.config.workerRole === 'worker'
      ? [systemRouter(deps, openApiDocument), operationsRouter(deps)]
      : [
          systemRouter(deps, openApiDocument),
          operationsRouter(deps),
          accountsRouter(deps),
          filesRouter(deps, prefetchOnUpload(deps)),
          printabilityRouter(deps),
          quotesRouter(deps),
          signingRouter(deps),
          keptQuotesRouter(deps),
          quoteRequestsRouter(deps),
          setupRouter(deps),
          printerLibraryRouter(deps),
          profilesRouter(deps),
          offerRouter(deps),
          widgetRouter(deps),
          widgetKeysRouter(deps),
          webhooksRouter(deps),
          usageRouter(deps),
          analyticsRouter(deps),
          limitsRouter(deps),
          retentionRouter(deps),
          staticRouter(deps),
        ];
  const root = new Router<never>();
  for (const feature of features) root.use((feature as unknown as Router<never>).routes());
  return root;
}

export function createApp(deps: Deps): Koa {
  // Koa keeps the last maxIpsCount X-Forwarded-For entries and takes the first of them: with n trusted hops,
  // the address the nearest trusted proxy saw. Entries further left are the client's to invent.
  const hops = deps.config.trustProxy;
  const app = new Koa({ proxy: hops > 0, maxIpsCount: hops });
  const router = createRouter(deps);
  app.use(closeWhenBodyUnread);
  app.use(httpMetrics(deps.metrics));
  app.use(requestLog(deps.log));
  app.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    await next();
  });
  app.use(errorMiddleware({ maxUploadBytes: deps.config.maxUploadBytes, log: (m, e) => deps.log.error(m, e) }));
  // The route's declared access and the request's credentials, found once before anything needs them.
  app.use(async (ctx, next) => {
    ctx.state.access = routeAccess(router, ctx.method, ctx.path, ctx.get('access-control-request-method'));
    ctx.state.credentials = credentialsOf(deps, ctx);
    await next();
  });
  app.use(frameGuard);
  // CORS before the rate limits, so that a 429 on a widget route is readable by the shop page too.
  app.use(declaredCors);
  app.use(limitsMiddleware(deps));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  return app;
}

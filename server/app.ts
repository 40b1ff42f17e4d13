// The Koa application: one router that mounts every feature's routes. Every request goes through the request
// edge (its id, the access log line, metrics, the error shape); each route then runs the front its declaration asks
// for (route-front.ts: CORS or the frame guard, the request log, the rate limit in its class), built once at
// start-up, and its own middleware, which begins with who may call it (server/accounts/access/allow.ts). Dependencies
// come in as one parameter.

import Router from '@koa/router';
import Koa from 'koa';
import { accountsRouter } from './accounts/index.ts';
import { openApiDocument } from './contract.ts';
import type { Deps } from './deps.ts';
import { filesRouter, printabilityRouter } from './files/index.ts';
import { requestEdge } from './http/index.ts';
import { keptQuotesRouter } from './kept-quotes/index.ts';
import { limitsRouter, recordRequest } from './limits/index.ts';
import { requestMetrics } from './metrics/index.ts';
import { offerRouter } from './offer/index.ts';
import { printerLibraryRouter } from './printer-library/index.ts';
import { profilesRouter } from './profiles/index.ts';
import { quoteRequestsRouter } from './quote-requests/index.ts';
import { prefetchOnUpload, quotesRouter, signingRouter } from './quotes/index.ts';
import { retentionRouter } from './retention/index.ts';
import { dispatchRoutes, putFronts, unmatchedFront } from './route-front.ts';
import { setupRouter } from './setup/index.ts';
import { operationsRouter, staticRouter, systemRouter } from './system/index.ts';
import { analyticsRouter, usageRouter } from './usage/index.ts';
import { webhooksRouter } from './webhooks/index.ts';
import { widgetKeysRouter, widgetRouter } from './widget/index.ts';

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

const routers = new WeakMap<Koa, Router<never>>();
/** The router an app was built with (the hot-path test reads each route's front from it). */
export const routerOf = (app: Koa): Router<never> => routers.get(app)!;

export function createApp(deps: Deps): Koa {
  // Koa keeps the last maxIpsCount X-Forwarded-For entries and takes the first of them: with n trusted hops,
  // the address the nearest trusted proxy saw. Entries further left are the client's to invent.
  const hops = deps.config.trustProxy;
  const app = new Koa({ proxy: hops > 0, maxIpsCount: hops });
  const router = createRouter(deps);
  putFronts(deps, router);
  routers.set(app, router);
  app.use(
    requestEdge({
      log: deps.log,
      maxUploadBytes: deps.config.maxUploadBytes,
      onEnd: [requestMetrics(deps.metrics), recordRequest(deps)],
    }),
  );
  app.use(dispatchRoutes(router));
  app.use(unmatchedFront(deps, router));
  app.use(router.allowedMethods({ throw: true }));
  return app;
}

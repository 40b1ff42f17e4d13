// Health, the OpenAPI contract and the readable API reference.

import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import Router from '@koa/router';
import { ANYONE, allow, type RouterPorts } from '../accounts/access/index.ts';
import { answerJson } from '../http/index.ts';
import { sharedProbe } from './health-probe.ts';

const require = createRequire(import.meta.url);

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>slicequote API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="/v2/openapi.json"></redoc><script src="/docs/redoc.standalone.js"></script></body></html>`;

/** `contract`: the assembled OpenAPI document (server/contract.ts), served as it is. */
export function systemRouter(deps: RouterPorts, contract: () => Record<string, unknown>) {
  const router = new Router();
  // The health checks of one second share one probe of the database (health-probe.ts says why that is enough).
  const databaseAnswers = sharedProbe(() => deps.db.query('SELECT 1'), deps.now);
  const healthy = JSON.stringify({ status: 'ok', database: deps.db.kind });
  router.get('/healthz', allow(deps, ANYONE), async (ctx) => {
    await databaseAnswers();
    answerJson(ctx, healthy);
  });
  router.get('/v2/openapi.json', allow(deps, ANYONE, 'read', { crossOrigin: true }), (ctx) => {
    ctx.body = contract();
  });
  router.get('/docs', allow(deps, ANYONE), (ctx) => {
    ctx.type = 'html';
    ctx.body = DOCS_HTML;
  });
  router.get('/docs/redoc.standalone.js', allow(deps, ANYONE), (ctx) => {
    ctx.type = 'application/javascript';
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = createReadStream(require.resolve('redoc/bundles/redoc.standalone.js'));
  });
  return router;
}

// GET /v2/setup: the shop's first-run checklist (token or dashboard session).
import Router from '@koa/router';
import { API, allow, type RouterPorts } from '../accounts/access/index.ts';
import type { AppState } from '../deps.ts';
import { setupChecklist } from './service.ts';

export function setupRouter(deps: RouterPorts) {
  const router = new Router<AppState>();
  router.get('/v2/setup', allow(deps, API), async (ctx) => {
    ctx.body = await setupChecklist(deps, ctx.state.auth.account.id);
  });
  return router;
}

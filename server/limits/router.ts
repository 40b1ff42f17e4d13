// GET /v2/quota: the account's plan, its allowances this month and the rate limits it is held to (docs/limits.md).
import Router from '@koa/router';
import { API, allow, type RouterPorts } from '../accounts/access/index.ts';
import type { AppState, Deps } from '../deps.ts';
import { quotaStatus } from './quota.ts';

export function limitsRouter(deps: RouterPorts & Pick<Deps, 'plans' | 'events'>) {
  const router = new Router<AppState>();
  router.get('/v2/quota', allow(deps, API), async (ctx) => {
    ctx.body = await quotaStatus(deps, ctx.state.auth.account);
  });
  return router;
}

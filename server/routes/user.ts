import Router from '@koa/router';
import type { Deps, AppState } from '../deps.ts';
import { requireApiAuth } from '../auth/middleware.ts';
import { presentUser } from '../services/users.ts';

export function userRouter(deps: Deps) {
  const router = new Router<AppState>();
  router.get('/v2/user', requireApiAuth(deps), async (ctx) => {
    ctx.body = await presentUser(deps, ctx.state.auth.account);
  });
  return router;
}

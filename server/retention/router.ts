// /v2/retention: how long the account's shopper uploads are kept (docs/limits.md, "Retention"). The merchant sets
// the retention of uploads that were added to a cart; that of the others follows the quote validity.
import Router from '@koa/router';
import { API, allow, type RouterPorts } from '../accounts/access/index.ts';
import type { AppState } from '../deps.ts';
import { jsonBody } from '../http/index.ts';
import { validateBody } from '../openapi/index.ts';
import { cartedRetentionDays, setCartedRetentionDays } from './sql.ts';
import { uncartedDays } from './sweep.ts';

export function retentionRouter(deps: RouterPorts) {
  const router = new Router<AppState>();
  const present = async (accountId: string) => ({
    carted_upload_days: await cartedRetentionDays(deps.db, accountId),
    uncarted_upload_days: await uncartedDays(deps, accountId),
  });

  router.get('/v2/retention', allow(deps, API), async (ctx) => {
    ctx.body = await present(ctx.state.auth.account.id);
  });
  router.put('/v2/retention', allow(deps, API), jsonBody, async (ctx) => {
    const input = validateBody('RetentionInput', ctx.request.body);
    await setCartedRetentionDays(deps.db, ctx.state.auth.account.id, input.carted_upload_days);
    ctx.body = await present(ctx.state.auth.account.id);
  });
  return router;
}

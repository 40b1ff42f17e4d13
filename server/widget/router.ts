// The storefront widget's own routes (widget key or token): its configuration, and add-to-cart.
import Router from '@koa/router';
import type { Deps, AppState } from '../deps.ts';
import { allow, API_OR_WIDGET } from '../accounts/access.ts';
import { jsonBody } from '../http/json-body.ts';
import { validateBody } from '../openapi/validate.ts';
import { widgetConfig, addToCart } from './service.ts';

export function widgetRouter(deps: Deps) {
  const router = new Router<AppState>({ prefix: '/v2/widget' });
  router.get('/config', allow(deps, API_OR_WIDGET), async (ctx) => {
    ctx.body = await widgetConfig(deps, ctx.state.auth);
  });
  router.post('/cart', allow(deps, API_OR_WIDGET), jsonBody, async (ctx) => {
    const body = validateBody<{ quote_id: string; quantity?: number }>('CartRequest', ctx.request.body);
    ctx.status = 201;
    ctx.body = await addToCart(deps, ctx.state.auth, body.quote_id, body.quantity ?? 1, ctx.get('origin') || null);
  });
  return router;
}

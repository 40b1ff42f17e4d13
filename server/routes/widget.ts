// The storefront widget's own routes (widget key or token): its configuration, and add-to-cart.
import Router from '@koa/router';
import type { Deps, AppState } from '../deps.ts';
import { requireApiAuth } from '../auth/middleware.ts';
import { jsonBody } from '../json-body.ts';
import { validateBody } from '../openapi/validate.ts';
import { widgetConfig, addToCart } from '../services/widget.ts';

export function widgetRouter(deps: Deps) {
  const router = new Router<AppState>({ prefix: '/v2/widget' });
  const auth = requireApiAuth(deps);
  router.get('/config', auth, async (ctx) => {
    ctx.body = await widgetConfig(deps, ctx.state.auth);
  });
  router.post('/cart', auth, jsonBody, async (ctx) => {
    const body = validateBody<{ quote_id: string; quantity?: number }>('CartRequest', ctx.request.body);
    ctx.status = 201;
    ctx.body = await addToCart(deps, ctx.state.auth, body.quote_id, body.quantity ?? 1, ctx.get('origin') || null);
  });
  return router;
}

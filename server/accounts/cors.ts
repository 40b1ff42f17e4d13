// CORS for the routes that shop pages on other origins call (the widget routes, public uploads, the contract
// and the widget script): the route declares it (server/accounts/access.ts). The page's origin is reflected and
// no credentials are allowed; a widget key still works only from its allowed origins, checked by the route, so a
// refusal (401, 403, 429) is readable by the page and the widget can say why instead of "network error".
import cors from '@koa/cors';
import type { Next, ParameterizedContext } from 'koa';
import type { AppState } from '../deps.ts';
import { isCrossOrigin } from './access.ts';

const crossOrigin = cors({
  origin: (ctx) => ctx.get('origin'),
  // DELETE: a shopper's own upload that the widget's parse refused (docs/instant-price.md).
  allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
  allowHeaders: ['Content-Type', 'X-Widget-Key', 'X-Shopper-Token', 'Prefer'],
  exposeHeaders: [
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
    'Retry-After',
    'Preference-Applied',
  ],
  maxAge: 600,
  keepHeadersOnError: true,
});

export async function declaredCors(ctx: ParameterizedContext<AppState>, next: Next) {
  if (isCrossOrigin(ctx.state.access)) return crossOrigin(ctx, next);
  await next();
}

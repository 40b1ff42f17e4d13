// CORS for the routes that shop pages on other origins call (the widget routes, public uploads, the contract
// and the widget script): the route declares it (server/accounts/access/). The page's origin is reflected and
// no credentials are allowed; a widget key still works only from its allowed origins, checked by the route, so a
// refusal (401, 403, 429) is readable by the page and the widget can say why instead of "network error".
import cors from '@koa/cors';
import { type Access, isCrossOrigin } from './access/index.ts';
import { denyFraming } from './frame-guard.ts';

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

/**
 * A route's policy toward pages on other origins, chosen once per route: CORS for the routes shop pages call, and
 * framing refused for every other (frame-guard.ts). A request no route answers gets the latter.
 */
export const originPolicy = (access: Access | undefined) => (isCrossOrigin(access) ? crossOrigin : denyFraming);

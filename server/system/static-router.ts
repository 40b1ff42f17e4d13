// Built front-ends: the storefront widget bundle and the merchant dashboard (a single-page app).

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import send from 'koa-send';
import { type AccessPorts, ANYONE, allow } from '../accounts/access/index.ts';
import { FRAME_ANCESTORS_SELF } from '../accounts/index.ts';
import { routeParam } from '../http/index.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const widgetDist = path.join(root, 'widget', 'dist');
const dashboardDist = path.join(root, 'dashboard', 'dist');

/**
 * The dashboard runs only its own bundle: no inline or third-party scripts, API calls to this server only.
 * Inline styles stay allowed (Lit templates and the widget preview's frame use style attributes); the favicon
 * is a data: URL; the widget in the live preview parses models in a worker started from a blob: URL.
 */
const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  FRAME_ANCESTORS_SELF,
].join('; ');

export function staticRouter(deps: AccessPorts) {
  const router = new Router();
  // A shop page on any origin loads the script.
  router.get('/widget/:file', allow(deps, ANYONE, 'read', { crossOrigin: true }), async (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.vary('Accept-Encoding'); // the build's .br and .gz copies are sent to browsers that accept them
    await send(ctx, routeParam(ctx, 'file'), { root: widgetDist });
  });
  router.get(/^\/dashboard(?:\/(?!api\/)(.*))?$/, allow(deps, ANYONE), async (ctx) => {
    if (ctx.path === '/dashboard') return ctx.redirect('/dashboard/');
    // @koa/router leaves ctx.params empty for RegExp routes, so the asset path comes from ctx.path.
    const rel = ctx.path.replace(/^\/dashboard\/?/, '') || 'index.html';
    const asset = path.join(dashboardDist, rel);
    // Unknown paths fall back to the app shell so client-side routes survive a reload.
    const file = asset.startsWith(dashboardDist) && existsSync(asset) && !rel.endsWith('/') ? rel : 'index.html';
    ctx.set('Cache-Control', file === 'index.html' ? 'no-cache' : 'public, max-age=3600');
    ctx.set('Content-Security-Policy', DASHBOARD_CSP);
    ctx.vary('Accept-Encoding');
    await send(ctx, file, { root: dashboardDist });
  });
  return router;
}

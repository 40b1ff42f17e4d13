// Who may frame our pages: the dashboard and its API (and everything else a shop page does not call) only from
// our own origin, so no other site can overlay them to trick a merchant into clicks. The routes shop pages call
// (the widget script, the widget API, public uploads, the contract) stay embeddable on any origin (cors.ts's
// originPolicy chooses between the two for each route).
import type { Next, ParameterizedContext } from 'koa';
import type { AppState } from '../deps.ts';

export const FRAME_ANCESTORS_SELF = "frame-ancestors 'self'";

/** Set before the route runs, so error answers carry the headers too; a route may tighten the policy further. */
export function denyFraming(ctx: ParameterizedContext<AppState>, next: Next) {
  ctx.res.setHeader('X-Frame-Options', 'SAMEORIGIN');
  ctx.res.setHeader('Content-Security-Policy', FRAME_ANCESTORS_SELF);
  return next();
}

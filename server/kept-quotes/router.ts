// Kept quotes over HTTP: make a link to a quote, open it, download its PDF (docs/widget.md, "Quotes shoppers can keep").
import Router from '@koa/router';
import type { Deps, AppState } from '../deps.ts';
import { allow, API_OR_WIDGET } from '../accounts/access.ts';
import { routeParam } from '../http/route-params.ts';
import { keepQuote, keptQuotePdf, openKeptQuote } from './service.ts';

export function keptQuotesRouter(deps: Deps) {
  const router = new Router<AppState>();
  router.post('/v2/quotes/:quote_id/link', allow(deps, API_OR_WIDGET), async (ctx) => {
    ctx.status = 201;
    ctx.body = await keepQuote(deps, ctx.state.auth, routeParam(ctx, 'quote_id'));
  });
  router.get('/v2/kept-quotes/:token', allow(deps, API_OR_WIDGET), async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await openKeptQuote(deps, ctx.state.auth, routeParam(ctx, 'token'));
  });
  router.get('/v2/kept-quotes/:token/pdf', allow(deps, API_OR_WIDGET), async (ctx) => {
    const token = routeParam(ctx, 'token');
    const pdf = await keptQuotePdf(deps, ctx.state.auth, token);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Disposition', `attachment; filename="quote-${token.split('.')[0]}.pdf"`);
    ctx.type = 'application/pdf';
    ctx.body = pdf;
  });
  return router;
}

// Kept quotes over HTTP: make a link to a quote, open it, order it, download its PDF (docs/widget.md, "Quotes
// shoppers can keep").
import Router from '@koa/router';
import type { Context } from 'koa';
import { API_OR_WIDGET, allow, type RouterPorts } from '../accounts/access/index.ts';
import type { AppState, Deps } from '../deps.ts';
import { jsonBody, routeParam } from '../http/index.ts';
import { idempotent } from '../idempotency/index.ts';
import { validateBody } from '../openapi/index.ts';
import { limitCartAdds } from '../widget/index.ts';
import { keepQuote, keptQuotePdf, openKeptQuote, orderKeptQuote } from './service.ts';

/**
 * The origin a widget's request came from, which its key was allowed from (accounts/widget-key.ts: the Origin
 * header, or the server's own for a same-origin call); null for the merchant's token or session.
 */
function callerOrigin(deps: Pick<Deps, 'config'>, ctx: Context & { state: AppState }): string | null {
  if (ctx.state.auth.via !== 'widget') return null;
  return ctx.get('origin') || new URL(deps.config.publicUrl).origin;
}

export function keptQuotesRouter(deps: RouterPorts & Pick<Deps, 'storage' | 'log' | 'limits' | 'pictures' | 'events'>) {
  const router = new Router<AppState>();
  router.post('/v2/quotes/:quote_id/link', allow(deps, API_OR_WIDGET), jsonBody, async (ctx) => {
    const body = validateBody('KeepQuoteRequest', ctx.request.body ?? {});
    ctx.status = 201;
    ctx.body = await keepQuote(deps, ctx.state.auth, routeParam(ctx, 'quote_id'), body.quantity);
  });
  router.get('/v2/kept-quotes/:token', allow(deps, API_OR_WIDGET), async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await openKeptQuote(deps, ctx.state.auth, routeParam(ctx, 'token'));
  });
  router.post('/v2/kept-quotes/:token/cart', allow(deps, API_OR_WIDGET), idempotent(deps), async (ctx) => {
    await limitCartAdds(deps, ctx);
    ctx.status = 201;
    ctx.body = await orderKeptQuote(deps, ctx.state.auth, routeParam(ctx, 'token'), ctx.get('origin') || null);
  });
  router.get('/v2/kept-quotes/:token/pdf', allow(deps, API_OR_WIDGET), async (ctx) => {
    const token = routeParam(ctx, 'token');
    const page = typeof ctx.query.page === 'string' ? ctx.query.page : undefined;
    const pdf = await keptQuotePdf(deps, ctx.state.auth, token, { url: page, origin: callerOrigin(deps, ctx) });
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Disposition', `attachment; filename="quote-${token.split('.')[0]}.pdf"`);
    ctx.type = 'application/pdf';
    ctx.body = pdf;
  });
  return router;
}

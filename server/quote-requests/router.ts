// Quote requests over HTTP: the widget's "Request a quote" (widget key or token), the merchant's list, one request,
// and its price (API token or dashboard only: a shopper never sets a price).
import Router from '@koa/router';
import { API, API_OR_WIDGET, allow, type RouterPorts } from '../accounts/access/index.ts';
import type { AppState, Deps } from '../deps.ts';
import { jsonBody, notFound, pageRequest, pageResponse, routeParam, ValidationError } from '../http/index.ts';
import { idempotent } from '../idempotency/index.ts';
import { validateBody } from '../openapi/index.ts';
import { STATUSES } from './openapi.ts';
import { presentRequest } from './present.ts';
import { priceRequest } from './price.ts';
import { createRequest } from './service.ts';
import { listRequests, requestById } from './sql.ts';

export function quoteRequestsRouter(deps: RouterPorts & Pick<Deps, 'log' | 'limits' | 'events'>) {
  const router = new Router<AppState>();
  router.post('/v2/quote-requests', allow(deps, API_OR_WIDGET), jsonBody, idempotent(deps), async (ctx) => {
    const body = validateBody('QuoteRequestCreate', ctx.request.body);
    ctx.status = 201;
    ctx.body = await createRequest(deps, ctx.state.auth, body, ctx.get('origin') || null);
  });
  router.get('/v2/quote-requests', allow(deps, API), async (ctx) => {
    const page = pageRequest(ctx);
    const status = typeof ctx.query.status === 'string' ? ctx.query.status.toLowerCase() : null;
    if (ctx.query.status !== undefined && !(STATUSES as readonly (string | null)[]).includes(status))
      throw new ValidationError([{ field: 'status', message: `must be one of ${STATUSES.join(', ')}` }]);
    const { rows, total } = await listRequests(deps.db, ctx.state.auth.account.id, status, page.limit, page.offset);
    ctx.body = pageResponse(
      rows.map((r) => presentRequest(deps, r)),
      page,
      total,
    );
  });
  router.get('/v2/quote-requests/:request_id', allow(deps, API), async (ctx) => {
    const id = routeParam(ctx, 'request_id');
    const row = await requestById(deps.db, ctx.state.auth.account.id, id);
    if (!row) throw notFound('quote request', id);
    ctx.body = presentRequest(deps, row);
  });
  router.post('/v2/quote-requests/:request_id/price', allow(deps, API), jsonBody, idempotent(deps), async (ctx) => {
    const body = validateBody('QuoteRequestPrice', ctx.request.body);
    ctx.body = await priceRequest(deps, ctx.state.auth, routeParam(ctx, 'request_id'), body);
  });
  return router;
}

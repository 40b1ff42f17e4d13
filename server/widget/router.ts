// The storefront widget's own routes (widget key or token): its configuration, and add-to-cart.
import Router from '@koa/router';
import type { Context } from 'koa';
import type { CoarseFeatures, Features } from '../../shared/estimate/index.ts';
import { API, API_OR_WIDGET, allow, type RouterPorts } from '../accounts/access/index.ts';
import type { AppState, Deps } from '../deps.ts';
import {
  ApiError,
  type FieldProblem,
  jsonBody,
  pageRequest,
  pageResponse,
  routeParam,
  ValidationError,
} from '../http/index.ts';
import { idempotent } from '../idempotency/index.ts';
import { validateBody } from '../openapi/index.ts';
import { materialPrices } from '../quotes/index.ts';
import { csvStream } from '../usage/index.ts';
import { allOrders, listOrders } from './cart-sql.ts';
import { widgetConfigs } from './config.ts';
import { estimateFromFeatures } from './instant-estimate.ts';
import { acknowledge, ORDER_COLUMNS, orderCsvRows, presentOrder } from './orders.ts';
import { addCartLines, addedBy, addToCart, type CartRequestLine } from './service.ts';

/**
 * Add-to-cart calls one shopper session may make (docs/widget.md, "Add to cart"): far more than a shopper adding
 * and changing parts needs, few enough that a script replaying a cart cannot flood the shop's orders.
 */
export const CART_ADDS = { limit: 30, windowMs: 10 * 60_000 };

/** Counts a shopper's add-to-cart call; the 31st within the window is 429 rate_limited. */
export async function limitCartAdds(deps: Pick<Deps, 'limits'>, ctx: Context & { state: AppState }) {
  const auth = ctx.state.auth;
  if (auth.via !== 'widget') return; // the merchant's own calls are held by the API's rate limits
  const hit = await deps.limits.limiter.hit(`cart:${addedBy(auth)}`, CART_ADDS.limit, CART_ADDS.windowMs);
  if (hit.allowed) return;
  const retryAfter = Math.max(1, Math.ceil(hit.resetMs / 1000));
  throw new ApiError(
    429,
    'rate_limited',
    `Too many add-to-cart calls: ${CART_ADDS.limit} per shopper session in ${CART_ADDS.windowMs / 60_000} minutes; retry in ${retryAfter} s.`,
    { class: 'cart', limit: CART_ADDS.limit, retry_after: retryAfter, counted_by: 'shopper session' },
    { 'Retry-After': String(retryAfter) },
  );
}

/** A batch whose first problem is inside one line names that line, as a refused line does. */
function batchBody(raw: unknown) {
  try {
    return validateBody('CartBatchRequest', raw);
  } catch (e) {
    const fields = e instanceof ValidationError ? (e.details?.fields as FieldProblem[]) : [];
    const line = /^lines\.(\d+)\./.exec(fields[0]?.field ?? '')?.[1];
    if (line === undefined) throw e;
    const err = e as ValidationError;
    throw new ApiError(err.status, err.code, err.message, { ...err.details, line: Number(line) });
  }
}

export function widgetRouter(
  deps: RouterPorts & Pick<Deps, 'storage' | 'log' | 'limits' | 'parser' | 'estimator' | 'events'>,
) {
  const router = new Router<AppState>({ prefix: '/v2/widget' });
  const widgetConfig = widgetConfigs(deps);
  router.get('/config', allow(deps, API_OR_WIDGET), async (ctx) => {
    ctx.body = await widgetConfig(ctx.state.auth);
  });
  router.get('/files/:file_id/prices', allow(deps, API_OR_WIDGET), async (ctx) => {
    ctx.body = await materialPrices(deps, ctx.state.auth, routeParam(ctx, 'file_id'), ctx.query);
  });

  // The first price before the upload has arrived: features measured in the browser, priced here.
  // A write, not in the quote class: an estimate slices nothing, and the widget asks for one at each changed
  // choice; counted with the quotes, it would take their place in the shopper's rate limit.
  router.post('/estimate', allow(deps, ['widget']), jsonBody, async (ctx) => {
    const { features, coarse_features, choices } = validateBody('WidgetEstimateRequest', ctx.request.body);
    // The contract keeps the features open records (their layout is the estimator's, versioned with it), so this is
    // the one place they become the estimator's types: what predict() cannot read is refused as a 422.
    ctx.body = await estimateFromFeatures(deps, ctx.state.auth, {
      features: features as unknown as Features | undefined,
      coarse_features: coarse_features as unknown as CoarseFeatures | undefined,
      choices,
    });
  });
  router.post('/cart', allow(deps, API_OR_WIDGET), jsonBody, idempotent(deps), async (ctx) => {
    await limitCartAdds(deps, ctx);
    const origin = ctx.get('origin') || null;
    // Each form is validated against its own schema, so that a refused body is told what its own form lacks.
    const raw = ctx.request.body as Record<string, unknown> | null;
    if (raw && typeof raw === 'object' && 'lines' in raw) {
      const body = batchBody(raw);
      const lines: CartRequestLine[] = body.lines.map((l) => ({ quote_id: l.quote_id, quantity: l.quantity ?? 1 }));
      ctx.status = 201;
      ctx.body = { lines: await addCartLines(deps, ctx.state.auth, lines, origin) };
      return;
    }
    const body = validateBody('CartRequest', raw);
    ctx.status = 201;
    ctx.body = await addToCart(deps, ctx.state.auth, body.quote_id, body.quantity ?? 1, origin);
  });
  router.post('/cart/acknowledge', allow(deps, API_OR_WIDGET), jsonBody, async (ctx) => {
    const body = validateBody('CartAcknowledgement', ctx.request.body);
    ctx.body = await acknowledge(deps, ctx.state.auth, body.cart_line_ids);
  });
  // The shop's orders: every add to a cart, newest first (the dashboard's Orders page).
  router.get('/cart', allow(deps, API), async (ctx) => {
    const page = pageRequest(ctx);
    const { rows, total } = await listOrders(
      deps.db,
      ctx.state.auth.account.id,
      quoteIds(ctx),
      page.limit,
      page.offset,
    );
    ctx.body = pageResponse(rows.map(presentOrder), page, total);
  });
  router.get('/cart/export', allow(deps, API), async (ctx) => {
    const stamp = deps.now().toISOString().slice(0, 10);
    ctx.set('Content-Disposition', `attachment; filename="slicequote-orders-${stamp}.csv"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/csv; charset=utf-8; header=present';
    ctx.body = csvStream(orderCsvRows(allOrders(deps.db, ctx.state.auth.account.id)), ORDER_COLUMNS);
  });
  return router;
}

/** `quote_id=a,b,c`: only the lines of those quotes (the quote history's cart column), at most 100. */
function quoteIds(ctx: Context): string[] | null {
  const raw = ctx.query.quote_id;
  if (raw === undefined) return null;
  const ids = (Array.isArray(raw) ? raw.join(',') : raw).split(',').filter(Boolean);
  if (ids.length < 1 || ids.length > 100 || ids.some((id) => id.length > 64))
    throw new ValidationError([{ field: 'quote_id', message: 'must be 1 to 100 quote ids, separated by commas' }]);
  return ids;
}

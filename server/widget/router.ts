// The storefront widget's own routes (widget key or token): its configuration, and add-to-cart.
import Router from '@koa/router';
import type { Deps, AppState } from '../deps.ts';
import { allow, API_OR_WIDGET } from '../accounts/access.ts';
import { jsonBody } from '../http/json-body.ts';
import { validateBody } from '../openapi/validate.ts';
import { ApiError, ValidationError, type FieldProblem } from '../http/errors.ts';
import { widgetConfig, addToCart, addCartLines, type CartRequestLine } from './service.ts';

/** A batch whose first problem is inside one line names that line, as a refused line does. */
function batchBody(raw: unknown) {
  try {
    return validateBody<{ lines: { quote_id: string; quantity?: number }[] }>('CartBatchRequest', raw);
  } catch (e) {
    const fields = e instanceof ValidationError ? (e.details?.fields as FieldProblem[]) : [];
    const line = /^lines\.(\d+)\./.exec(fields[0]?.field ?? '')?.[1];
    if (line === undefined) throw e;
    const err = e as ValidationError;
    throw new ApiError(err.status, err.code, err.message, { ...err.details, line: Number(line) });
  }
}

export function widgetRouter(deps: Deps) {
  const router = new Router<AppState>({ prefix: '/v2/widget' });
  router.get('/config', allow(deps, API_OR_WIDGET), async (ctx) => {
    ctx.body = await widgetConfig(deps, ctx.state.auth);
  });
  router.post('/cart', allow(deps, API_OR_WIDGET), jsonBody, async (ctx) => {
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
    const body = validateBody<{ quote_id: string; quantity?: number }>('CartRequest', raw);
    ctx.status = 201;
    ctx.body = await addToCart(deps, ctx.state.auth, body.quote_id, body.quantity ?? 1, origin);
  });
  return router;
}

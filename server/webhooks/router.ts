// /v2/webhooks: management of webhooks, their delivery log, and resend. Another account's ids answer 404.
import Router from '@koa/router';
import type { Context } from 'koa';
import { canonicalMember } from '../../shared/enums.ts';
import { API, allow, type RouterPorts } from '../accounts/access/index.ts';
import type { AppState, Deps } from '../deps.ts';
import { jsonBody, notFound, pageRequest, pageResponse, routeParam, ValidationError } from '../http/index.ts';
import { idempotent } from '../idempotency/index.ts';
import { validateBody } from '../openapi/index.ts';
import { changeWebhook, createWebhook, type ManageContext, ownWebhook, pingWebhook, resendDelivery } from './manage.ts';
import { presentDelivery, presentDeliveryDetail, presentStats, presentWebhook } from './present.ts';
import { deliverySettings, policyFor } from './settings.ts';
import {
  type DeliveryState,
  deleteWebhook,
  deliveryAttempts,
  deliveryById,
  listDeliveries,
  listWebhooks,
  webhookStats,
} from './sql.ts';

const STATES: DeliveryState[] = ['pending', 'delivered', 'failed'];

function stateFilter(ctx: Context): DeliveryState | null {
  const raw = ctx.query.state;
  if (raw === undefined) return null;
  const value = canonicalMember(STATES, Array.isArray(raw) ? raw[0] : raw);
  if (!value) throw new ValidationError([{ field: 'state', message: `must be one of ${STATES.join(', ')}` }]);
  return value;
}

export function webhooksRouter(deps: RouterPorts & Pick<Deps, 'log' | 'events'>) {
  const router = new Router<AppState>();
  const settings = deliverySettings(deps.config);
  const accountOf = (ctx: { state: AppState }) => ctx.state.auth.account.id;
  // Save-time checks use the same per-account rule as delivery (attempt.ts).
  const manage = (ctx: { state: AppState }): ManageContext => ({ deps, policy: policyFor(settings, accountOf(ctx)) });

  router.post('/v2/webhooks', allow(deps, API), jsonBody, idempotent(deps), async (ctx) => {
    const body = validateBody('WebhookCreate', ctx.request.body);
    const { row, secret } = await createWebhook(manage(ctx), accountOf(ctx), body);
    ctx.status = 201;
    ctx.body = { ...presentWebhook(row), secret };
  });

  router.get('/v2/webhooks', allow(deps, API), async (ctx) => {
    const page = pageRequest(ctx);
    const { rows, total } = await listWebhooks(deps.db, accountOf(ctx), page.limit, page.offset);
    ctx.body = pageResponse(rows.map(presentWebhook), page, total);
  });

  router.get('/v2/webhooks/:webhook_id', allow(deps, API), async (ctx) => {
    const hook = await ownWebhook(deps.db, accountOf(ctx), routeParam(ctx, 'webhook_id'));
    ctx.body = { ...presentWebhook(hook), stats: presentStats(await webhookStats(deps.db, hook.id)) };
  });

  router.put('/v2/webhooks/:webhook_id', allow(deps, API), jsonBody, async (ctx) => {
    const body = validateBody('WebhookUpdate', ctx.request.body);
    const { row, secret } = await changeWebhook(manage(ctx), accountOf(ctx), routeParam(ctx, 'webhook_id'), body);
    ctx.body = secret === undefined ? presentWebhook(row) : { ...presentWebhook(row), secret };
  });

  router.delete('/v2/webhooks/:webhook_id', allow(deps, API), async (ctx) => {
    const hook = await ownWebhook(deps.db, accountOf(ctx), routeParam(ctx, 'webhook_id'));
    await deleteWebhook(deps.db, hook.account_id, hook.id);
    ctx.body = { webhook_id: hook.id, deleted: true };
  });

  router.get('/v2/webhooks/:webhook_id/deliveries', allow(deps, API), async (ctx) => {
    const hook = await ownWebhook(deps.db, accountOf(ctx), routeParam(ctx, 'webhook_id'));
    const page = pageRequest(ctx);
    const { rows, total } = await listDeliveries(deps.db, hook.id, stateFilter(ctx), page.limit, page.offset);
    ctx.body = pageResponse(rows.map(presentDelivery), page, total);
  });

  router.get('/v2/webhooks/:webhook_id/deliveries/:delivery_id', allow(deps, API), async (ctx) => {
    const hook = await ownWebhook(deps.db, accountOf(ctx), routeParam(ctx, 'webhook_id'));
    const row = await deliveryById(deps.db, hook.id, routeParam(ctx, 'delivery_id'));
    if (!row) throw notFound('delivery', ctx.params.delivery_id);
    ctx.body = presentDeliveryDetail(row, hook, await deliveryAttempts(deps.db, row.id));
  });

  router.post('/v2/webhooks/:webhook_id/ping', allow(deps, API), async (ctx) => {
    const row = await pingWebhook(manage(ctx), accountOf(ctx), routeParam(ctx, 'webhook_id'), deps.now());
    ctx.status = 202;
    ctx.body = presentDelivery(row);
  });

  router.post('/v2/webhooks/:webhook_id/deliveries/:delivery_id/resend', allow(deps, API), async (ctx) => {
    const row = await resendDelivery(
      manage(ctx),
      accountOf(ctx),
      routeParam(ctx, 'webhook_id'),
      routeParam(ctx, 'delivery_id'),
    );
    ctx.status = 202;
    ctx.body = presentDelivery(row);
  });

  return router;
}

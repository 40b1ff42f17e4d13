// The offer through the API (/v2/offer: token or dashboard session) and a widget key's own offer
// (/dashboard/api/widget-keys/{id}/offer: dashboard session). PUT replaces the whole offer; DELETE returns to
// the one underneath (the account's, then the default derived from the profiles).
import Router from '@koa/router';
import { API, allow, DASHBOARD, type RouterPorts } from '../accounts/access/index.ts';
import { widgetKeyById } from '../accounts/index.ts';
import type { AppState } from '../deps.ts';
import { jsonBody, notFound, routeParam } from '../http/index.ts';
import { effectiveOffer } from './effective.ts';
import { checkOffer } from './offer.ts';
import { setAccountOffer, setWidgetKeyOffer } from './sql.ts';

export function offerRouter(deps: RouterPorts) {
  const router = new Router<AppState>();
  const accountId = (ctx: { state: AppState }) => ctx.state.auth.account.id;
  const present = async (id: string, keyId: string | null) => {
    const { offer, source } = await effectiveOffer(deps.db, id, keyId);
    return { ...offer, source };
  };

  router.get('/v2/offer', allow(deps, API), async (ctx) => {
    ctx.body = await present(accountId(ctx), null);
  });
  router.put('/v2/offer', allow(deps, API), jsonBody, async (ctx) => {
    await setAccountOffer(deps.db, accountId(ctx), await checkOffer(deps, accountId(ctx), ctx.request.body));
    ctx.body = await present(accountId(ctx), null);
  });
  router.delete('/v2/offer', allow(deps, API), async (ctx) => {
    await setAccountOffer(deps.db, accountId(ctx), null);
    ctx.body = await present(accountId(ctx), null);
  });

  const keyOffer = '/dashboard/api/widget-keys/:widget_key_id/offer';
  const ownKey = async (ctx: { state: AppState; params: Record<string, string> }) => {
    const id = routeParam(ctx, 'widget_key_id');
    if (!(await widgetKeyById(deps.db, accountId(ctx), id))) throw notFound('widget key', id);
    return id;
  };
  router.get(keyOffer, allow(deps, DASHBOARD), async (ctx) => {
    ctx.body = await present(accountId(ctx), await ownKey(ctx));
  });
  router.put(keyOffer, allow(deps, DASHBOARD), jsonBody, async (ctx) => {
    const id = await ownKey(ctx);
    await setWidgetKeyOffer(deps.db, accountId(ctx), id, await checkOffer(deps, accountId(ctx), ctx.request.body));
    ctx.body = await present(accountId(ctx), id);
  });
  router.delete(keyOffer, allow(deps, DASHBOARD), async (ctx) => {
    const id = await ownKey(ctx);
    await setWidgetKeyOffer(deps.db, accountId(ctx), id, null);
    ctx.body = await present(accountId(ctx), id);
  });
  return router;
}

// Dashboard API for widget keys: publishable keys for shop pages, each limited to its allowed origins.

import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import { allow, DASHBOARD, type RouterPorts } from '../accounts/access/index.ts';
import type { RefusedOrigin } from '../accounts/index.ts';
import {
  insertWidgetKey,
  listWidgetKeys,
  normalizeOrigin,
  revokeWidgetKey,
  type WidgetKeyRow,
} from '../accounts/index.ts';
import type { AppState } from '../deps.ts';
import { jsonBody, notFound, routeParam, ValidationError } from '../http/index.ts';
import { newId } from '../ids.ts';
import { type ContractSchema, validateBody } from '../openapi/index.ts';

export function presentWidgetKey(k: WidgetKeyRow, refusedOrigins: RefusedOrigin[] = []): ContractSchema<'WidgetKey'> {
  return {
    widget_key_id: k.id,
    name: k.name,
    key: k.key,
    allowed_origins: k.allowed_origins,
    created_at: k.created_at.toISOString(),
    refused_origins: refusedOrigins,
  };
}

export function cleanOrigins(raw: string[]): string[] {
  const problems = raw.flatMap((o, i) =>
    normalizeOrigin(o)
      ? []
      : [
          {
            field: `allowed_origins.${i}`,
            message: 'must be an origin like https://shop.example (scheme, host and optional port; no path)',
          },
        ],
  );
  if (problems.length) throw new ValidationError(problems);
  return [...new Set(raw.map((o) => normalizeOrigin(o)!))];
}

export function widgetKeysRouter(deps: RouterPorts) {
  const router = new Router<AppState>({ prefix: '/dashboard/api/widget-keys' });
  router.get('/', allow(deps, DASHBOARD), async (ctx) => {
    ctx.body = {
      data: (await listWidgetKeys(deps.db, ctx.state.auth.account.id)).map((k) =>
        presentWidgetKey(k, deps.refusedOrigins.list(k.id)),
      ),
    };
  });
  router.post('/', allow(deps, DASHBOARD), jsonBody, async (ctx) => {
    const body = validateBody('WidgetKeyRequest', ctx.request.body);
    const row = await insertWidgetKey(deps.db, {
      id: newId('wk'),
      account_id: ctx.state.auth.account.id,
      name: body.name.trim(),
      key: `pk_${randomBytes(24).toString('base64url')}`,
      allowed_origins: cleanOrigins(body.allowed_origins),
    });
    ctx.status = 201;
    ctx.body = presentWidgetKey(row);
  });
  router.delete('/:widget_key_id', allow(deps, DASHBOARD), async (ctx) => {
    if (!(await revokeWidgetKey(deps.db, ctx.state.auth.account.id, routeParam(ctx, 'widget_key_id'))))
      throw notFound('widget key', ctx.params.widget_key_id);
    deps.widgetKeys.revoked(); // refused on the next call, in every process (the trigger's NOTIFY tells the others)
    ctx.body = { widget_key_id: ctx.params.widget_key_id, deleted: true };
  });
  return router;
}

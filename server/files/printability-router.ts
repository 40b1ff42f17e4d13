import Router from '@koa/router';
import { API, allow, type RouterPorts } from '../accounts/access/index.ts';
import type { AppState } from '../deps.ts';
import { jsonBody, notFound, routeParam } from '../http/index.ts';
import { validateBody } from '../openapi/index.ts';
import { resolveBuildVolume } from '../profiles/index.ts';
import { checkPrintability } from './printability.ts';
import { fileById } from './sql.ts';

export function printabilityRouter(deps: RouterPorts) {
  const router = new Router<AppState>();
  router.post('/v2/printability/:file_id', allow(deps, API), jsonBody, async (ctx) => {
    const given = validateBody('PrintabilityRequest', ctx.request.body);
    const file = await fileById(deps.db, ctx.state.auth.account.id, routeParam(ctx, 'file_id'));
    if (!file) throw notFound('file', ctx.params.file_id);
    const fallback = await resolveBuildVolume(deps.db, ctx.state.auth.account.id);
    ctx.body = checkPrintability(file, {
      x: given.x ?? fallback.x,
      y: given.y ?? fallback.y,
      z: given.z ?? fallback.z,
    });
  });
  return router;
}

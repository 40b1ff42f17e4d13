import Router from '@koa/router';
import type { Deps, AppState } from '../deps.ts';
import { requireApiAuth } from '../auth/middleware.ts';
import { jsonBody } from '../json-body.ts';
import { validateBody } from '../openapi/validate.ts';
import { fileById } from '../db/queries/files.ts';
import { notFound } from '../errors.ts';
import { checkPrintability, type BuildVolume } from '../services/printability.ts';
import { resolveBuildVolume } from '../quotes/resolve.ts';

export function printabilityRouter(deps: Deps) {
  const router = new Router<AppState>();
  router.post('/v2/printability/:file_id', requireApiAuth(deps), jsonBody, async (ctx) => {
    const given = validateBody<Partial<BuildVolume>>('PrintabilityRequest', ctx.request.body);
    const file = await fileById(deps.db, ctx.state.auth.account.id, ctx.params.file_id);
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

// /v2/profiles/{printer|material|global}: the merchant's slice profiles (global ones listed read-only).
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { canonicalMember } from '../../shared/enums.ts';
import { API, allow, type RouterPorts } from '../accounts/access/index.ts';
import type { AppState, Deps } from '../deps.ts';
import { jsonBody, notFound, routeParam } from '../http/index.ts';
import { validateBody } from '../openapi/index.ts';
import { checkFromRequest, sendReferencePart } from './check-route.ts';
import { importFromUpload } from './import-route.ts';
import { createProfile, PROFILE_KINDS, presentProfile, removeProfile, replaceProfile } from './service.ts';
import { listProfiles, type ProfileKind, profileById } from './sql.ts';

export function profilesRouter(deps: RouterPorts & Pick<Deps, 'storage' | 'jobs'>) {
  const router = new Router<AppState & { kind: ProfileKind }>({ prefix: '/v2/profiles' });
  router.param('kind', (kind: string, ctx: Context, next: Next) => {
    const known = canonicalMember(PROFILE_KINDS, kind);
    if (!known) throw notFound('profile kind', kind);
    ctx.state.kind = known;
    return next();
  });

  // Before the /:kind routes: "import" is no profile kind.
  router.post('/import', allow(deps, API), async (ctx) => {
    ctx.status = 201;
    ctx.body = await importFromUpload(deps, ctx);
  });
  router.get('/reference-part', allow(deps, API), (ctx) => sendReferencePart(ctx));
  // A slice, rate-limited as a quote is (it makes none: the quote allowance is untouched).
  router.post('/printer/:profile_id/check', allow(deps, API, 'quote'), async (ctx) => {
    ctx.body = await checkFromRequest(deps, ctx, routeParam(ctx, 'profile_id'));
  });
  router.get('/:kind', allow(deps, API), async (ctx) => {
    ctx.body = { data: (await listProfiles(deps.db, ctx.state.auth.account.id, ctx.state.kind)).map(presentProfile) };
  });
  router.post('/:kind', allow(deps, API), jsonBody, async (ctx) => {
    const input = validateBody('ProfileInput', ctx.request.body);
    ctx.status = 201;
    ctx.body = presentProfile(await createProfile(deps, ctx.state.auth.account.id, ctx.state.kind, input));
  });
  router.get('/:kind/:profile_id', allow(deps, API), async (ctx) => {
    const row = await profileById(deps.db, ctx.state.auth.account.id, ctx.state.kind, routeParam(ctx, 'profile_id'));
    if (!row) throw notFound(`${ctx.state.kind} profile`, ctx.params.profile_id);
    ctx.body = presentProfile(row);
  });
  router.put('/:kind/:profile_id', allow(deps, API), jsonBody, async (ctx) => {
    const input = validateBody('ProfileInput', ctx.request.body);
    ctx.body = presentProfile(
      await replaceProfile(deps, ctx.state.auth.account.id, ctx.state.kind, routeParam(ctx, 'profile_id'), input),
    );
  });
  router.delete('/:kind/:profile_id', allow(deps, API), async (ctx) => {
    await removeProfile(deps, ctx.state.auth.account.id, ctx.state.kind, routeParam(ctx, 'profile_id'));
    ctx.body = { profile_id: ctx.params.profile_id, deleted: true };
  });
  return router;
}

declare module '../deps.ts' {
  interface AppState {
    /** The :kind route parameter in its canonical spelling (printer, material, global). */
    kind?: ProfileKind;
  }
}

// The account's quote signing secret in the dashboard: shown to the merchant (their backend verifies quote
// signatures offline with it) and rotated on demand (docs/quote-signatures.md).
import Router from '@koa/router';
import { allow, DASHBOARD, type RouterPorts } from '../accounts/access/index.ts';
import type { AppState } from '../deps.ts';
import { rotateSigningSecret, signingSecret } from './signing.ts';

export function signingRouter(deps: RouterPorts) {
  const router = new Router<AppState>({ prefix: '/dashboard/api/quote-signing-secret' });
  router.get('/', allow(deps, DASHBOARD), async (ctx) => {
    ctx.body = { secret: await signingSecret(deps.db, ctx.state.auth.account.id) };
  });
  router.post('/rotate', allow(deps, DASHBOARD), async (ctx) => {
    ctx.body = { secret: await rotateSigningSecret(deps.db, ctx.state.auth.account.id) };
  });
  return router;
}

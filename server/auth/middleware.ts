// Authentication for /v2 (bearer API token, or the dashboard's session cookie + CSRF header)
// and for the dashboard API (session cookie; CSRF on state-changing calls).
import type { Context, Next } from 'koa';
import type { Deps, AppState } from '../deps.ts';
import { ApiError, unauthorized } from '../errors.ts';
import { SESSION_COOKIE, findSession, csrfMatches } from './sessions.ts';
import { accountById } from '../db/queries/accounts.ts';
import { authenticateWidgetKey, shopperHash } from './widget.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function bearer(ctx: Context): string | null {
  const header = ctx.get('authorization');
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('The Authorization header must be "Bearer <token>".');
  return match[1];
}

async function sessionAuth(deps: Deps, ctx: Context, requireCsrf: boolean) {
  const session = await findSession(deps.db, ctx.cookies.get(SESSION_COOKIE));
  if (!session) return null;
  if (requireCsrf && !SAFE_METHODS.has(ctx.method) && !csrfMatches(session.csrf_token, ctx.get('x-csrf-token'))) {
    throw new ApiError(403, 'csrf_failed', 'The X-CSRF-Token header is missing or does not match this session.');
  }
  const account = await accountById(deps.db, session.account_id);
  return account ? { session, account } : null;
}

/** /v2 authentication: an API token, a dashboard session, or (on the widget routes only) a widget key. */
export function requireApiAuth(deps: Deps) {
  return async (ctx: Context & { state: AppState }, next: Next) => {
    const raw = bearer(ctx);
    if (raw) {
      const { account, token } = await deps.tokens.authenticate(raw);
      ctx.state.auth = { account, tokenId: token.id, widgetKeyId: null, via: 'token' };
      return next();
    }
    const widget = await authenticateWidgetKey(deps, ctx);
    if (widget) {
      ctx.state.auth = {
        account: widget.account,
        tokenId: null,
        widgetKeyId: widget.key.id,
        via: 'widget',
        shopperHash: shopperHash(ctx),
      };
      return next();
    }
    const s = await sessionAuth(deps, ctx, true);
    if (!s) throw unauthorized('This endpoint needs an API token: send "Authorization: Bearer <token>".');
    ctx.state.auth = { account: s.account, tokenId: null, widgetKeyId: null, via: 'session' };
    return next();
  };
}

export function requireSession(deps: Deps) {
  return async (ctx: Context & { state: AppState & { csrf?: string } }, next: Next) => {
    const s = await sessionAuth(deps, ctx, true);
    if (!s) throw unauthorized('Log in first: this call needs a dashboard session.');
    ctx.state.auth = { account: s.account, tokenId: null, widgetKeyId: null, via: 'session' };
    ctx.state.csrf = s.session.csrf_token;
    return next();
  };
}

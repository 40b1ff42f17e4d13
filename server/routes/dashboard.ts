// The dashboard API: sign up, log in/out, session (with CSRF token), API tokens.
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Deps, AppState } from '../deps.ts';
import { jsonBody } from '../json-body.ts';
import { validateBody } from '../openapi/validate.ts';
import { requireSession } from '../auth/middleware.ts';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import { SESSION_COOKIE, startSession, endSession, findSession } from '../auth/sessions.ts';
import { createApiToken } from '../auth/api-tokens.ts';
import { accountByEmail, insertAccount } from '../db/queries/accounts.ts';
import { listTokens, revokeToken, type TokenRow } from '../db/queries/tokens.ts';
import { ApiError, notFound, unauthorized } from '../errors.ts';
import { newId } from '../ids.ts';
import { presentUser } from '../services/users.ts';
import { checkPasswordPolicy } from '../auth/password-policy.ts';
import { attemptOf, loginThrottle } from '../auth/login-throttle.ts';

interface Credentials {
  email: string;
  password: string;
  shop_name?: string;
}

// A fixed hash to verify against when the email is unknown, so timing does not reveal which emails exist.
let decoyHash: Promise<string> | null = null;

function setSessionCookie(ctx: Context, value: string, expires: Date) {
  ctx.cookies.set(SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    expires,
    path: '/',
    overwrite: true,
  });
}

export function presentToken(t: TokenRow) {
  return {
    token_id: t.id,
    name: t.name,
    created_at: t.created_at.toISOString(),
    expires_at: t.expires_at?.toISOString() ?? null,
    last_used_at: t.last_used_at?.toISOString() ?? null,
  };
}

export function dashboardRouter(deps: Deps) {
  const router = new Router<AppState & { csrf: string }>({ prefix: '/dashboard/api' });
  const session = requireSession(deps);
  const throttle = loginThrottle(deps.limits.limiter);

  router.post('/signup', jsonBody, async (ctx) => {
    const body = validateBody<Credentials>('Credentials', ctx.request.body);
    checkPasswordPolicy(body.password);
    const account = await insertAccount(deps.db, {
      id: newId('usr'),
      email: body.email.trim(),
      password_hash: await hashPassword(body.password),
      plan: 'free',
      shop_name: body.shop_name?.trim() || null,
    });
    if (!account)
      throw new ApiError(409, 'email_taken', 'An account with this email already exists; log in instead.', {
        field: 'email',
      });
    const s = await startSession(deps.db, account.id);
    setSessionCookie(ctx, s.cookie, s.expires);
    ctx.status = 201;
    ctx.body = { user: await presentUser(deps, account), csrf_token: s.csrf };
  });

  router.post('/login', jsonBody, async (ctx) => {
    const body = validateBody<Credentials>('Credentials', ctx.request.body);
    const attempt = attemptOf(ctx, body.email);
    await throttle.check(attempt);
    const account = await accountByEmail(deps.db, body.email.trim());
    decoyHash ??= hashPassword('decoy password for unknown emails');
    const valid = await verifyPassword(body.password, account?.password_hash ?? (await decoyHash));
    if (!account || !valid) {
      await throttle.failed(attempt);
      throw unauthorized('The email or password is wrong.');
    }
    await throttle.succeeded(attempt);
    const s = await startSession(deps.db, account.id);
    setSessionCookie(ctx, s.cookie, s.expires);
    ctx.body = { user: await presentUser(deps, account), csrf_token: s.csrf };
  });

  router.post('/logout', session, async (ctx) => {
    await endSession(deps.db, ctx.cookies.get(SESSION_COOKIE));
    ctx.cookies.set(SESSION_COOKIE, '', { expires: new Date(0), path: '/' });
    ctx.status = 204;
  });

  router.get('/session', session, async (ctx) => {
    const s = await findSession(deps.db, ctx.cookies.get(SESSION_COOKIE));
    ctx.body = { user: await presentUser(deps, ctx.state.auth.account), csrf_token: s!.csrf_token };
  });

  router.get('/tokens', session, async (ctx) => {
    ctx.body = { data: (await listTokens(deps.db, ctx.state.auth.account.id)).map(presentToken) };
  });

  router.post('/tokens', session, jsonBody, async (ctx) => {
    const body = validateBody<{ name: string; expires_in_days?: number }>('TokenRequest', ctx.request.body);
    const { row, token } = await createApiToken(
      deps.db,
      deps.config.jwtSecret,
      ctx.state.auth.account.id,
      body.name.trim(),
      body.expires_in_days,
    );
    ctx.status = 201;
    const { last_used_at: _unused, ...shown } = presentToken(row);
    ctx.body = { ...shown, token };
  });

  router.delete('/tokens/:token_id', session, async (ctx) => {
    if (!(await revokeToken(deps.db, ctx.state.auth.account.id, ctx.params.token_id)))
      throw notFound('token', ctx.params.token_id);
    await deps.tokens.revoked(); // effective on the next request, in every process
    ctx.body = { token_id: ctx.params.token_id, deleted: true };
  });

  return router;
}

// The account: GET /v2/user, and in the dashboard API sign up, log in/out, the session (with its CSRF token)
// and API tokens.
import Router from '@koa/router';
import type { Context } from 'koa';
import type { AppState, Deps } from '../deps.ts';
import { ApiError, jsonBody, notFound, routeParam, unauthorized } from '../http/index.ts';
import { newId } from '../ids.ts';
import { type ContractSchema, validateBody } from '../openapi/index.ts';
import { ANYONE, API, allow, DASHBOARD, type RouterPorts } from './access/index.ts';
import { createApiToken } from './api-tokens.ts';
import { inviteToSpend, refuseClosedSignup, spendInvite } from './invites.ts';
import { attemptOf, type LoginAttempt, loginThrottle } from './login-throttle.ts';
import { checkPasswordPolicy } from './password-policy.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { presentUser } from './service.ts';
import { endSession, SESSION_COOKIE, startSession } from './sessions.ts';
import { accountByEmail, insertAccountUnlessTaken } from './sql.ts';
import { listTokens, revokeToken, type TokenRow } from './tokens-sql.ts';

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

export function presentToken(t: TokenRow): ContractSchema<'Token'> {
  return {
    token_id: t.id,
    name: t.name,
    created_at: t.created_at.toISOString(),
    expires_at: t.expires_at?.toISOString() ?? null,
    last_used_at: t.last_used_at?.toISOString() ?? null,
  };
}

/** Sign-up, login and API tokens: beyond allow(), the plans and login throttle, and the token cache to empty. */
type AccountsRouterPorts = RouterPorts & Pick<Deps, 'plans' | 'limits' | 'tokens'>;

export function accountsRouter(deps: AccountsRouterPorts) {
  const router = new Router<AppState & { csrf: string }>();
  const throttle = loginThrottle(deps.limits.limiter);

  router.get('/v2/user', allow(deps, API), async (ctx) => {
    ctx.body = await presentUser(deps, ctx.state.auth.account);
  });

  router.get('/dashboard/api/signup', allow(deps, ANYONE), (ctx) => {
    ctx.body = { mode: deps.config.signup };
  });

  router.post('/dashboard/api/signup', allow(deps, ANYONE), jsonBody, async (ctx) => {
    refuseClosedSignup(deps.config.signup);
    const body = validateBody('Credentials', ctx.request.body);
    const invite = inviteToSpend(deps.config.signup, body.invite_code);
    checkPasswordPolicy(body.password);
    // A sign-up with a taken email is a log-in attempt: it is throttled and counted like one, so probing which
    // emails have accounts is as slow as guessing passwords (docs/security.md, "Sign-up and taken emails").
    const attempt = attemptOf(ctx, body.email);
    await throttle.check(attempt);
    const passwordHash = await hashPassword(body.password);
    // The invite is spent in the transaction that creates the account: a taken email leaves it unused.
    const account = await deps.db.transaction(async (tx) => {
      const created = await insertAccountUnlessTaken(tx, {
        id: newId('usr'),
        email: body.email.trim(),
        password_hash: passwordHash,
        plan: 'free',
        shop_name: body.shop_name?.trim() || null,
      });
      if (created && invite) await spendInvite(tx, invite, created.id, deps.now());
      return created;
    });
    const signedIn = account ?? (await existingAccountLogIn(body.email, body.password, attempt));
    const s = await startSession(deps.db, signedIn.id, deps.now());
    setSessionCookie(ctx, s.cookie, s.expires);
    ctx.status = account ? 201 : 200;
    ctx.body = { user: await presentUser(deps, signedIn), csrf_token: s.csrf };
  });

  /** The owner signing up again with their password is logged in; anyone else's try counts as a failed log-in. */
  async function existingAccountLogIn(email: string, password: string, attempt: LoginAttempt) {
    const existing = await accountByEmail(deps.db, email.trim());
    if (existing && (await verifyPassword(password, existing.password_hash))) {
      await throttle.succeeded(attempt);
      return existing;
    }
    await throttle.failed(attempt);
    throw new ApiError(409, 'email_taken', 'An account with this email already exists; log in instead.', {
      field: 'email',
    });
  }

  router.post('/dashboard/api/login', allow(deps, ANYONE), jsonBody, async (ctx) => {
    const body = validateBody('Credentials', ctx.request.body);
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
    const s = await startSession(deps.db, account.id, deps.now());
    setSessionCookie(ctx, s.cookie, s.expires);
    ctx.body = { user: await presentUser(deps, account), csrf_token: s.csrf };
  });

  router.post('/dashboard/api/logout', allow(deps, DASHBOARD), async (ctx) => {
    await endSession(deps.db, ctx.cookies.get(SESSION_COOKIE));
    ctx.cookies.set(SESSION_COOKIE, '', { expires: new Date(0), path: '/' });
    ctx.status = 204;
  });

  router.get('/dashboard/api/session', allow(deps, DASHBOARD), async (ctx) => {
    ctx.body = { user: await presentUser(deps, ctx.state.auth.account), csrf_token: ctx.state.csrf };
  });

  router.get('/dashboard/api/tokens', allow(deps, DASHBOARD), async (ctx) => {
    ctx.body = { data: (await listTokens(deps.db, ctx.state.auth.account.id)).map(presentToken) };
  });

  router.post('/dashboard/api/tokens', allow(deps, DASHBOARD), jsonBody, async (ctx) => {
    const body = validateBody('TokenRequest', ctx.request.body);
    const { row, token } = await createApiToken(
      deps.db,
      deps.config.jwtSecret,
      ctx.state.auth.account.id,
      body.name.trim(),
      deps.now(),
      body.expires_in_days,
    );
    ctx.status = 201;
    const { last_used_at: _unused, ...shown } = presentToken(row);
    ctx.body = { ...shown, token };
  });

  router.delete('/dashboard/api/tokens/:token_id', allow(deps, DASHBOARD), async (ctx) => {
    if (!(await revokeToken(deps.db, ctx.state.auth.account.id, routeParam(ctx, 'token_id'))))
      throw notFound('token', ctx.params.token_id);
    await deps.tokens.revoked(); // effective on the next request, in every process
    ctx.body = { token_id: ctx.params.token_id, deleted: true };
  });

  return router;
}

// The rate limits and the request log, as steps a route's declaration puts in front of it (server/app.ts builds
// each route's front once, at start-up). rateLimit counts the request against its caller's limits in the class its
// route declares (read or write by method where no route matches), answering 429 rate_limited when one is used
// up, and sets X-RateLimit-* on every response, errors included; requestLogged marks a /v2 request for the request
// log, and recordRequest hands it over when the answer ends.

import type { Next, ParameterizedContext } from 'koa';
import type { AppState, Deps } from '../deps.ts';
import { type OnRequestEnd, routeTemplate } from '../http/index.ts';

type Context = ParameterizedContext<AppState>;

import { limitClass } from '../accounts/access/index.ts';
import type { EndpointClass } from '../accounts/index.ts';
import { type CredentialPorts, credentialsOf, type LimitIdentity, limitIdentity } from '../accounts/index.ts';
import { ApiError } from '../http/index.ts';
import type { CallerVia } from './counters-sql.ts';
import type { HitResult } from './rate-limiter.ts';

/** The headers show the counter closest to refusing (fewest remaining; then the later reset). */
function tightest(results: HitResult[]): HitResult {
  return results.reduce((a, b) =>
    b.remaining < a.remaining || (b.remaining === a.remaining && b.resetMs > a.resetMs) ? b : a,
  );
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

const EXPOSED = 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After';

/** Sets X-RateLimit-* from the tightest counter charged so far; 429 rate_limited when one refused. */
function answerFor(ctx: Context, cls: EndpointClass, caller: LimitIdentity, results: HitResult[]): void {
  const shown = tightest(results);
  ctx.state.rateLimitShown = shown;
  ctx.res.setHeader('X-RateLimit-Limit', String(shown.limit));
  ctx.res.setHeader('X-RateLimit-Remaining', String(shown.remaining));
  ctx.res.setHeader('X-RateLimit-Reset', String(seconds(shown.resetMs)));
  if (results.every((r) => r.allowed)) return;
  const refused = results.filter((r) => !r.allowed);
  const retryAfter = seconds(Math.max(...refused.map((r) => r.resetMs)));
  const rule = refused[0]!;
  throw new ApiError(
    429,
    'rate_limited',
    `Rate limit exceeded: ${rule.limit} ${cls} requests per window; retry in ${retryAfter} s.`,
    {
      class: cls,
      limit: rule.limit,
      retry_after: retryAfter,
      counted_by: caller.kind === 'address' ? 'client address' : caller.kind,
    },
    { 'Retry-After': String(retryAfter) },
  );
}

/** The rate limit reads the caller's credentials, judges them by their plan and counts them in the limiter. */
export type RateLimitPorts = CredentialPorts & Pick<Deps, 'config' | 'plans' | 'limits'>;

/**
 * Charges the request to its caller's counter: in `cls`, the class its route declares (fixed when the route was
 * built), or, for a request no route answers, the class its method implies. The request's credentials are read
 * here, the first step that needs them; the route's allow() checks them against its declaration.
 */
export function rateLimit(deps: RateLimitPorts, cls: EndpointClass | null) {
  // A cached token and the in-memory counters answer at once: each step waits only for what is not at hand (a
  // token read from the database, a dashboard session, Redis), so the API's usual request makes no promise here.
  function charge(ctx: Context, next: Next, charged: EndpointClass, caller: LimitIdentity) {
    ctx.state.limitsCaller = caller;
    const rule = caller.plan.rate_limits[charged];
    const hit = deps.limits.limiter.hit(`${charged}:${caller.key}`, rule.limit, rule.window_seconds * 1000);
    if (hit instanceof Promise) return hit.then((counted) => answer(ctx, next, charged, caller, counted));
    return answer(ctx, next, charged, caller, hit);
  }
  function answer(ctx: Context, next: Next, charged: EndpointClass, caller: LimitIdentity, hit: HitResult) {
    // Browsers (the widget, public uploads) may read these headers only when exposed to CORS.
    if (ctx.req.headers.origin) ctx.res.setHeader('Access-Control-Expose-Headers', EXPOSED);
    answerFor(ctx, charged, caller, [hit]);
    return next();
  }
  return function rateLimited(ctx: Context, next: Next) {
    const credentials = credentialsOf(deps, ctx);
    ctx.state.credentials = credentials;
    const charged = cls ?? limitClass(ctx.state.access, ctx.method);
    const caller = limitIdentity(deps, ctx, credentials);
    if (caller instanceof Promise) return caller.then((known) => charge(ctx, next, charged, known));
    return charge(ctx, next, charged, caller);
  };
}

/**
 * Marks the request for the request log behind GET /v2/usage (the /v2 routes declare it); recordRequest writes
 * its row when the answer ends. Marked before the rate limits, so a refused request is counted too.
 */
export function requestLogged(deps: Pick<Deps, 'now'>) {
  return function logged(ctx: Context, next: Next) {
    ctx.state.requestLogAt = deps.now();
    return next();
  };
}

/**
 * Charges a public upload to its upload id's own counter too (the id is the credential, so one id shared by
 * many addresses is bounded as well), in the same class and window as the caller's. The route calls it with
 * the id it parsed, before reading the body; the headers then show the tighter of the two counters.
 */
export async function chargeUploadId(deps: Pick<Deps, 'limits'>, ctx: Context, uploadId: string): Promise<void> {
  const caller = ctx.state.limitsCaller!;
  const cls = limitClass(ctx.state.access, ctx.method);
  const rule = caller.plan.rate_limits[cls];
  const charged = await deps.limits.limiter.hit(`${cls}:upload_id:${uploadId}`, rule.limit, rule.window_seconds * 1000);
  ctx.set('Access-Control-Expose-Headers', EXPOSED);
  answerFor(ctx, cls, caller, [ctx.state.rateLimitShown!, charged]);
}

/** Attributes a request made with a public upload id to the account (and token or widget key) behind the id. */
export function chargeToUploadOwner(ctx: Context, owner: PublicUpload): void {
  ctx.state.uploadOwner = owner;
}

export type PublicUpload = { account_id: string; token_id: string | null; widget_key_id: string | null };

/**
 * Who made the request, for GET /v2/usage: the authenticated kind; else the kind the rate limiter recognised
 * (a request refused before authentication); else, for an upload through an upload id, whoever fetched the id.
 */
function callerVia(
  authVia: CallerVia | undefined,
  caller: LimitIdentity | undefined,
  upload: PublicUpload | undefined,
): CallerVia {
  if (authVia) return authVia;
  if (caller && caller.kind !== 'address') return caller.kind;
  if (upload?.widget_key_id) return 'widget';
  return upload?.token_id ? 'token' : 'session';
}

/** Records a request marked by requestLogged when its answer ends: route template, status, duration, account, token. */
export function recordRequest(deps: Pick<Deps, 'limits'>): OnRequestEnd {
  return (ctx: Context, end) => {
    const at = ctx.state.requestLogAt;
    if (!at) return;
    const caller = ctx.state.limitsCaller;
    const publicUpload = ctx.state.uploadOwner;
    const accountId = ctx.state.auth?.account?.id ?? caller?.accountId ?? publicUpload?.account_id;
    if (!accountId) return; // nobody to attribute it to (e.g. an invalid token): not part of any account's usage
    deps.limits.requests.record({
      account_id: accountId,
      token_id: ctx.state.auth ? ctx.state.auth.tokenId : (caller?.tokenId ?? publicUpload?.token_id ?? null),
      via: callerVia(ctx.state.auth?.via, caller, publicUpload),
      method: ctx.method,
      route: routeTemplate(ctx),
      status: end.status,
      duration_ms: Math.round(end.durationMs * 100) / 100,
      created_at: at,
    });
  };
}

declare module '../deps.ts' {
  interface AppState {
    /** When a request of a route that declares the request log started (by deps.now): its row's created_at. */
    requestLogAt?: Date;
    /** Who the rate limits counted the request against (set by this middleware, read when it is logged). */
    limitsCaller?: LimitIdentity;
    /** The counter the X-RateLimit-* headers show so far (a route's own counter may be tighter). */
    rateLimitShown?: HitResult;
    /** For a public upload, whoever fetched its upload id (chargeToUploadOwner): the request is theirs. */
    uploadOwner?: PublicUpload;
  }
}

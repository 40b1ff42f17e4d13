// Who is calling, resolved once per request, before the rate limits and the routes: the credentials the request
// carries (API token, dashboard session cookie), each checked at most once and only when someone asks. The rate
// limiter counts the request against what they prove (docs/limits.md); the route's declared access (access/allow.ts)
// decides whether they are enough.
import ipaddr from 'ipaddr.js';
import type { Context } from 'koa';
import type { Deps } from '../deps.ts';
import { ApiError, unauthorized } from '../http/index.ts';
import type { Access, Auth } from './access/rule.ts';
import type { TokenAuth, TokenAuthenticator } from './api-tokens.ts';
import type { Plan, Plans } from './plans.ts';
import type { RefusedOrigins } from './refused-origins.ts';
import { findSession, SESSION_COOKIE } from './sessions.ts';
import { type AccountRow, accountById } from './sql.ts';
import type { WidgetKeyCache } from './widget-key-cache.ts';

type Session = { account: AccountRow; csrfToken: string };
type TokenAnswer = TokenAuth | ApiError | null;

export interface Credentials {
  /** An Authorization header was sent (well-formed or not). */
  hasAuthorization: boolean;
  /**
   * The bearer token's account, or the 401 it earns; null without a well-formed bearer header. At hand (no
   * promise) when the token cache answers, as it does for nearly every API request.
   */
  token(): TokenAnswer | Promise<TokenAnswer>;
  /** A Cookie header was sent: only then can the request carry a dashboard session. */
  hasCookies: boolean;
  /** The dashboard session of the cookie, null without a live one. */
  session(): Promise<Session | null>;
}

/** What the rate limiter counts a request against (docs/limits.md, "Who is counted"). */
export interface LimitIdentity {
  /** Counter identity: tok:<token id>, acct:<account id> (dashboard session) or ip:<address>. */
  key: string;
  kind: 'token' | 'session' | 'address';
  plan: Plan;
  accountId: string | null;
  tokenId: string | null;
}

/** The most client addresses whose counter key is remembered; past it, the memory starts afresh. */
const REMEMBERED_ADDRESSES = 10_000;
const addressKeys = new Map<string, string>();

/**
 * IPv6 clients are counted per /64 (one customer's usual allocation), so rotating addresses within it does not help.
 * Every request without credentials asks (health checks, the widget's shoppers); parsing the address took longer than
 * counting it, so the keys of recent addresses are remembered. A caller with many addresses only starts the memory
 * afresh sooner: it stays bounded.
 */
export function addressKey(ip: string): string {
  let key = addressKeys.get(ip);
  if (key === undefined) {
    key = parsedAddressKey(ip);
    if (addressKeys.size >= REMEMBERED_ADDRESSES) addressKeys.clear();
    addressKeys.set(ip, key);
  }
  return key;
}

function parsedAddressKey(ip: string): string {
  try {
    const addr = ipaddr.process(ip);
    if (addr.kind() === 'ipv4') return addr.toString();
    const parts = (addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
    return `${parts.join(':')}::/64`;
  } catch {
    return ip || 'unknown';
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** What reading a request's credentials needs: the token cache, and the sessions' table and clock. */
export type CredentialPorts = Pick<Deps, 'db' | 'now' | 'tokens'>;

/**
 * A request's credentials, each looked up once, when first asked for. A class, not closures: every request makes
 * one, and its methods are made once for all of them.
 */
class RequestCredentials implements Credentials {
  readonly hasAuthorization: boolean;
  readonly hasCookies: boolean;
  readonly #raw: string | null;
  #token: TokenAnswer | Promise<TokenAnswer> | undefined;
  #session: Promise<Session | null> | undefined;

  constructor(
    private readonly deps: CredentialPorts,
    private readonly ctx: Context,
  ) {
    const header = ctx.req.headers.authorization ?? '';
    this.hasAuthorization = header !== '';
    this.hasCookies = ctx.req.headers.cookie !== undefined;
    this.#raw = BEARER.exec(header)?.[1] ?? null;
  }

  token() {
    if (this.#token === undefined) this.#token = this.#readToken();
    return this.#token;
  }

  session() {
    this.#session ??= this.#readSession();
    return this.#session;
  }

  #readToken(): TokenAnswer | Promise<TokenAnswer> {
    if (!this.#raw) return null;
    try {
      const auth = this.deps.tokens.authenticate(this.#raw);
      return auth instanceof Promise ? auth.catch(refusalOf) : auth;
    } catch (err) {
      return refusalOf(err);
    }
  }

  async #readSession() {
    const { db, now } = this.deps;
    const session = await findSession(db, this.ctx.cookies.get(SESSION_COOKIE), now());
    const account = session ? await accountById(db, session.account_id) : undefined;
    return session && account ? { account, csrfToken: session.csrf_token } : null;
  }
}

/** The 401 a bad token earned, as the token's answer; anything else is the server's failure. */
function refusalOf(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  throw err;
}

/** The request's credentials; nothing is looked up until a caller of token() or session() needs it. */
export const credentialsOf = (deps: CredentialPorts, ctx: Context): Credentials => new RequestCredentials(deps, ctx);

/** The 401 a request whose Authorization header is not a bearer token earns. */
export const malformedAuthorization = () => unauthorized('The Authorization header must be "Bearer <token>".');

/**
 * A well-formed bearer token counts against the token when valid and against the address when not (the route
 * answers the 401); without one, a live dashboard session counts against its account.
 */
export function limitIdentity(
  deps: Pick<Deps, 'config' | 'plans'>,
  ctx: Context,
  credentials: Credentials,
): LimitIdentity | Promise<LimitIdentity> {
  const token = credentials.token();
  // A cached token is answered at once, and so is its identity: no promise on the API's hot path.
  if (token instanceof Promise) return token.then((answer) => identityOf(deps, ctx, credentials, answer));
  return identityOf(deps, ctx, credentials, token);
}

function identityOf(
  deps: Pick<Deps, 'config' | 'plans'>,
  ctx: Context,
  credentials: Credentials,
  token: TokenAnswer,
): LimitIdentity | Promise<LimitIdentity> {
  if (token && !(token instanceof ApiError)) return tokenIdentity(deps.plans, token);
  // Without a cookie (a health check, a shopper's widget, a bad token) the address is known at once, without a promise.
  if (BEARER.test(ctx.get('authorization')) || !credentials.hasCookies) return addressIdentity(deps, ctx);
  return credentials.session().then((session) => {
    if (!session) return addressIdentity(deps, ctx);
    const { account } = session;
    return {
      key: `acct:${account.id}`,
      kind: 'session',
      plan: planOf(deps.plans, account.plan),
      accountId: account.id,
      tokenId: null,
    };
  });
}

const addressIdentity = (deps: Pick<Deps, 'config' | 'plans'>, ctx: Context): LimitIdentity => ({
  key: `ip:${addressKey(ctx.ip)}`,
  kind: 'address',
  plan: planOf(deps.plans, deps.config.rateLimitAnonymousPlan),
  accountId: null,
  tokenId: null,
});

const planOf = (plans: Plans, id: string) => plans[id] ?? plans.free;

/**
 * A token's identity, made once for as long as the token cache (api-tokens.ts) keeps its answer: the cache hands
 * out the same answer object until a change to the token or its account replaces it, plan changes included.
 */
const tokenIdentities = new WeakMap<TokenAuth, LimitIdentity>();

function tokenIdentity(plans: Plans, auth: TokenAuth): LimitIdentity {
  let identity = tokenIdentities.get(auth);
  if (!identity) {
    const { account, token: row } = auth;
    identity = {
      key: `tok:${row.id}`,
      kind: 'token',
      plan: planOf(plans, account.plan),
      accountId: account.id,
      tokenId: row.id,
    };
    tokenIdentities.set(auth, identity);
  }
  return identity;
}

declare module '../deps.ts' {
  interface AppState {
    /** Who is calling, resolved once per request (access/allow.ts's allow()). */
    auth: Auth;
    /** The matched route's declared access (from its allow()), set by its front (route-front.ts); none for an unknown route. */
    access?: Access;
    /** The request's credentials, read once by the rate limit, the first step that needs them (limits/). */
    credentials?: Credentials;
    /** A dashboard session's CSRF token (access/allow.ts). */
    csrf?: string;
  }
  interface Deps {
    /** API token checks with a revocation-aware cache of token rows (the hot path of every API call). */
    tokens: TokenAuthenticator;
    /** Widget key checks with a revocation-aware cache of key rows (the hot path of every storefront call). */
    widgetKeys: WidgetKeyCache;
    /** The origins each widget key was recently refused from (shown on the dashboard's widget keys page). */
    refusedOrigins: RefusedOrigins;
  }
}

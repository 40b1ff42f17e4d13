// Who a request is counted against: its API token, its dashboard session's account, or its client address.
// Resolved before routing (401s are limited too), with the same checks as requireApiAuth, and cached for a
// short while so the limiter adds no database query to most requests.
import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { Context } from 'koa';
import type { Deps } from '../deps.ts';
import type { Plan } from '../plans.ts';
import { SESSION_COOKIE, findSession } from '../auth/sessions.ts';
import { accountById } from '../db/queries/accounts.ts';

export interface Caller {
  /** Counter identity: tok:<token id>, acct:<account id> (dashboard session) or ip:<address>. */
  key: string;
  kind: 'token' | 'session' | 'address';
  plan: Plan;
  accountId: string | null;
  tokenId: string | null;
}

interface Known {
  kind: 'token' | 'session';
  accountId: string;
  tokenId: string | null;
  planId: string;
}

// A revoked token or a changed plan is noticed within this time; authentication itself is never cached.
const CACHE_MS = 30_000;
const CACHE_MAX = 10_000;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** IPv6 clients are counted per /64 (one customer's usual allocation), so rotating addresses within it does not help. */
export function addressKey(ip: string): string {
  try {
    const addr = ipaddr.process(ip);
    if (addr.kind() === 'ipv4') return addr.toString();
    const parts = (addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
    return `${parts.join(':')}::/64`;
  } catch {
    return ip || 'unknown';
  }
}

function bearerToken(ctx: Context): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
  return match ? match[1] : null;
}

export function createCallerResolver(deps: Deps) {
  const cache = new Map<string, { known: Known | null; until: number }>();

  function remember(key: string, known: Known | null) {
    if (cache.size >= CACHE_MAX) {
      const t = Date.now();
      for (const [k, v] of cache) if (v.until <= t) cache.delete(k);
      if (cache.size >= CACHE_MAX) cache.clear();
    }
    cache.set(key, { known, until: Date.now() + CACHE_MS });
    return known;
  }

  async function lookup(cacheKey: string, find: () => Promise<Known | null>): Promise<Known | null> {
    const hit = cache.get(cacheKey);
    if (hit && hit.until > Date.now()) return hit.known;
    let known: Known | null = null;
    try {
      known = await find();
    } catch {
      known = null; // an invalid token is limited by address; requireApiAuth answers the 401
    }
    return remember(cacheKey, known);
  }

  const fromToken = (raw: string) =>
    lookup(`t:${sha256(raw)}`, async () => {
      const { account, token } = await deps.tokens.authenticate(raw);
      return { kind: 'token', accountId: account.id, tokenId: token.id, planId: account.plan };
    });

  const fromSession = (cookie: string) =>
    lookup(`s:${sha256(cookie)}`, async () => {
      const session = await findSession(deps.db, cookie);
      const account = session ? await accountById(deps.db, session.account_id) : undefined;
      return account ? { kind: 'session', accountId: account.id, tokenId: null, planId: account.plan } : null;
    });

  const planOf = (id: string) => deps.plans[id] ?? deps.plans.free;

  return async function resolveCaller(ctx: Context): Promise<Caller> {
    const raw = bearerToken(ctx);
    const cookie = raw ? undefined : ctx.cookies.get(SESSION_COOKIE);
    const known = raw ? await fromToken(raw) : cookie ? await fromSession(cookie) : null;
    if (known) {
      const key = known.kind === 'token' ? `tok:${known.tokenId}` : `acct:${known.accountId}`;
      return { key, kind: known.kind, plan: planOf(known.planId), accountId: known.accountId, tokenId: known.tokenId };
    }
    return {
      key: `ip:${addressKey(ctx.ip)}`,
      kind: 'address',
      plan: planOf(deps.config.rateLimitAnonymousPlan),
      accountId: null,
      tokenId: null,
    };
  };
}

// API tokens are JWTs (HS256, pinned) whose id (jti) is stored: a token is valid only while its row is live,
// so revocation takes effect on the very next request.
import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Db, Queryable } from '../db/index.ts';
import { unauthorized } from '../http/index.ts';
import { newId } from '../ids.ts';
import { authCache } from './auth-cache.ts';
import { type AccountRow, accountById } from './sql.ts';
import { insertToken, type TokenRow, tokenById, touchToken } from './tokens-sql.ts';

const ALGORITHM = 'HS256';
const ISSUER = 'slicequote';

let signingKey: { secret: string; key: KeyObject } | undefined;
/**
 * The secret as a key object, made once: given a string, jsonwebtoken first tries to read it as a PEM public key
 * on every call and only then falls back to a secret key, which cost more than the rest of a cached request.
 */
function keyOf(secret: string): KeyObject {
  if (signingKey?.secret !== secret) signingKey = { secret, key: createSecretKey(Buffer.from(secret, 'utf8')) };
  return signingKey.key;
}

export async function createApiToken(
  db: Queryable,
  secret: string,
  accountId: string,
  name: string,
  now: Date,
  expiresInDays?: number,
) {
  const id = newId('tok');
  const expiresAt = expiresInDays ? new Date(now.getTime() + expiresInDays * 86_400_000) : null;
  const row = await insertToken(db, { id, account_id: accountId, name, expires_at: expiresAt });
  // iat from the injected clock: the token's expiry (iat + expiresIn) is then judged on that clock too.
  const iat = Math.floor(now.getTime() / 1000);
  const token = jwt.sign({ sub: accountId, typ: 'api', iat }, keyOf(secret), {
    algorithm: ALGORITHM,
    jwtid: id,
    issuer: ISSUER,
    ...(expiresInDays ? { expiresIn: `${expiresInDays}d` } : {}),
  });
  return { row, token };
}

export interface TokenAuth {
  account: AccountRow;
  token: TokenRow;
}

/** Verifies signature (algorithm pinned; alg:none and others refused), expiry, and the stored row. */
export async function authenticateApiToken(db: Queryable, secret: string, raw: string, now: Date): Promise<TokenAuth> {
  const claims = verifyClaims(secret, raw, now);
  const token = await liveToken(db, claims);
  const account = await accountById(db, token.account_id);
  if (!account) throw unauthorized('The API token is unknown.');
  await touchToken(db, token.id);
  return { account, token };
}

/** exp and nbf (seconds) are kept so that a token verified before is judged again on time alone (see below). */
type Claims = { jti: string; sub: string; exp?: number; nbf?: number };

function verifyClaims(secret: string, raw: string, now: Date): Claims {
  let claims: jwt.JwtPayload;
  try {
    claims = jwt.verify(raw, keyOf(secret), {
      algorithms: [ALGORITHM],
      issuer: ISSUER,
      clockTimestamp: Math.floor(now.getTime() / 1000),
    }) as jwt.JwtPayload;
  } catch (err) {
    const expired = err instanceof jwt.TokenExpiredError;
    throw unauthorized(expired ? 'The API token has expired.' : 'The API token is invalid.');
  }
  if (claims.typ !== 'api' || typeof claims.jti !== 'string' || typeof claims.sub !== 'string') {
    throw unauthorized('The API token is invalid.');
  }
  return { jti: claims.jti, sub: claims.sub, exp: claims.exp, nbf: claims.nbf };
}

/** Whether claims verified earlier still hold at `now`: the only checks of jwt.verify that depend on the time. */
const inTime = (claims: Claims, now: Date) => {
  const seconds = Math.floor(now.getTime() / 1000);
  return (claims.exp === undefined || seconds < claims.exp) && (claims.nbf === undefined || claims.nbf <= seconds);
};

async function liveToken(db: Queryable, claims: Claims): Promise<TokenRow> {
  const token = await tokenById(db, claims.jti);
  if (!token || token.account_id !== claims.sub) throw unauthorized('The API token is unknown.');
  if (token.revoked_at) throw unauthorized('The API token has been revoked.');
  return token;
}

/** The most token strings verified, and tokens touched, this process remembers. */
const TOKEN_CACHE_MAX = 10_000;
/** last_used_at is written at most this often per token and process, after the answer, not before it. */
const TOUCH_EVERY_MS = 60_000;

export interface TokenAuthenticator {
  /**
   * Like authenticateApiToken, but a live token and its account are remembered, and a token string verified once.
   * A remembered token is answered at once, without a promise (every API request asks); a bad token throws its 401.
   */
  authenticate(raw: string): TokenAuth | Promise<TokenAuth>;
  /** After a revocation: this process forgets its cached tokens at once, before the trigger's NOTIFY reaches it. */
  revoked(): Promise<void>;
  start(): Promise<void>;
}

/**
 * The API hot path: a token's row and its account's are read once per 30 s (auth-cache.ts) instead of on every
 * request, and a token string's signature is verified once (its expiry on every request). Any change to an account or to a token's validity, by the
 * service or by an operator's SQL, empties the cache of every process at once: a trigger NOTIFYs on commit
 * (migration 017); a revocation is forgotten at once by the process that made it. Offers and signing secrets
 * are read where they are used, not from this cache.
 */
export function createTokenAuthenticator(
  db: Db,
  secret: string,
  log: { error(m: string, e?: unknown): void },
  now: () => Date,
): TokenAuthenticator {
  const live = authCache<TokenAuth>(db);
  // Token strings whose signature, algorithm, issuer and claims were verified. The signature covers the whole
  // string, so the same string verifies the same way every time: only its expiry is checked again per request. An
  // HMAC and jsonwebtoken's checks were the largest cost of a cached API request. Whether the token is still live
  // (not revoked) is the other cache's question, answered from the database.
  const verified = new Map<string, Claims>();
  function claimsOf(raw: string, at: Date): Claims {
    const known = verified.get(raw);
    if (known && inTime(known, at)) return known;
    const claims = verifyClaims(secret, raw, at); // throws the answer a bad or expired token earns
    if (verified.size >= TOKEN_CACHE_MAX) verified.clear();
    verified.set(raw, claims);
    return claims;
  }
  const touched = new Map<string, number>();
  function touch(id: string, at: number) {
    if ((touched.get(id) ?? 0) > at - TOUCH_EVERY_MS) return;
    if (touched.size >= TOKEN_CACHE_MAX) touched.clear();
    touched.set(id, at);
    touchToken(db, id).catch((err) => log.error('tokens: could not record last use', err));
  }
  async function loadLive(claims: Claims, at: Date): Promise<TokenAuth> {
    // Kept by its id, the jti it was read by (liveToken reads the token of that id).
    return used(await live.read(claims.jti, at.getTime(), () => load(claims)), at);
  }
  function used(auth: TokenAuth, at: Date): TokenAuth {
    touch(auth.token.id, at.getTime());
    return auth;
  }
  async function load(claims: Claims): Promise<TokenAuth> {
    const token = await liveToken(db, claims);
    const account = await accountById(db, token.account_id);
    if (!account) throw unauthorized('The API token is unknown.');
    return { account, token };
  }
  return {
    authenticate(raw) {
      const at = now();
      const claims = claimsOf(raw, at);
      const hit = live.recall(claims.jti, at.getTime());
      if (hit && hit.token.account_id === claims.sub) return used(hit, at);
      return loadLive(claims, at);
    },
    async revoked() {
      live.forget();
    },
    start: live.start,
  };
}

// API tokens are JWTs (HS256, pinned) whose id (jti) is stored: a token is valid only while its row is live,
// so revocation takes effect on the very next request.
import jwt from 'jsonwebtoken';
import type { Db, Queryable } from '../db/index.ts';
import { insertToken, tokenById, touchToken, type TokenRow } from './tokens-sql.ts';
import { accountById, type AccountRow } from './sql.ts';
import { newId } from '../ids.ts';
import { unauthorized } from '../http/errors.ts';

const ALGORITHM = 'HS256';
const ISSUER = 'slicequote';

export async function createApiToken(
  db: Queryable,
  secret: string,
  accountId: string,
  name: string,
  expiresInDays?: number,
) {
  const id = newId('tok');
  const expiresAt = expiresInDays ? new Date(Date.now() + expiresInDays * 86_400_000) : null;
  const row = await insertToken(db, { id, account_id: accountId, name, expires_at: expiresAt });
  const token = jwt.sign({ sub: accountId, typ: 'api' }, secret, {
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
export async function authenticateApiToken(db: Queryable, secret: string, raw: string): Promise<TokenAuth> {
  const claims = verifyClaims(secret, raw);
  const token = await liveToken(db, claims);
  const account = await accountById(db, token.account_id);
  if (!account) throw unauthorized('The API token is unknown.');
  await touchToken(db, token.id);
  return { account, token };
}

type Claims = { jti: string; sub: string };

function verifyClaims(secret: string, raw: string): Claims {
  let claims: jwt.JwtPayload;
  try {
    claims = jwt.verify(raw, secret, { algorithms: [ALGORITHM], issuer: ISSUER }) as jwt.JwtPayload;
  } catch (err) {
    const expired = err instanceof jwt.TokenExpiredError;
    throw unauthorized(expired ? 'The API token has expired.' : 'The API token is invalid.');
  }
  if (claims.typ !== 'api' || typeof claims.jti !== 'string' || typeof claims.sub !== 'string') {
    throw unauthorized('The API token is invalid.');
  }
  return { jti: claims.jti, sub: claims.sub };
}

async function liveToken(db: Queryable, claims: Claims): Promise<TokenRow> {
  const token = await tokenById(db, claims.jti);
  if (!token || token.account_id !== claims.sub) throw unauthorized('The API token is unknown.');
  if (token.revoked_at) throw unauthorized('The API token has been revoked.');
  return token;
}

/** NOTIFY channel on which a revocation empties the token caches of every process. */
const TOKENS_CHANNEL = 'slicequote_tokens';
/** Bounds staleness should a notification be lost; a dropped LISTEN connection also empties the cache. */
const TOKEN_CACHE_MS = 30_000;
const TOKEN_CACHE_MAX = 10_000;
/** last_used_at is written at most this often per token and process, after the answer, not before it. */
const TOUCH_EVERY_MS = 60_000;

export interface TokenAuthenticator {
  /** Like authenticateApiToken, but a live token row is remembered (the signature is checked every time). */
  authenticate(raw: string): Promise<TokenAuth>;
  /** After a revocation: every process forgets its cached tokens at once. */
  revoked(): Promise<void>;
  start(): Promise<void>;
}

/**
 * The API hot path: a token's row is read once per TOKEN_CACHE_MS instead of on every request, and a
 * revocation reaches every process at once (PostgreSQL NOTIFY; PGlite has one process). The account row is
 * read on every request, so plan, offer and signing secret changes apply at once.
 */
export function createTokenAuthenticator(
  db: Db,
  secret: string,
  log: { error(m: string, e?: unknown): void },
): TokenAuthenticator {
  const live = new Map<string, { token: TokenRow; until: number }>();
  const touched = new Map<string, number>();
  const forget = () => {
    live.clear();
  };
  function touch(id: string) {
    const now = Date.now();
    if ((touched.get(id) ?? 0) > now - TOUCH_EVERY_MS) return;
    if (touched.size >= TOKEN_CACHE_MAX) touched.clear();
    touched.set(id, now);
    touchToken(db, id).catch((err) => log.error('tokens: could not record last use', err));
  }
  return {
    async authenticate(raw) {
      const claims = verifyClaims(secret, raw);
      const hit = live.get(claims.jti);
      let token = hit && hit.until > Date.now() && hit.token.account_id === claims.sub ? hit.token : undefined;
      if (!token) {
        token = await liveToken(db, claims);
        if (live.size >= TOKEN_CACHE_MAX) live.clear();
        live.set(token.id, { token, until: Date.now() + TOKEN_CACHE_MS });
      }
      const account = await accountById(db, token.account_id);
      if (!account) throw unauthorized('The API token is unknown.');
      touch(token.id);
      return { account, token };
    },
    async revoked() {
      forget();
      await db.notify(TOKENS_CHANNEL);
    },
    start: () => db.listen(TOKENS_CHANNEL, forget),
  };
}

// API tokens are JWTs (HS256, pinned) whose id (jti) is stored: a token is valid only while its row is live,
// so revocation takes effect on the very next request.
import jwt from 'jsonwebtoken';
import type { Queryable } from '../db/index.ts';
import { insertToken, tokenById, touchToken, type TokenRow } from '../db/queries/tokens.ts';
import { accountById, type AccountRow } from '../db/queries/accounts.ts';
import { newId } from '../ids.ts';
import { unauthorized } from '../errors.ts';

const ALGORITHM = 'HS256';
const ISSUER = 'slicequote';

export async function createApiToken(db: Queryable, secret: string, accountId: string, name: string, expiresInDays?: number) {
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
  const token = await tokenById(db, claims.jti);
  if (!token || token.account_id !== claims.sub) throw unauthorized('The API token is unknown.');
  if (token.revoked_at) throw unauthorized('The API token has been revoked.');
  const account = await accountById(db, token.account_id);
  if (!account) throw unauthorized('The API token is unknown.');
  await touchToken(db, token.id);
  return { account, token };
}

// Dashboard sessions: a random cookie whose SHA-256 is stored, plus a per-session CSRF token that
// state-changing dashboard calls must echo in X-CSRF-Token.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/index.ts';
import { deleteSession, insertSession, liveSession } from './sessions-sql.ts';

export const SESSION_COOKIE = 'sq_session';
const SESSION_DAYS = 14;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export async function startSession(db: Queryable, accountId: string, now: Date) {
  const raw = randomBytes(32).toString('base64url');
  const csrf = randomBytes(24).toString('base64url');
  const expires = new Date(now.getTime() + SESSION_DAYS * 86_400_000);
  await insertSession(db, { id_hash: sha256(raw), account_id: accountId, csrf_token: csrf, expires_at: expires });
  return { cookie: raw, csrf, expires };
}

export async function findSession(db: Queryable, cookie: string | undefined, now: Date) {
  if (!cookie) return undefined;
  return liveSession(db, sha256(cookie), now);
}

export async function endSession(db: Queryable, cookie: string | undefined) {
  if (cookie) await deleteSession(db, sha256(cookie));
}

export function csrfMatches(expected: string, given: string | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

// Sign-up by invitation (SIGNUP=invite): the operator makes a single-use code on the command line
// (scripts/invite.ts); only its SHA-256 is stored, and it signs up one account before it expires.
import { createHash, randomBytes } from 'node:crypto';
import type { SignupMode } from '../config.ts';
import type { Queryable } from '../db/index.ts';
import { ApiError } from '../http/index.ts';
import { newId } from '../ids.ts';

export const DEFAULT_INVITE_DAYS = 7;
const DAY_MS = 86_400_000;

const codeHash = (code: string) => createHash('sha256').update(code.trim()).digest('hex');

export async function createInvite(
  db: Queryable,
  now: Date,
  days = DEFAULT_INVITE_DAYS,
): Promise<{ code: string; expiresAt: Date }> {
  const code = `inv_${randomBytes(24).toString('base64url')}`;
  const expiresAt = new Date(now.getTime() + days * DAY_MS);
  await db.query('INSERT INTO signup_invites (id, code_sha256, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
    newId('inv'),
    codeHash(code),
    now,
    expiresAt,
  ]);
  return { code, expiresAt };
}

/** Marks the invite used by the account (in the transaction that creates it); refuses unknown, used, expired codes. */
export async function spendInvite(tx: Queryable, code: string, accountId: string, now: Date): Promise<void> {
  const spent = await tx.query(
    `UPDATE signup_invites SET used_at = $3, account_id = $2
     WHERE code_sha256 = $1 AND used_at IS NULL AND expires_at > $3 RETURNING id`,
    [codeHash(code), accountId, now],
  );
  if (!spent.length)
    throw new ApiError(
      403,
      'invite_invalid',
      'This invite code is unknown, already used or expired; ask the operator of this server for a new one.',
      { field: 'invite_code' },
    );
}

/** SIGNUP=off: every sign-up is refused, before its body is even read. */
export function refuseClosedSignup(mode: SignupMode): void {
  if (mode === 'off')
    throw new ApiError(
      403,
      'signup_closed',
      'Sign-up is closed on this server; ask its operator for an account, or log in.',
    );
}

/** The invite code a sign-up must spend (SIGNUP=invite), null when none is needed. */
export function inviteToSpend(mode: SignupMode, inviteCode: string | undefined): string | null {
  if (mode !== 'invite') return null;
  if (!inviteCode?.trim())
    throw new ApiError(
      403,
      'invite_required',
      'Sign-up on this server needs an invite code; ask its operator for one.',
      {
        field: 'invite_code',
      },
    );
  return inviteCode;
}

// Login throttling (docs/security.md, "Login throttling"). Three counters of failed logins, in the rate
// limiter's backend (memory, or Redis shared by every process):
// - per (account, address): after FREE_FAILURES failures within an hour that pair is locked, for 1 s, then
//   twice as long after each further failure, up to 15 min. Only this pair is locked: the owner logging in from
//   another address is not refused because someone floods the account from one address.
// - per account, looser: ACCOUNT_FAILURES failures within 15 min from any addresses lock the account for
//   everyone until that window ends (a distributed guesser cannot get unlimited tries either).
// - per address: ADDRESS_FAILURES failures within 15 min across any accounts lock that address (one host
//   trying many accounts).
// A refused attempt never reaches the password check and counts nothing. Success clears the pair's counter.
// The account is keyed by the email as typed (lower-cased), known or not, so throttling reveals no account.
import type { Context } from 'koa';
import { ApiError } from '../http/index.ts';
import { addressKey } from './caller.ts';

export const FREE_FAILURES = 5;
const PAIR_WINDOW_MS = 60 * 60_000;
const FIRST_LOCK_MS = 1000;
const MAX_LOCK_MS = 15 * 60_000;
export const ACCOUNT_FAILURES = 50;
export const ADDRESS_FAILURES = 30;
const CAP_WINDOW_MS = 15 * 60_000;

export interface LoginAttempt {
  email: string;
  address: string;
}

/** The counters' keys of an attempt (exported for tests that wait for a lock to run out). */
export const throttleKeys = (a: LoginAttempt) => {
  const account = a.email.trim().toLowerCase();
  const address = addressKey(a.address);
  return {
    pairFailures: `login:fail:${account}|${address}`,
    pairLock: `login:lock:${account}|${address}`,
    account: `login:acct:${account}`,
    address: `login:addr:${address}`,
  };
};

/** Lock after the n-th failure of a pair: none before FREE_FAILURES, then 1 s doubling to 15 min. */
export function lockMs(failures: number): number {
  if (failures < FREE_FAILURES) return 0;
  return Math.min(MAX_LOCK_MS, FIRST_LOCK_MS * 2 ** (failures - FREE_FAILURES));
}

const throttled = (retryMs: number, countedBy: string) => {
  const retryAfter = Math.max(1, Math.ceil(retryMs / 1000));
  return new ApiError(
    429,
    'login_throttled',
    `Too many failed logins ${countedBy}; try again in ${retryAfter} s.`,
    { retry_after: retryAfter, counted_by: countedBy },
    { 'Retry-After': String(retryAfter) },
  );
};

/** What the throttle needs of a rate limiter (limits/rate-limiter.ts): a counted window per key. */
export interface FailureWindows {
  hit(key: string, limit: number, windowMs: number): { count: number } | Promise<{ count: number }>;
  /** The key's running window, or null; counts nothing. */
  peek(key: string): Promise<{ count: number; resetMs: number } | null>;
  clear(key: string): Promise<void>;
}

export function loginThrottle(limiter: FailureWindows) {
  return {
    /** Throws 429 login_throttled while the attempt's pair, account or address is locked. */
    async check(a: LoginAttempt): Promise<void> {
      const k = throttleKeys(a);
      const [lock, account, address] = await Promise.all([
        limiter.peek(k.pairLock),
        limiter.peek(k.account),
        limiter.peek(k.address),
      ]);
      if (lock) throw throttled(lock.resetMs, 'for this account from this address');
      if (account && account.count >= ACCOUNT_FAILURES) throw throttled(account.resetMs, 'for this account');
      if (address && address.count >= ADDRESS_FAILURES) throw throttled(address.resetMs, 'from this address');
    },
    async failed(a: LoginAttempt): Promise<void> {
      const k = throttleKeys(a);
      const [pair] = await Promise.all([
        limiter.hit(k.pairFailures, FREE_FAILURES, PAIR_WINDOW_MS),
        limiter.hit(k.account, ACCOUNT_FAILURES, CAP_WINDOW_MS),
        limiter.hit(k.address, ADDRESS_FAILURES, CAP_WINDOW_MS),
      ]);
      const ms = lockMs(pair.count);
      if (ms > 0) {
        await limiter.clear(k.pairLock);
        await limiter.hit(k.pairLock, 1, ms);
      }
    },
    async succeeded(a: LoginAttempt): Promise<void> {
      const k = throttleKeys(a);
      await Promise.all([limiter.clear(k.pairFailures), limiter.clear(k.pairLock)]);
    },
  };
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;

export const attemptOf = (ctx: Context, email: string): LoginAttempt => ({ email, address: ctx.ip });

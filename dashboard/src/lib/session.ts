// The signed-in merchant, shared by every page. Pages read it; only the app shell and the auth page change it.
import { api, call, csrfHeader, setCsrfToken } from './api.ts';
import type { SessionInfo, SignupMode, User } from './types.ts';

let current: User | null = null;

export function currentUser(): User | null {
  return current;
}

function adopt(info: SessionInfo): User {
  setCsrfToken(info.csrf_token);
  current = info.user;
  return info.user;
}

/** The existing session from the cookie, or null when there is none. */
export async function restoreSession(): Promise<User | null> {
  try {
    return adopt(await call(api.GET('/dashboard/api/session')));
  } catch (err) {
    if ((err as { status?: number }).status === 401) return null;
    throw err;
  }
}

export async function logIn(email: string, password: string): Promise<User> {
  return adopt(await call(api.POST('/dashboard/api/login', { body: { email, password } })));
}

export async function signUp(email: string, password: string, shopName: string, inviteCode = ''): Promise<User> {
  const body: { email: string; password: string; shop_name?: string; invite_code?: string } = { email, password };
  if (shopName.trim()) body.shop_name = shopName.trim();
  if (inviteCode.trim()) body.invite_code = inviteCode.trim();
  return adopt(await call(api.POST('/dashboard/api/signup', { body })));
}

/** Whether this server lets anyone sign up, only with an invite code, or nobody (its SIGNUP setting). */
export async function signupMode(): Promise<SignupMode> {
  return (await call(api.GET('/dashboard/api/signup'))).mode;
}

export async function logOut(): Promise<void> {
  try {
    await call(api.POST('/dashboard/api/logout', { params: { header: csrfHeader() } }));
  } finally {
    forget();
  }
}

/** Drops the local session (after logout, or when the server answered 401). */
export function forget(): void {
  current = null;
  setCsrfToken(null);
}

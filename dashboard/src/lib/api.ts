// The one place the dashboard talks HTTP: the session cookie travels by itself (same origin); every
// state-changing call carries the session's CSRF token, which the server checks for /v2 and /dashboard/api.
import createClient from 'openapi-fetch';
import type { paths } from '../../../shared/api/schema.ts';
import { UNAUTHORIZED_EVENT } from './events.ts';
export interface FieldProblem {
  field: string;
  message: string;
}

/** An error answer of the API ({error: {code, message, details}}), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** The field problems of a 400/422 validation error, as the server named them. */
  get fields(): FieldProblem[] {
    const f = this.details.fields;
    if (Array.isArray(f)) return f as FieldProblem[];
    return typeof this.details.field === 'string' ? [{ field: this.details.field, message: this.message }] : [];
  }
}

let csrfToken: string | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** The header the contract declares on the dashboard's own state-changing routes (the client sets it anyway). */
export const csrfHeader = () => ({ 'X-CSRF-Token': csrfToken ?? '' });

const SAFE = new Set(['GET', 'HEAD']);

/**
 * The typed client (openapi-fetch over the contract's generated types, as in client/): paths, parameters, bodies
 * and answers are checked by TypeScript. Same origin, so the session cookie travels by itself; every
 * state-changing call carries the session's CSRF token.
 */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
api.use({
  onRequest({ request }) {
    request.headers.set('accept', 'application/json');
    if (!SAFE.has(request.method) && csrfToken) request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
});

function errorFrom(response: Response, body: unknown): ApiError {
  const e = (body as { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | null)?.error;
  if (e?.code) return new ApiError(response.status, e.code, e.message ?? response.statusText, e.details ?? {});
  // not our JSON error shape (a proxy's error page, say): a generic message
  return new ApiError(
    response.status,
    `http_${response.status}`,
    `The server answered ${response.status} ${response.statusText}.`,
  );
}

/**
 * Awaits a call of `api` and answers its data, or throws its error as an ApiError (status 0: the server could not
 * be reached). A 401 outside the login tells the app that the session ended.
 */
export async function call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let answer: { data?: T; error?: unknown; response: Response };
  try {
    answer = await pending;
  } catch {
    throw new ApiError(
      0,
      'network_error',
      'Could not reach the slicequote server. Check your connection and try again.',
    );
  }
  const { data, error, response } = answer;
  if (
    response.status === 401 &&
    !new URL(response.url, window.location.href).pathname.startsWith('/dashboard/api/login')
  )
    // The session ended (logged out elsewhere, expired): the app shows the login.
    window.dispatchEvent(new CustomEvent(UNAUTHORIZED_EVENT, { detail: null }));
  if (!response.ok) throw errorFrom(response, error);
  return data as T;
}

/** Builds a path with query parameters, leaving out empty ones. */
export function withQuery(path: string, params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

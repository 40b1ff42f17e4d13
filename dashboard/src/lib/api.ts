// The one place the dashboard talks HTTP: the session cookie travels by itself (same origin); every
// state-changing call carries the session's CSRF token, which the server checks for /v2 and /dashboard/api.
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

/** Fired when any call answers 401: the session ended (logged out elsewhere, expired), so the app shows the login. */
export const UNAUTHORIZED_EVENT = 'sq-unauthorized';

const SAFE = new Set(['GET', 'HEAD']);

async function errorFrom(res: Response): Promise<ApiError> {
  try {
    const body = await res.json();
    const e = body?.error;
    if (e?.code) return new ApiError(res.status, e.code, e.message ?? res.statusText, e.details ?? {});
  } catch {
    // not our JSON error shape (a proxy's error page, say): fall through to a generic message
  }
  return new ApiError(res.status, `http_${res.status}`, `The server answered ${res.status} ${res.statusText}.`);
}

export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (!SAFE.has(method) && csrfToken) headers['x-csrf-token'] = csrfToken;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: payload, credentials: 'same-origin' });
  } catch {
    throw new ApiError(
      0,
      'network_error',
      'Could not reach the slicequote server. Check your connection and try again.',
    );
  }
  if (res.status === 401 && !path.startsWith('/dashboard/api/login'))
    window.dispatchEvent(new CustomEvent(UNAUTHORIZED_EVENT));
  if (!res.ok) throw await errorFrom(res);
  if (res.status === 204 || res.headers.get('content-length') === '0') return undefined as T;
  return (await res.json()) as T;
}

export const get = <T>(path: string) => request<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => request<T>('POST', path, body);
export const put = <T>(path: string, body: unknown) => request<T>('PUT', path, body);
export const del = <T = void>(path: string) => request<T>('DELETE', path);

/** Builds a path with query parameters, leaving out empty ones. */
export function withQuery(path: string, params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

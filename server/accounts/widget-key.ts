// Widget keys: publishable keys a shop page sends in X-Widget-Key. A key works only from its allowed origins and
// only on the routes that declare the widget among their callers (server/accounts/access/); elsewhere it is 403.
import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { Deps } from '../deps.ts';
import { ApiError, unauthorized } from '../http/index.ts';
import type { LiveWidgetKey } from './widget-key-cache.ts';

export const WIDGET_KEY_HEADER = 'x-widget-key';
export const SHOPPER_TOKEN_HEADER = 'x-shopper-token';
const SHOPPER_TOKEN = /^st_[A-Za-z0-9_-]{32,64}$/;

/** A new shopper token: the widget keeps it for the page's lifetime and sends it with every call. */
export const newShopperToken = () => `st_${randomBytes(24).toString('base64url')}`;

/** SHA-256 of the shopper token the widget sent, null without one; a malformed token is refused. */
export function shopperHash(ctx: Context): string | null {
  const raw = ctx.get(SHOPPER_TOKEN_HEADER);
  if (!raw) return null;
  if (!SHOPPER_TOKEN.test(raw))
    throw new ApiError(400, 'invalid_shopper_token', 'X-Shopper-Token must be the token issued with an upload id.', {
      field: 'X-Shopper-Token',
    });
  return hashShopperToken(raw);
}

export const hashShopperToken = (token: string) => createHash('sha256').update(token).digest('hex');

export function normalizeOrigin(raw: string): string | null {
  try {
    const u = new URL(raw);
    if (!['http:', 'https:'].includes(u.protocol) || u.pathname !== '/' || u.search || u.hash || u.username)
      return null;
    return u.origin;
  } catch {
    return null;
  }
}

/** A widget key's check: its row, the API's own origin, and the refused origins it records on the clock. */
export type WidgetKeyPorts = Pick<Deps, 'config' | 'now' | 'refusedOrigins' | 'widgetKeys'>;

export async function authenticateWidgetKey(deps: WidgetKeyPorts, ctx: Context): Promise<LiveWidgetKey> {
  const live = await deps.widgetKeys.lookup(ctx.get(WIDGET_KEY_HEADER));
  if (!live) throw unauthorized('The widget key is unknown or has been revoked.');
  const { key } = live;
  // Browsers omit Origin on same-origin GETs; Sec-Fetch-Site says so. The API's own origin (the dashboard's
  // live preview of the widget) is allowed for every key: it is the merchant's own server. It is PUBLIC_URL's,
  // never one built from the Host header, which any client can set to a shop page's origin.
  const own = new URL(deps.config.publicUrl).origin;
  const origin = ctx.get('origin') || (ctx.get('sec-fetch-site') === 'same-origin' ? own : '');
  if (!origin || !(key.allowed_origins.includes(origin) || origin === own)) {
    deps.refusedOrigins.record(key.id, origin, deps.now());
    throw new ApiError(
      403,
      'origin_not_allowed',
      `This widget key may only be used from its allowed origins; the request came from ${origin || 'no origin'}.`,
    );
  }
  return live;
}

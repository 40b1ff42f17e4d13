// Widget keys: publishable keys a shop page sends in X-Widget-Key. A key works only from its allowed
// origins and only on the few routes a storefront needs; everything else answers 403.
import { createHash, randomBytes } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Deps } from '../deps.ts';
import { liveWidgetKey, type WidgetKeyRow } from '../db/queries/widget-keys.ts';
import { accountById, type AccountRow } from '../db/queries/accounts.ts';
import { ApiError, unauthorized } from '../errors.ts';

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

/** Routes a widget key may call (method and path pattern). */
const WIDGET_ROUTES: [string, RegExp][] = [
  ['GET', /^\/v2\/widget\/config$/],
  ['GET', /^\/v2\/file\/upload-id$/],
  ['POST', /^\/v2\/file\/scale\/[^/]+$/],
  ['POST', /^\/v2\/file\/quote\/[^/]+(\/async)?$/],
  ['GET', /^\/v2\/jobs\/[^/]+$/],
  ['GET', /^\/v2\/quotes\/[^/]+$/],
  ['POST', /^\/v2\/widget\/cart$/],
];

const widgetRoute = (method: string, path: string) =>
  WIDGET_ROUTES.some(([m, re]) => re.test(path) && (m === method || method === 'OPTIONS'));

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

export async function authenticateWidgetKey(
  deps: Deps,
  ctx: Context,
): Promise<{ key: WidgetKeyRow; account: AccountRow } | null> {
  const raw = ctx.get(WIDGET_KEY_HEADER);
  if (!raw) return null;
  if (!widgetRoute(ctx.method, ctx.path)) {
    throw new ApiError(
      403,
      'widget_key_forbidden',
      'A widget key may only read the widget configuration, upload, rescale and quote its own uploads, read those quotes and report add-to-cart.',
    );
  }
  allowReadingRefusal(ctx);
  const key = await liveWidgetKey(deps.db, raw);
  if (!key) throw unauthorized('The widget key is unknown or has been revoked.');
  // Browsers omit Origin on same-origin GETs; Sec-Fetch-Site says so. The API's own origin (the dashboard's
  // live preview of the widget) is allowed for every key: it is the merchant's own server.
  // (Koa 3's ctx.origin is the Origin header, so the server's own origin is built from protocol and host.)
  const own = `${ctx.protocol}://${ctx.host}`;
  const origin = ctx.get('origin') || (ctx.get('sec-fetch-site') === 'same-origin' ? own : '');
  if (!origin || !(key.allowed_origins.includes(origin) || origin === own)) {
    throw new ApiError(
      403,
      'origin_not_allowed',
      `This widget key may only be used from its allowed origins; the request came from ${origin || 'no origin'}.`,
    );
  }
  const account = await accountById(deps.db, key.account_id);
  if (!account) throw unauthorized('The widget key is unknown or has been revoked.');
  return { key, account };
}

/**
 * Lets the page read the answer, refusals included. Without CORS headers a browser hides a 401 or 403 and
 * the widget can only say "network error"; with them it can tell the shopper and the merchant that the key
 * is unknown or the page's origin is not allowed. Nothing else is exposed: the refusal carries no data, no
 * credentials are allowed, and a successful answer still needs an allowed origin (checked next).
 */
function allowReadingRefusal(ctx: Context): void {
  const origin = ctx.get('origin');
  if (!origin) return;
  ctx.set('Access-Control-Allow-Origin', origin);
  ctx.set('Vary', 'Origin');
}

/**
 * Runs before the rate limits: a widget call refused there (429) must be readable by the page as well, so the
 * widget can say "too many requests" rather than "network error".
 */
export async function widgetRefusalCors(ctx: Context, next: Next) {
  if (ctx.method !== 'OPTIONS' && ctx.get('x-widget-key') && widgetRoute(ctx.method, ctx.path))
    allowReadingRefusal(ctx);
  await next();
}

/** Answers CORS preflights for the widget routes; the real request is then checked against the key's origins. */
export async function widgetPreflight(ctx: Context, next: Next) {
  if (ctx.method === 'OPTIONS' && ctx.get('origin') && widgetRoute('OPTIONS', ctx.path)) {
    ctx.set('Access-Control-Allow-Origin', ctx.get('origin'));
    ctx.set('Vary', 'Origin');
    ctx.set('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
    ctx.set('Access-Control-Allow-Headers', 'Content-Type, X-Widget-Key, X-Shopper-Token');
    ctx.set('Access-Control-Max-Age', '600');
    ctx.status = 204;
    return;
  }
  await next();
}

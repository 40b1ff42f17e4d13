// Who may call a route, declared on the route itself: `allow(API, 'quote')` as the route's first middleware.
// The declaration also names the route's rate-limit class and whether shop pages on other origins may call it;
// the app reads it once at start-up (declaredAccess) and puts in front of the route the steps it asks for, so the
// rate limits and CORS apply the route's own rules, and the route enforces it when it runs. Credentials come from
// ../caller.ts, checked once per request.
import type Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type { AppState, Deps } from '../../deps.ts';
import { ApiError, unauthorized } from '../../http/index.ts';
import { addressKey, type Credentials, malformedAuthorization } from '../caller.ts';
import type { EndpointClass } from '../plans.ts';
import { csrfMatches } from '../sessions.ts';
import { authenticateWidgetKey, shopperHash, WIDGET_KEY_HEADER, type WidgetKeyPorts } from '../widget-key.ts';
import type { Access, CallerKind } from './rule.ts';

/** What allow() checks a request with: the credentials are the request's own; a widget key is looked up here. */
export type AccessPorts = WidgetKeyPorts;
/** What every router is built with: allow()'s ports and the database its routes read and write. */
export type RouterPorts = AccessPorts & Pick<Deps, 'db'>;

/** The API: a merchant's token, or the dashboard acting for its logged-in merchant. */
export const API: readonly CallerKind[] = ['token', 'session'];
/** The API routes a storefront needs, also open to a widget key from its allowed origins. */
export const API_OR_WIDGET: readonly CallerKind[] = ['token', 'widget', 'session'];
/** The dashboard's own routes: a logged-in session only. */
export const DASHBOARD: readonly CallerKind[] = ['session'];
export const ANYONE: readonly CallerKind[] = ['anyone'];

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const declared = new WeakMap<object, Access>();

export const limitClass = (access: Access | undefined, method: string): EndpointClass =>
  access?.limit ?? (SAFE_METHODS.has(method) ? 'read' : 'write');

export const isCrossOrigin = (access: Access | undefined) =>
  !!access && (access.crossOrigin === true || access.callers.includes('widget'));

/** The route's first middleware: declares who may call it and checks the request's credentials against that. */
export function allow(
  deps: AccessPorts,
  callers: readonly CallerKind[],
  limit?: EndpointClass,
  extra: Omit<Access, 'callers' | 'limit'> = {},
): Middleware<AppState & { csrf?: string }> {
  const access: Access = { callers, limit, ...extra };
  const guard = callers.includes('anyone')
    ? (_ctx: Context, next: Next) => next()
    : async (ctx: Context & { state: AppState & { csrf?: string } }, next: Next) => {
        await authenticate(deps, ctx, callers);
        return next();
      };
  declared.set(guard, access);
  return guard;
}

/** A route's stack starts with its parameter handlers (router.param), then its own middleware: allow() first. */
const declaredBy = (stack: readonly object[]) => stack.map((fn) => declared.get(fn)).find((access) => access);

/** The access one route of a router declared (its layer's allow()), if it declared one. */
export const declaredAccess = (layer: { stack: readonly object[] }): Access | undefined => declaredBy(layer.stack);

/**
 * The access a route declared, found before routing (the router's own matcher, so case and trailing slashes
 * are treated alike). A preflight is matched as the request it announces.
 */
export function routeAccess(
  router: Router<never>,
  method: string,
  path: string,
  announced?: string,
): Access | undefined {
  const asMethod = method === 'OPTIONS' && announced ? announced.toUpperCase() : method;
  const match = router.match(path, asMethod);
  if (!match.route) return undefined;
  for (const layer of match.pathAndMethod) {
    const access = layer.methods.length ? declaredBy(layer.stack) : undefined;
    if (access) return access;
  }
  return undefined;
}

/** The declared access of every route of a router (method, path), for tests and the contract check. */
export function declaredRoutes(router: Router<never>) {
  return router.stack
    .filter((layer) => layer.methods.length)
    .map((layer) => ({
      methods: layer.methods.filter((m) => m !== 'HEAD'),
      path: String(layer.path),
      access: declaredBy(layer.stack),
    }));
}

async function authenticate(
  deps: AccessPorts,
  ctx: Context & { state: AppState & { csrf?: string } },
  callers: readonly CallerKind[],
) {
  const credentials = ctx.state.credentials as Credentials;
  if (callers.includes('token') || callers.includes('widget')) {
    if (callers.includes('token') && credentials.hasAuthorization) {
      const token = await credentials.token();
      if (!token) throw malformedAuthorization();
      if (token instanceof ApiError) throw token;
      ctx.state.auth = {
        account: token.account,
        tokenId: token.token.id,
        widgetKeyId: null,
        via: 'token',
        caller: `tok:${token.token.id}`,
      };
      return;
    }
    if (ctx.get(WIDGET_KEY_HEADER)) {
      if (!callers.includes('widget')) throw widgetKeyForbidden();
      const widget = await authenticateWidgetKey(deps, ctx);
      ctx.state.auth = {
        account: widget.account,
        tokenId: null,
        widgetKeyId: widget.key.id,
        via: 'widget',
        shopperHash: shopperHash(ctx),
        // Shopper sessions cost nothing to mint: the client address (an IPv6 /64) is who pays for slicer time.
        caller: `ip:${addressKey(ctx.ip)}`,
      };
      return;
    }
  }
  // A route for the storefront widget alone (its first price before the upload): nothing else opens it.
  if (!callers.includes('token') && !callers.includes('session'))
    throw unauthorized('This endpoint is for the storefront widget: send its key in X-Widget-Key.');
  const session = callers.includes('session') ? await credentials.session() : null;
  if (!session) {
    throw unauthorized(
      callers.includes('token')
        ? 'This endpoint needs an API token: send "Authorization: Bearer <token>".'
        : 'Log in first: this call needs a dashboard session.',
    );
  }
  if (!SAFE_METHODS.has(ctx.method) && !csrfMatches(session.csrfToken, ctx.get('x-csrf-token'))) {
    throw new ApiError(403, 'csrf_failed', 'The X-CSRF-Token header is missing or does not match this session.');
  }
  ctx.state.auth = {
    account: session.account,
    tokenId: null,
    widgetKeyId: null,
    via: 'session',
    caller: `acct:${session.account.id}`,
  };
  ctx.state.csrf = session.csrfToken;
}

const widgetKeyForbidden = () =>
  new ApiError(
    403,
    'widget_key_forbidden',
    'A widget key may only read the widget configuration, upload, rescale and quote its own uploads, read those quotes and report add-to-cart.',
  );

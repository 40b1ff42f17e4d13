// Each route's front: the steps its declaration (allow(), server/accounts/access/allow.ts) asks for, put in front of the
// route's own middleware once, at start-up, and run by the router after its one match of the request:
//  - its policy toward other origins: CORS for the routes shop pages call, framing refused for the others;
//  - the request log behind GET /v2/usage, for the /v2 routes only;
//  - the rate limit, in the class the route declares (read or write by its method otherwise), which reads the
//    request's credentials first.
// A session is looked up only when a route's allow() or the rate limit asks for it (caller.ts), and a JSON body
// is parsed only by the routes that take one (jsonBody in their own middleware). A request no route answers (an
// unknown path, a wrong method, a CORS preflight) goes through the same steps, chosen per request, after the router.
import type Router from '@koa/router';
import type { Middleware, Next, ParameterizedContext } from 'koa';
import compose from 'koa-compose';
import { type Access, declaredAccess, isCrossOrigin, limitClass, routeAccess } from './accounts/access/index.ts';
import type { EndpointClass } from './accounts/index.ts';
import { originPolicy } from './accounts/index.ts';
import type { AppState } from './deps.ts';
import { type RateLimitPorts, rateLimit, requestLogged } from './limits/index.ts';

type Context = ParameterizedContext<AppState>;
type Step = (ctx: Context, next: Next) => unknown;

/** A route's front: the names of its steps (what it pays for; the hot-path test reads them) and their chain. */
export interface Front {
  steps: readonly string[];
  run: Step;
}

const fronts = new WeakMap<object, Front>();

/** A front charges the rate limit, whose ports also date and record the request log's row. */
type FrontPorts = RateLimitPorts;

/** The steps `access` asks for; `cls` null: the class is the method's, judged per request. */
function frontOf(deps: FrontPorts, access: Access | undefined, cls: EndpointClass | null, requestLog: boolean): Front {
  const named: [string, Step][] = [
    [isCrossOrigin(access) ? 'cors' : 'frame-guard', originPolicy(access)],
    ...(requestLog ? [['request-log', requestLogged(deps)] as [string, Step]] : []),
    ['rate-limit', rateLimit(deps, cls)],
  ];
  const chain = named.reduceRight<Step>(
    (rest, [, step]) =>
      (ctx, next) =>
        step(ctx, () => Promise.resolve(rest(ctx, next))),
    (_ctx, next) => next(),
  );
  return {
    steps: named.map(([name]) => name),
    run(ctx, next) {
      // A route that hands on to a second route matching the same request (none does today) is not charged twice.
      if (ctx.state.access !== undefined) return next();
      ctx.state.access = access;
      return chain(ctx, next);
    },
  };
}

/** The class a route's methods imply when it declares none: one class for all of them, or null to judge per request. */
function classOf(access: Access, methods: readonly string[]): EndpointClass | null {
  const classes = new Set(methods.map((m) => limitClass(access, m)));
  return classes.size === 1 ? [...classes][0]! : null;
}

/** Puts each route's front first in its own middleware (before its parameter handlers, as the rate limit always was). */
export function putFronts(deps: FrontPorts, router: Router<never>): void {
  for (const layer of router.stack) {
    const access = declaredAccess(layer);
    if (!layer.methods.length || !access) continue; // a route without allow() is refused by the contract test
    const front = frontOf(deps, access, classOf(access, layer.methods), String(layer.path).startsWith('/v2/'));
    fronts.set(layer, front);
    layer.stack.unshift(front.run as unknown as (typeof layer.stack)[number]);
  }
}

/** The front of a request no route answered: its policy by the route a preflight announces, its class by method. */
export function unmatchedFront(deps: FrontPorts, router: Router<never>): Middleware<AppState> {
  // Built once per declared access (and once for none), as the routes' own are.
  const built = new Map<Access | undefined, Front[]>();
  const frontFor = (access: Access | undefined, requestLog: boolean) => {
    const pair = built.get(access) ?? [frontOf(deps, access, null, false), frontOf(deps, access, null, true)];
    built.set(access, pair);
    return pair[requestLog ? 1 : 0]!;
  };
  return (ctx, next) => {
    if (ctx.state.access !== undefined) return next(); // a route ran, and its front with it
    const access = routeAccess(router, ctx.method, ctx.path, ctx.get('access-control-request-method'));
    return frontFor(access, ctx.path.startsWith('/v2/')).run(ctx, next) as Promise<void>;
  };
}

/** The steps the route that answers `method path` runs in front of its own middleware, and how many of those. */
export function routeWork(router: Router<never>, method: string, path: string) {
  const layer = router.match(path, method).pathAndMethod.find((l) => l.methods.length);
  const front = layer && fronts.get(layer);
  return front ? { front: front.steps, own: layer.stack.length - 1 } : undefined;
}

/** The most request lines (method and path) whose match the router remembers. */
const REMEMBERED_MATCHES = 1000;

type Match = ReturnType<Router<never>['match']>;
type RouteContext = Context & {
  request: Context['request'] & { params?: Record<string, string> };
  matched?: Match['path'];
  router?: Router<never>;
  routeMatched?: boolean;
  _matchedRoute?: string | RegExp;
  _matchedRouteName?: string;
  captures?: string[];
  params?: Record<string, string>;
  routerPath?: string | RegExp;
  routerName?: string;
};

/**
 * The router's dispatch, remembering what it did for a path that names no parameter (/healthz, /v2/user,
 * /v2/quotes), written as its route declares it. @koa/router tests each request against every route's pattern
 * (about eighty of them) and composes the matched routes' middleware afresh for each request; the routes are all
 * declared at start-up, so the same method and path always match the same, and their middleware is composed once.
 * The request is given what the router's own dispatch gives it (ctx.matched, ctx._matchedRoute, ctx.params, ...).
 * Paths with an id in them, and paths no route answers, go through the router each time, so that no caller can fill
 * the memory with paths of their own making.
 */
export function dispatchRoutes(router: Router<never>): Middleware<AppState> {
  const dispatch = router.routes() as unknown as Middleware<AppState>;
  const match = router.match.bind(router);
  const known = new Map<string, { found: Match; chain: Step }>();
  router.match = (path, method) => {
    const line = `${method} ${path}`;
    let found = known.get(line)?.found;
    if (!found) {
      found = match(path, method);
      // Only a path exactly as its route declares it: a pattern (the dashboard's /dashboard/...) and the case and
      // trailing-slash variants the router also accepts are paths of the caller's making.
      const fixed = found.route && found.path.every((layer) => layer.path === path && layer.paramNames.length === 0);
      if (fixed && known.size < REMEMBERED_MATCHES) known.set(line, { found, chain: routeChain(router, found, path) });
    }
    // The router keeps the lists on the request (ctx.matched) and may add to them: each request gets its own.
    return { path: [...found.path], pathAndMethod: [...found.pathAndMethod], route: found.route };
  };
  return (ctx, next) => {
    const chain = known.get(`${ctx.method} ${ctx.path}`)?.chain;
    return (chain ? chain(ctx, next) : dispatch(ctx, next)) as Promise<void>;
  };
}

/** The matched routes' middleware for one path, composed once, after what the router sets on the request. */
function routeChain(router: Router<never>, found: Match, path: string): Step {
  const route = found.pathAndMethod.findLast((layer) => layer.methods.length > 0);
  const run = compose(
    found.pathAndMethod.flatMap((layer) => {
      const captures = layer.captures(path);
      const entered = (ctx: RouteContext, next: Next) => {
        ctx.captures = [...captures];
        ctx.params = ctx.request.params = layer.params(path, captures, ctx.params);
        ctx.routerPath = layer.path;
        ctx.routerName = layer.name || undefined;
        ctx._matchedRoute = layer.path;
        if (layer.name) ctx._matchedRouteName = layer.name;
        return next();
      };
      return [entered, ...layer.stack] as Middleware[];
    }),
  );
  return (ctx: RouteContext, next) => {
    ctx.matched = [...found.path];
    ctx.router = router;
    ctx.routeMatched = true;
    if (route) {
      ctx._matchedRoute = route.path;
      if (route.name) ctx._matchedRouteName = route.name;
    }
    return run(ctx, next);
  };
}

// The second front door of accounts/: route access. Nearly every router imports only this: allow(), the kinds of
// caller it names, and the Auth a route then finds in ctx.state; the app's route fronts and the rate limits read
// the same declarations (declaredAccess, routeAccess, limitClass, isCrossOrigin). It is a folder inside accounts/
// rather than a folder on a floor of its own because allow() checks credentials with accounts' sessions, tokens
// and widget keys, and the accounts routes are themselves declared with allow(): on a floor above accounts it
// would be imported back up by them, on a floor below it would import up into accounts. A door of its own keeps
// the many routers that only declare access off accounts' main door (accounts, tokens, plans, widget keys, CORS).

export type { AccessPorts, RouterPorts } from './allow.ts';
export {
  ANYONE,
  API,
  API_OR_WIDGET,
  allow,
  DASHBOARD,
  declaredAccess,
  isCrossOrigin,
  limitClass,
  routeAccess,
} from './allow.ts';
export type { Access, Auth, CallerKind } from './rule.ts';

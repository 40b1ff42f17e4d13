// The front door of accounts/: accounts, sessions, API tokens, plans, widget keys and their check, the caller's
// credentials and rate-limit identity, CORS and the frame guard. Route access (allow() and the declarations it
// makes) has its own door, accounts/access/index.ts, which the routers import instead of this one.
// Other folders import only what is exported by the two doors (npm run check:graph).

export type { TokenAuthenticator } from './api-tokens.ts';
export { createApiToken, createTokenAuthenticator } from './api-tokens.ts';
export type { CredentialPorts, Credentials, LimitIdentity } from './caller.ts';
export { addressKey, credentialsOf, limitIdentity } from './caller.ts';
export { originPolicy } from './cors.ts';
export { FRAME_ANCESTORS_SELF } from './frame-guard.ts';
export { accountPaths } from './openapi.ts';
export { hashPassword } from './passwords.ts';
export type { EndpointClass, Plan, Plans } from './plans.ts';
export { loadPlans } from './plans.ts';
export type { RefusedOrigin, RefusedOrigins } from './refused-origins.ts';
export { createRefusedOrigins, REFUSED_ORIGINS_PER_KEY } from './refused-origins.ts';
export { accountsRouter } from './router.ts';
export type { AccountRow } from './sql.ts';
export { accountByEmail, accountById, countAccounts, insertAccount } from './sql.ts';
export { tokenById } from './tokens-sql.ts';
export { hashShopperToken, newShopperToken, normalizeOrigin, SHOPPER_TOKEN_HEADER } from './widget-key.ts';
export type { WidgetKeyCache } from './widget-key-cache.ts';
export { createWidgetKeyCache } from './widget-key-cache.ts';
export type { WidgetKeyRow } from './widget-keys-sql.ts';
export {
  fileUploadedByShopper,
  insertWidgetKey,
  listWidgetKeys,
  revokeWidgetKey,
  widgetKeyById,
} from './widget-keys-sql.ts';

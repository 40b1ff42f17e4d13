// The front door of accounts/: accounts, sessions, API tokens, plans, widget keys and their check, the caller's
// credentials and rate-limit identity, CORS and the frame guard. Route access (allow() and the declarations it
// makes) has its own door, accounts/access/index.ts, which the routers import instead of this one.
// Other folders import only what is exported by the two doors (npm run check:graph).
export { createApiToken, createTokenAuthenticator } from './api-tokens.ts';
export type { TokenAuthenticator } from './api-tokens.ts';
export { addressKey, credentialsOf, limitIdentity } from './caller.ts';
export type { CredentialPorts, Credentials, LimitIdentity } from './caller.ts';
export { originPolicy } from './cors.ts';
export { FRAME_ANCESTORS_SELF } from './frame-guard.ts';
export { accountPaths } from './openapi.ts';
export { hashPassword } from './passwords.ts';
export { loadPlans } from './plans.ts';
export type { EndpointClass, Plan, Plans } from './plans.ts';
export { accountsRouter } from './router.ts';
export { accountByEmail, accountById, countAccounts, insertAccount } from './sql.ts';
export type { AccountRow } from './sql.ts';
export { tokenById } from './tokens-sql.ts';
export { SHOPPER_TOKEN_HEADER, hashShopperToken, newShopperToken, normalizeOrigin } from './widget-key.ts';
export {
  fileUploadedByShopper,
  insertWidgetKey,
  listWidgetKeys,
  revokeWidgetKey,
  widgetKeyById,
} from './widget-keys-sql.ts';
export type { WidgetKeyRow } from './widget-keys-sql.ts';
export { REFUSED_ORIGINS_PER_KEY, createRefusedOrigins } from './refused-origins.ts';
export type { RefusedOrigin, RefusedOrigins } from './refused-origins.ts';

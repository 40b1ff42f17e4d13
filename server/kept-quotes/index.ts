// Front door of kept-quotes/: signed, expiring links to a completed quote and its PDF. Other folders import only
// what is exported here (npm run check:graph).

export { backLink } from './back-link.ts';
export { keptQuotePaths, keptQuoteSchemas } from './openapi.ts';
export type { PartPictures } from './pictures.ts';
export { createPartPictures, pictureOptions } from './pictures.ts';
export { keptQuotesRouter } from './router.ts';
export { keptLinkExpiry, keptLinkQuote, keptLinkToken } from './service.ts';

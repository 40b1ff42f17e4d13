// The front door of quotes/: quotes: requests, the slicing key, the slice cache, jobs and their runner, prefetches, estimates, signing.
// Other folders import only what is exported here (npm run check:graph).

export type { Estimator } from './estimate.ts';
export { createEstimator, presentEstimate, scopeOf } from './estimate.ts';
export type { JobRunner } from './job-runner.ts';
export { createJobRunner } from './job-runner.ts';
export { createManualQuote } from './manual.ts';
export { materialPrices } from './material-prices.ts';
export type { PresentedEstimate } from './model.ts';
export { quotePaths, quoteSchemas } from './openapi.ts';
export { prefetchOnUpload } from './prefetch.ts';
export { presentQuote, specResult } from './present.ts';
export { printerLabel } from './printer-label.ts';
export { quotesRouter } from './router.ts';
export { quoteAsSeen, quoteForViewer } from './shopper-view.ts';
export { signingSecret } from './signing.ts';
export { signingRouter } from './signing-router.ts';
export type { QuoteRow } from './sql.ts';
export { quoteById, quoteForCaller } from './sql.ts';

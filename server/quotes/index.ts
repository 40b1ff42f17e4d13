// The front door of quotes/: quotes: requests, the slicing key, the slice cache, jobs and their runner, prefetches, estimates, signing.
// Other folders import only what is exported here (npm run check:graph).
export { createEstimator } from './estimate.ts';
export type { Estimator } from './estimate.ts';
export { createJobRunner } from './job-runner.ts';
export type { JobRunner } from './job-runner.ts';
export { quotePaths, quoteSchemas } from './openapi.ts';
export { prefetchOnUpload } from './prefetch.ts';
export { presentQuote, specResult } from './present.ts';
export { quoteAsSeen, quoteForViewer } from './shopper-view.ts';
export { quotesRouter } from './router.ts';
export { signingRouter } from './signing-router.ts';
export { signingSecret } from './signing.ts';
export { quoteById, quoteForCaller } from './sql.ts';
export { createManualQuote } from './manual.ts';
export type { QuoteRow } from './sql.ts';
export { materialPrices } from './material-prices.ts';
export { printerLabel } from './printer-label.ts';
export { scopeOf, presentEstimate } from './estimate.ts';
export type { PresentedEstimate } from './model.ts';

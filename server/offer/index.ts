// The front door of offer/: what a shop's shoppers may choose (the offer) and how a choice becomes settings.
// Other folders import only what is exported here (npm run check:graph).
export { effectiveOffer } from './effective.ts';
export { checkChoices, choicesLayer } from './offer.ts';
export { offerPaths, offerSchemas, offerTag } from './openapi.ts';
export { offerRouter } from './router.ts';
export { offerInputsFingerprint } from './sql.ts';

// The front door of widget/: the storefront widget's routes: its configuration, add-to-cart, the shop's orders, widget keys.
// Other folders import only what is exported here (npm run check:graph).

export { estimatePaths, estimateSchemas } from './estimate-openapi.ts';
export { widgetKeysRouter } from './keys-router.ts';
export { widgetPaths, widgetSchemas } from './openapi.ts';
export { limitCartAdds, widgetRouter } from './router.ts';
export { addKeptQuoteToCart, chosenLeadTime, quoteLinePrice } from './service.ts';

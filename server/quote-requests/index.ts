// The front door of quote-requests/: "Request a quote" (docs/widget.md): a part the widget could not sell at once,
// with the shopper's contact, priced by hand by the merchant into a signed quote and a kept link to order it.
// Other folders import only what is exported here (npm run check:graph).
export { quoteRequestPaths, quoteRequestSchemas } from './openapi.ts';
export { quoteRequestsRouter } from './router.ts';

// The front door of http/: HTTP plumbing every feature uses: the one error shape, JSON bodies, query and route parameters, pages, logs.
// Other folders import only what is exported here (npm run check:graph).

export { loadKoaBody } from './body-parser.ts';
export type { ConnectionLimits } from './connections.ts';
export { CONNECTION_LIMITS, guardConnections } from './connections.ts';
export type { FieldProblem } from './errors.ts';
export {
  ApiError,
  answerClientError,
  errorBody,
  notFound,
  tooLarge,
  unauthorized,
  ValidationError,
} from './errors.ts';
export { answerJson, answerJsonParts, JSON_CONTENT_TYPE } from './json-answer.ts';
export { jsonBody } from './json-body.ts';
export type { Logger } from './logging.ts';
export { createLogger, routeTemplate } from './logging.ts';
export { type PageRequest, pageRequest, pageResponse } from './pagination.ts';
export type { DateRange } from './query-params.ts';
export { dateRange, daysOf, exportRange, intParam, oneOf } from './query-params.ts';
export type { OnRequestEnd, RequestEnd } from './request-edge.ts';
export { requestEdge } from './request-edge.ts';
export { routeParam } from './route-params.ts';

// The front door of openapi/: the contract's shared pieces (schemas, helpers) and request validation; the assembly is server/contract.ts.
// Other folders import only what is exported here (npm run check:graph).
export {
  allowanceRefusal,
  bearer,
  csrfHeader,
  deletedSchema,
  errorResponses,
  errorSchema,
  errors,
  idempotencyKey,
  jsonBody,
  ok,
  pageParams,
  pathParam,
  ref,
  session,
  shopperToken,
  timestamp,
} from './helpers.ts';
export { coreSchemas } from './schemas.ts';
export { type ContractSchema, type SchemaName, useContract, validateBody } from './validate.ts';

// Validates every response the tests see against the served OpenAPI document: the document is the contract.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiDocument } from '../../server/contract.ts';

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

const doc = openApiDocument();
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
ajv.addSchema({ $id: 'openapi', components: doc.components });

const templates = Object.keys(doc.paths).map((template) => ({
  template,
  regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

function resolveResponse(response: any): any {
  if (response?.$ref) return doc.components.responses[response.$ref.split('/').pop()];
  return response;
}

/** Throws with a readable reason when the response is not what the document promises. */
export function assertMatchesContract(
  method: string,
  urlPath: string,
  status: number,
  contentType: string | null,
  body: unknown,
) {
  // CORS preflights are answered by the HTTP layer for the browser, not API operations.
  if (method === 'OPTIONS' && status === 204) return;
  // A concrete path wins over a templated one (OpenAPI's rule): /v2/profiles/library before /v2/profiles/{kind}.
  const match = templates
    .filter((t) => t.regex.test(urlPath))
    .sort((a, b) => a.template.split('{').length - b.template.split('{').length)[0];
  const where = `${method} ${urlPath} -> ${status}`;
  if (!match) {
    if (status === 404 || status === 405) return assertError(where, body); // unknown routes still answer the error shape
    throw new Error(`contract: ${where}: path is not in the OpenAPI document`);
  }
  const op = doc.paths[match.template][method.toLowerCase()];
  if (!op) {
    if (status === 405 || status === 404) return assertError(where, body);
    throw new Error(`contract: ${where}: method not documented for ${match.template}`);
  }
  const response = resolveResponse(op.responses[String(status)]);
  if (!response)
    throw new Error(`contract: ${where}: status ${status} is not documented for ${method} ${match.template}`);
  if (!response.content) return;
  const type = (contentType ?? '').split(';')[0]!.trim();
  const media = response.content[type];
  if (!media)
    throw new Error(
      `contract: ${where}: content type "${type}" not documented (documented: ${Object.keys(response.content).join(', ')})`,
    );
  if (!type.includes('json')) return;
  const validate = validatorOf(`${method} ${match.template} ${status} ${type}`, media.schema);
  if (!validate(body)) {
    throw new Error(
      `contract: ${where}: body does not match schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 800)}`,
    );
  }
}

/** One compiled validator per response of the document: compiling costs milliseconds, and tests see thousands. */
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
function validatorOf(key: string, schema: any) {
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(inline(schema));
    validators.set(key, validate);
  }
  return validate;
}

function inline(schema: any) {
  // Component refs are resolved against the registered document.
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/'));
}

function assertError(where: string, body: unknown) {
  const validate = ajv.getSchema('openapi#/components/schemas/Error')!;
  if (!validate(body)) throw new Error(`contract: ${where}: error body does not match the Error schema`);
}

/** Validates a webhook event body against its schema in the document (components.schemas). */
export function assertWebhookBody(schemaName: string, body: unknown) {
  const validate = ajv.getSchema(`openapi#/components/schemas/${schemaName}`);
  if (!validate) throw new Error(`contract: no schema ${schemaName}`);
  if (!validate(body))
    throw new Error(
      `contract: ${schemaName}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 800)}`,
    );
}

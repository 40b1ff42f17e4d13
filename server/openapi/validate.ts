// Request bodies are validated against the same OpenAPI document that is served as the contract,
// so the document and the server can never disagree about what a valid request is.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction, ErrorObject } from 'ajv';
import { ValidationError, type FieldProblem } from '../errors.ts';
import { openApiDocument } from './document.ts';

// ajv-formats is CommonJS; its function is the default export's default under NodeNext.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => void;
let ajv: Ajv2020 | null = null;
const compiled = new Map<string, ValidateFunction>();

function validatorFor(schemaName: string): ValidateFunction {
  let fn = compiled.get(schemaName);
  if (fn) return fn;
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    ajv.addSchema({ $id: 'openapi', components: openApiDocument().components });
  }
  fn = ajv.getSchema(`openapi#/components/schemas/${schemaName}`);
  if (!fn) throw new Error(`no schema ${schemaName} in the OpenAPI document`);
  compiled.set(schemaName, fn);
  return fn;
}

export function fieldProblems(errors: ErrorObject[] | null | undefined): FieldProblem[] {
  return (errors ?? []).map((e) => {
    const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (e.keyword === 'additionalProperties') {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      return { field: base ? `${base}.${extra}` : extra, message: 'is not a known field' };
    }
    if (e.keyword === 'required') {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      return { field: base ? `${base}.${missing}` : missing, message: 'is required' };
    }
    return { field: base || 'body', message: e.message ?? 'is invalid' };
  });
}

/** Throws a 400 naming each offending field; returns the body typed. */
export function validateBody<T>(schemaName: string, body: unknown): T {
  const fn = validatorFor(schemaName);
  if (!fn(body ?? {})) throw new ValidationError(fieldProblems(fn.errors));
  return (body ?? {}) as T;
}

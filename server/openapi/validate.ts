// Request bodies are validated against the same OpenAPI document that is served as the contract,
// so the document and the server can never disagree about what a valid request is.

import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { components as Contract } from '../../shared/api/schema.ts';
import { canonicalMember } from '../../shared/enums.ts';
import { type FieldProblem, ValidationError } from '../http/index.ts';

// ajv-formats is CommonJS; its function is the default export's default under NodeNext.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => void;
let ajv: Ajv2020 | null = null;
const compiled = new Map<string, ValidateFunction>();
let contract: (() => Record<string, any>) | null = null;

/**
 * The contract's components, given by its assembly (server/contract.ts registers them when it is loaded), so
 * that this low module validates against the whole document without importing the features that describe it.
 */
export function useContract(components: () => Record<string, any>): void {
  contract = components;
  ajv = null;
  compiled.clear();
}

function components(): Record<string, any> {
  if (!contract) throw new Error('no OpenAPI contract registered (server/contract.ts registers it)');
  return contract();
}

function validatorFor(schemaName: string): ValidateFunction {
  let fn = compiled.get(schemaName);
  if (fn) return fn;
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    ajv.addSchema({ $id: 'openapi', components: components() });
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

type Schema = Record<string, any>;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function resolved(schema: Schema): Schema {
  return typeof schema.$ref === 'string' ? resolved(components().schemas[schema.$ref.split('/').pop()!] ?? {}) : schema;
}

/**
 * The value with every string the schema enumerates in its canonical spelling, in any depth (properties,
 * additionalProperties, items, allOf, enumerated property names): any case is accepted (docs/api-conventions.md).
 */
export function canonicalEnums(schemaIn: Schema, value: unknown): unknown {
  const schema = resolved(schemaIn);
  let out = value;
  for (const part of schema.allOf ?? []) out = canonicalEnums(part, out);
  if (Array.isArray(schema.enum) && typeof out === 'string')
    return (
      canonicalMember(
        schema.enum.filter((e: unknown) => typeof e === 'string'),
        out,
      ) ?? out
    );
  if (Array.isArray(out) && schema.items) return out.map((item) => canonicalEnums(schema.items, item));
  if (!isObject(out) || !(schema.properties || isObject(schema.additionalProperties) || schema.propertyNames))
    return out;
  const names: string[] | undefined = schema.propertyNames?.enum;
  return Object.fromEntries(
    Object.entries(out).map(([key, v]) => {
      const name = names ? (canonicalMember(names, key) ?? key) : key;
      const sub =
        schema.properties?.[name] ?? (isObject(schema.additionalProperties) ? schema.additionalProperties : null);
      return [name, sub ? canonicalEnums(sub, v) : v];
    }),
  );
}

/** A request or response shape of the contract, by its name under `components.schemas`. */
export type ContractSchema<N extends SchemaName> = Contract['schemas'][N];
export type SchemaName = keyof Contract['schemas'];

/**
 * Throws a 400 naming each offending field; returns the body typed as the generated contract type of
 * `schemaName` (so a handler cannot read a field the contract does not declare), its enumerated values canonical.
 */
export function validateBody<N extends SchemaName>(schemaName: N, body: unknown): ContractSchema<N> {
  const fn = validatorFor(schemaName);
  const value = canonicalEnums({ $ref: `#/components/schemas/${schemaName}` }, body ?? {});
  if (!fn(value)) throw new ValidationError(fieldProblems(fn.errors));
  // ajv checked `value` against this very schema, so the generated type describes it.
  return value as ContractSchema<N>;
}

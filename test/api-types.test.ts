// The contract's TypeScript types (shared/api/schema.ts) are generated from the served OpenAPI document; a
// change to the document without regenerating them fails here.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { API_TYPES_FILE, generateApiTypes } from '../scripts/generate-api-types.ts';

test('shared/api/schema.ts is generated from the current OpenAPI document (npm run generate:types)', async () => {
  const [committed, fresh] = await Promise.all([readFile(API_TYPES_FILE, 'utf8'), generateApiTypes()]);
  assert.ok(fresh.includes('"/v2/file/quote/{file_id}"'), 'the generated types name the quote route');
  assert.equal(committed, fresh, 'shared/api/schema.ts is stale: run npm run generate:types');
});

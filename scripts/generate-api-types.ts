// Writes shared/api/schema.ts: TypeScript types generated from the OpenAPI document the server serves, so the
// widget, the dashboard, the server and the typed client (client/) share one contract. test/api-types.test.ts
// fails when the file is stale: run `npm run generate:types` after changing the OpenAPI document.
// openapi-typescript 6 renders strings itself; version 7 needs the TypeScript 5 compiler API, which
// TypeScript 7 no longer ships.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS from 'openapi-typescript';
import { openApiDocument } from '../server/contract.ts';

export const API_TYPES_FILE = fileURLToPath(new URL('../shared/api/schema.ts', import.meta.url));
const HEADER = '// Generated from /v2/openapi.json by `npm run generate:types`; do not edit.\n';

export async function generateApiTypes(): Promise<string> {
  // The served document is built once and cached; openapi-typescript annotates what it reads, so it gets a copy.
  const document = structuredClone(openApiDocument()) as Parameters<typeof openapiTS>[0];
  return HEADER + (await openapiTS(document, { exportType: false }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await writeFile(API_TYPES_FILE, await generateApiTypes());
  console.log(`wrote ${API_TYPES_FILE}`);
}

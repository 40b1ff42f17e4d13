// The served contract is linted (Redocly, recommended-strict) and every operation carries the basics.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { openApiDocument } from '../server/contract.ts';

const run = promisify(execFile);

test('the OpenAPI document passes redocly lint', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sq-openapi-'));
  const file = path.join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(openApiDocument(), null, 2));
  try {
    const out = await run('npx', [
      '--no-install',
      'redocly',
      'lint',
      '--config',
      'redocly.yaml',
      '--format',
      'stylish',
      file,
    ]).catch((e) => e);
    assert.equal(out.code ?? 0, 0, `redocly lint failed:\n${out.stdout}\n${out.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the document is OpenAPI 3.1 and every operation has an id, a summary, a tag and error responses', () => {
  const doc = openApiDocument();
  assert.equal(doc.openapi, '3.1.0');
  for (const [p, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      assert.ok(op.operationId, `${method} ${p} operationId`);
      assert.ok(op.summary, `${method} ${p} summary`);
      assert.ok(op.tags?.length, `${method} ${p} tags`);
      const statuses = Object.keys(op.responses);
      const needsErrors = !(
        p === '/healthz' ||
        p === '/v2/openapi.json' ||
        p.startsWith('/docs') ||
        method === 'options' ||
        p.startsWith('/widget')
      );
      if (needsErrors)
        assert.ok(
          statuses.some((s) => s.startsWith('4')),
          `${method} ${p} documents its 4xx answers`,
        );
    }
  }
});

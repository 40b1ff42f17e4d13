// How the server is started (scripts/serve.sh, run by `npm start` and by every test and benchmark that starts a
// server process): node with the options it is given, the allocator's thresholds the idle memory depends on
// (docs/performance.md, "Idle memory") unless the operator set their own, and the server itself.
// Run: node --import tsx --test test/serve-script.test.ts
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What node, started by serve.sh, prints for `expression` (a node option given as arguments: -p). */
async function printedBy(expression: string, env: Record<string, string> = {}) {
  const { PATH, HOME } = process.env;
  const { stdout } = await run('bash', ['scripts/serve.sh', '-p', expression], {
    env: { PATH, HOME, NODE: process.execPath, ...env },
  });
  return stdout.trim();
}

const thresholds = 'JSON.stringify([process.env.MALLOC_MMAP_THRESHOLD_, process.env.MALLOC_TRIM_THRESHOLD_])';

test('the server process gets fixed allocator thresholds: 128 KB mapped on their own, 256 KB trimmed', async () => {
  assert.deepEqual(JSON.parse(await printedBy(thresholds)), ['131072', '262144']);
});

test("an operator's own thresholds are kept", async () => {
  const printed = await printedBy(thresholds, { MALLOC_MMAP_THRESHOLD_: '65536', MALLOC_TRIM_THRESHOLD_: '1048576' });
  assert.deepEqual(JSON.parse(printed), ['65536', '1048576']);
});

test('node options given to it reach node, which loads the TypeScript loader and is named by NODE', async () => {
  const printed = await printedBy('JSON.stringify([process.execPath, process.execArgv.includes("--import")])');
  assert.deepEqual(JSON.parse(printed), [process.execPath, true]);
});

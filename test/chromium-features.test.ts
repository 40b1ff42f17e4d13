// The browser tests pass Chromium one --disable-features: Chromium keeps only the last one given, and Playwright puts
// its own first without merging ours into it. Ours must therefore carry Playwright's whole list; this fails when an
// upgraded playwright-core turns off a feature our list does not name.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { PLAYWRIGHT_DISABLED_FEATURES } from './e2e/chromium-features.ts';

/** The feature names in playwright-core's `disabledFeatures = [...]`, read from the bundle it ships. */
function playwrightDisabledFeatures(): string[] {
  const require = createRequire(import.meta.url);
  const lib = path.dirname(require.resolve('playwright-core/package.json'));
  const bundle = readFileSync(path.join(lib, 'lib', 'coreBundle.js'), 'utf8');
  const list = /disabledFeatures = \[([^\]]*)\]/.exec(bundle)?.[1];
  assert.ok(list, "playwright-core's list of disabled features was not found: compare chromium-features.ts by hand");
  return [...list.replace(/\/\/[^\n]*/g, '').matchAll(/"(\w+)"/g)].map((m) => m[1]!);
}

test("the browser tests' --disable-features names every feature Playwright turns off", () => {
  const missing = playwrightDisabledFeatures().filter((f) => !PLAYWRIGHT_DISABLED_FEATURES.includes(f));
  assert.deepEqual(missing, [], 'add these to PLAYWRIGHT_DISABLED_FEATURES in test/e2e/chromium-features.ts');
});

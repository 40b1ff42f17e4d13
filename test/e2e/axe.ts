// axe-core in a Playwright page: the shop's markup and the widget's shadow DOM, every violation of any impact.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** Runs axe-core on the whole page (open the page with bypassCSP: axe is injected as an inline script). */
export async function assertNoAxeViolations(page: Page, label: string): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, o: unknown): Promise<{ violations: any[] }> } }).axe;
    const { violations } = await axe.run(document, { resultTypes: ['violations'] });
    return violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  });
  assert.deepEqual(violations, [], `axe violations ${label}`);
}

// Browser helpers for the dashboard end-to-end test: Debian's Chromium through playwright-core (never a
// downloaded browser), an axe-core check per page, and screenshots kept as artifacts.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, launchChromium } from './widget-env.ts';

export { CHROMIUM };

const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'dashboard');
const DOC_SHOTS = path.join(ROOT, 'docs', 'screenshots');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** Debian's Chromium as the widget's browser tests launch it (widget-env.ts: its switches, no timeouts). */
export const launch = launchChromium;

/** The page's Content-Security-Policy refusals (Chromium reports each on the console), collected as they come. */
export function cspViolations(page: Page): string[] {
  const seen: string[] = [];
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) seen.push(`${page.url()}: ${msg.text()}`);
  });
  return seen;
}

/** Fails the test on any serious or critical axe violation, naming rule, help and the offending nodes. */
export async function assertAccessible(page: Page, label: string, exclude: string[] = []): Promise<void> {
  // Evaluated rather than added as a <script>: the dashboard's Content-Security-Policy refuses inline scripts.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(readFileSync(AXE, 'utf8'));
  const violations = await page.evaluate(async (excluded) => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: any[] }> } })
      .axe;
    const result = await axe.run(
      { include: [['body']], exclude: excluded.map((s) => [s]) },
      { resultTypes: ['violations'] },
    );
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${v.impact} ${v.id}: ${v.help}\n    ${v.nodes
            .slice(0, 5)
            .map((n: { target: string[] }) => n.target.join(' '))
            .join('\n    ')}`,
      );
  }, exclude);
  assert.deepEqual(violations, [], `accessibility violations on ${label}:\n${violations.join('\n')}`);
}

/**
 * A screenshot under test-artifacts/dashboard (the full page, or what the window shows with fullPage false);
 * with SLICEQUOTE_UPDATE_SCREENSHOTS=1 also docs/screenshots.
 */
export async function shoot(page: Page, name: string, forDocs = false, fullPage = true): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  // Let charts and late requests settle so the picture shows the finished page.
  await page.waitForLoadState('networkidle', { timeout: 5000 }).catch(() => undefined);
  await page.screenshot({ path: file, fullPage });
  if (forDocs && process.env.SLICEQUOTE_UPDATE_SCREENSHOTS === '1') {
    mkdirSync(DOC_SHOTS, { recursive: true });
    copyFileSync(file, path.join(DOC_SHOTS, `dashboard-${name}.png`));
  }
}

export const chromiumMissing = () => !existsSync(CHROMIUM);

/** A desktop-sized page of the dashboard at `origin`, logged in as the account, on its Overview. */
export async function loggedInPage(
  browser: Browser,
  origin: string,
  account: { email: string; password: string },
): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.on('pageerror', (err) => console.error('page error:', err.message));
  await page.goto(`${origin}/dashboard/#/login`);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return page;
}

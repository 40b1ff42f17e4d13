// Words that add up, in Debian's Chromium at 390 and 1280 px: a shopper prices a cube on the demo shop and adds it
// to the cart; then the merchant's dashboard names the offer as the source of the settings it set and shows the
// shopper's choices on the quote page, lists only the offered materials in the history's filter, explains on
// the Overview what the allowance counts, and shows the quotes → orders → carts conversion on Analytics.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { corpusPath } from '../helpers/corpus.ts';
import { assertAccessible } from './dashboard-browser.ts';
import { type DashboardHost, dashboardHost } from './dashboard-serve.ts';
import { buildDashboardIfMissing } from './dashboard-suite.ts';
import { chromiumMissing, launchChromium, startWidgetEnv, type WidgetEnv } from './widget-env.ts';

const skip = chromiumMissing() ?? false;

let env: WidgetEnv;
let host: DashboardHost;
let browser: Browser;
let offered: string[];
let quoteId: string;

before(async () => {
  if (skip) return;
  // Built only where missing: rebuilt, dashboard/dist is emptied under the server tests that serve it meanwhile.
  buildDashboardIfMissing();
  env = await startWidgetEnv();
  host = await dashboardHost(env.server.url);
  browser = await launchChromium();
  // The shop offers two of the materials its profiles know.
  const api = env.server.client(env.apiToken);
  const { source: _source, ...offer } = (await api.get('/v2/offer')).body;
  const materials = offer.materials.slice(0, 2);
  offered = materials.map((m: { material: string }) => m.material).sort();
  const put = await api.put('/v2/offer', { ...offer, materials, default_material: materials[0].material });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  // A shopper prices a cube and adds it to the cart.
  const shop = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await shop.goto(env.shop.url);
  await shop.locator('slice-quote select#material').waitFor();
  await shop.locator('slice-quote #file').setInputFiles(corpusPath('stl', 'cube20_ascii.stl'));
  await shop.locator('slice-quote [part~=amount]').waitFor();
  await shop.locator('slice-quote select#quantity, slice-quote input#quantity').fill('2');
  await shop.locator('slice-quote [part~=add-button]').click();
  await shop.locator('slice-quote [part~=added]').waitFor();
  quoteId = await shop.evaluate(
    () => (document.querySelector('slice-quote') as unknown as { quote: { quote_id: string } }).quote.quote_id,
  );
  await shop.close();
});

after(async () => {
  await browser?.close();
  await host?.close();
  await env?.stop();
});

async function logIn(page: Page): Promise<void> {
  await page.goto(`${host.origin}/dashboard/#/login`);
  await page.getByLabel('Email').fill(env.merchant.email);
  await page.getByLabel('Password').fill(env.merchant.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}

/** Whether the element fits the window's width (nothing cut off or scrolled sideways on a phone). */
const fitsWidth = (page: Page, testId: string) =>
  page
    .getByTestId(testId)
    .evaluate((el) => el.scrollWidth <= el.clientWidth && el.getBoundingClientRect().right <= innerWidth);

for (const width of [390, 1280]) {
  test(`${width} px: the offer named as a source, the shopper's choices, offered materials, the allowance explained, conversion`, {
    skip,
  }, async () => {
    const page = await (await browser.newContext({ viewport: { width, height: 844 } })).newPage();
    try {
      await logIn(page);
      const counting = await page.getByTestId('quotes-counting').innerText();
      assert.match(counting, /one per model a shopper uploads, however many materials or qualities they try/);

      await page.goto(`${host.origin}/dashboard/#/quotes/${quoteId}`);
      const choices = page.getByTestId('shopper-choices');
      await choices.waitFor();
      const choicesText = await choices.innerText();
      assert.match(choicesText, /Material\s+\S+/);
      assert.match(choicesText, /Quality\s+Standard · 0\.2 mm\s+Infill\s+\d+ %/);
      const sources = await page.locator('[data-setting] td:last-child').allInnerTexts();
      assert.ok(sources.includes('Your offer'), `the offer is named as a source: ${[...new Set(sources)].join(', ')}`);
      assert.ok(!sources.some((s) => s.includes('“”')), 'no nameless profile');
      assert.ok(await fitsWidth(page, 'shopper-choices'));
      if (width === 1280) await assertAccessible(page, 'quote page');

      await page.goto(`${host.origin}/dashboard/#/quotes`);
      const filter = page.locator('#qf-material option');
      await page.waitForFunction(
        (n) => document.querySelectorAll('#qf-material option').length === n,
        offered.length + 1,
      );
      assert.deepEqual((await filter.allInnerTexts()).slice(1), offered, 'only the offered materials');

      await page.goto(`${host.origin}/dashboard/#/analytics`);
      const conversion = page.getByTestId('analytics-conversion');
      await conversion.waitFor();
      assert.match(
        (await conversion.innerText()).replace(/\s+/g, ' '),
        /^1 model quoted in the widget → 1 ordered \(100(\.0)? %\) → 1 taken by a cart \(100(\.0)? %\)$/,
      );
      assert.ok(await fitsWidth(page, 'analytics-conversion'));
    } finally {
      await page.context().close();
    }
  });
}

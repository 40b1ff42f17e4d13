// A wrong origin, explained to the merchant, at 390 and 1280 px in Debian's Chromium: the demo shop opened at
// http://localhost:<port> while its key allows only http://127.0.0.1:<port>. The shop page's console gets one
// warning naming the page's origin, the key and what to change in the dashboard (however often the widget
// asks again); the dashboard's Widget keys page lists the origin as refused, with a count.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { corpusPath } from '../helpers/corpus.ts';
import { type DashboardHost, dashboardHost } from './dashboard-serve.ts';
import { buildDashboardIfMissing } from './dashboard-suite.ts';
import { chromiumMissing, launchChromium, startWidgetEnv, type WidgetEnv } from './widget-env.ts';

const skip = chromiumMissing() ?? false;

let env: WidgetEnv;
let host: DashboardHost;
let browser: Browser;

before(async () => {
  if (skip) return;
  // Built only where missing: rebuilt, dashboard/dist is emptied under the server tests that serve it meanwhile.
  buildDashboardIfMissing();
  env = await startWidgetEnv();
  host = await dashboardHost(env.server.url);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await host?.close();
  await env?.stop();
});

for (const width of [390, 1280]) {
  test(`${width} px: a refused origin warns once in the shop's console and is listed on the dashboard`, {
    skip,
  }, async () => {
    const context = await browser.newContext({ viewport: { width, height: 844 } });
    try {
      const shop = await context.newPage();
      const warnings: string[] = [];
      shop.on(
        'console',
        (m) => m.type() === 'warning' && m.text().includes('<slice-quote>') && warnings.push(m.text()),
      );
      const wrongOrigin = new URL(env.shop.url.replace('127.0.0.1', 'localhost')).origin;
      await shop.goto(wrongOrigin);
      const alert = shop.locator('slice-quote [role=alert][data-code=origin_not_allowed]');
      await alert.waitFor();
      // The shopper drops a file anyway: the widget asks again, is refused again, and does not repeat itself.
      await shop.locator('slice-quote #file').setInputFiles(corpusPath('stl', 'cube20_ascii.stl'));
      await shop.waitForFunction(() =>
        document.querySelector('slice-quote')!.shadowRoot!.querySelector('[role=alert][data-code=origin_not_allowed]'),
      );
      await shop.waitForLoadState('networkidle');
      assert.equal(warnings.length, 1, `one warning: ${JSON.stringify(warnings)}`);
      const [warning] = warnings as [string];
      assert.ok(warning.includes(`this page's origin, ${wrongOrigin}`), warning);
      assert.ok(warning.includes(env.widgetKey), 'names the key');
      assert.match(warning, /dashboard, Widget keys .*create a key whose allowed origins include/s, 'what to change');

      const dashboard = await context.newPage();
      await dashboard.goto(`${host.origin}/dashboard/#/login`);
      await dashboard.getByLabel('Email').fill(env.merchant.email);
      await dashboard.getByLabel('Password').fill(env.merchant.password);
      await dashboard.getByRole('button', { name: 'Log in' }).click();
      await dashboard.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await dashboard.goto(`${host.origin}/dashboard/#/widget-keys`);
      const refused = dashboard.getByTestId('refused-origins');
      await refused.waitFor();
      const text = await refused.innerText();
      assert.match(text, new RegExp(`${wrongOrigin.replace(/\./g, '\\.')} was refused (\\d+ times|once), last`), text);
      assert.ok(!text.includes(env.shop.url), 'the allowed origin is not listed');
      assert.ok(await refused.isVisible());
      const box = (await refused.boundingBox())!;
      assert.ok(box.x >= 0 && box.width > 0, 'on the page');
    } finally {
      await context.close();
    }
  });
}

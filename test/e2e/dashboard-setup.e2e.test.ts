// End-to-end in Debian's Chromium at 1280 and 390 px: a new shop's first-run checklist on the Overview ticks itself
// from what the shop does (key, offer, prices, an order, a cart that takes it), the widget snippet appears only
// once a key exists (never a placeholder key), the allowance links to what counts, the price step waits for the
// shop's own price of every offered material, and the quote history shows each line's formula with the minimum
// order applied.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { assertAccessible, shoot } from './dashboard-browser.ts';
import { chromiumSkip, dashboardSuite } from './dashboard-suite.ts';

const SHOP = 'https://setup.example';
const skip = chromiumSkip();
const suite = dashboardSuite(skip, { RATE_LIMIT_ANON_PLAN: 'business' });

/** The steps' states as shown: step id → its badge's words. */
async function stepStates(page: Page): Promise<Record<string, string>> {
  const items = page.getByTestId('setup-checklist').locator('li[data-step]');
  const out: Record<string, string> = {};
  for (const li of await items.all())
    out[(await li.getAttribute('data-step'))!] = await li.locator('.badge').first().innerText();
  return out;
}

for (const width of [1280, 390]) {
  test(`${width} px: the checklist ticks itself, the snippet waits for a key, line totals add up`, {
    skip,
  }, async () => {
    const account = await suite.server.newAccount();
    const dashboard = suite.server.client();
    dashboard.csrf = (
      await dashboard.post('/dashboard/api/login', { email: account.email, password: account.password })
    ).body.csrf_token;
    const api = suite.server.client(account.token);
    const page = await (await suite.browser.newContext({ viewport: { width, height: 844 } })).newPage();
    page.on('pageerror', (err) => console.error('page error:', err.message));
    await page.goto(`${suite.host.origin}/dashboard/#/login`);
    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    // A new shop: five steps to do, each linking to where it is done; no snippet and no placeholder key.
    const checklist = page.getByTestId('setup-checklist');
    await checklist.waitFor();
    assert.match(await checklist.innerText(), /0 of 5 done/);
    assert.deepEqual(await stepStates(page), {
      widget_key: 'To do',
      offer: 'To do',
      prices: 'To do',
      cart: 'To do',
      test_order: 'To do',
    });
    const links = await checklist.getByRole('link').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    assert.deepEqual(links, ['#/widget-keys', '#/offer', '#/prices', '#/widget-keys', '#/orders']);
    assert.equal(await page.getByTestId('overview-embed-snippet').count(), 0);
    assert.doesNotMatch(await page.locator('main').innerText(), /pk_YOUR_WIDGET_KEY/);
    const guide = page.getByTestId('quotes-counting').getByRole('link', { name: /What counts/ });
    assert.match((await guide.getAttribute('href'))!, /limits.*\.md$/);
    assert.equal(await page.evaluate(async (u) => (await fetch(u)).status, (await guide.getAttribute('href'))!), 200);
    if (width === 1280) await assertAccessible(page, 'overview with the checklist');
    await shoot(page, `overview-checklist-${width}`);

    // The shop makes a key and an offer with a minimum order of 50.00; a shopper adds one part no cart takes.
    const key = (await dashboard.post('/dashboard/api/widget-keys', { name: 'Shop', allowed_origins: [SHOP] })).body;
    const { source: _source, ...offer } = (await api.get('/v2/offer')).body;
    // PLA and PETG offered, both at the shipped example prices.
    const materials = offer.materials.filter((m: { material: string }) => ['PLA', 'PETG'].includes(m.material));
    const terms = { materials, default_material: 'PLA', minimum_line_price: 50 };
    assert.equal((await api.put('/v2/offer', { ...offer, ...terms })).status, 200);
    const c = suite.server.client();
    const base = { 'x-widget-key': key.key, origin: SHOP };
    const id = (await c.request('GET', '/v2/file/upload-id', { headers: base })).body;
    const headers = { ...base, 'x-shopper-token': id.shopper_token };
    const up = await c.uploadBytes(`/v2/file/public/${id.upload_id}`, new TextEncoder().encode(CUBE_OBJ), 'cube.obj');
    const q = await c.request('POST', `/v2/file/quote/${up.body.file_id}`, { json: { choices: {} }, headers });
    assert.equal(q.status, 200, JSON.stringify(q.body));
    const line = await c.request('POST', '/v2/widget/cart', {
      json: { quote_id: q.body.quote_id, quantity: 2 },
      headers,
    });
    assert.equal(line.status, 201);

    await page.reload();
    await checklist.waitFor();
    assert.deepEqual(await stepStates(page), {
      widget_key: 'Done',
      offer: 'Done',
      prices: 'To do',
      cart: 'Cart not connected',
      test_order: 'Done',
    });
    assert.match(await checklist.innerText(), /3 of 5 done/);
    assert.match(
      await checklist.locator('li[data-step="prices"]').innerText(),
      /PLA and PETG sell at the shipped example prices in USD/,
    );
    const snippet = page.getByTestId('overview-embed-snippet');
    assert.match(await snippet.innerText(), new RegExp(`key="${key.key}"`), 'the snippet carries the real key');
    await page.getByRole('button', { name: 'Copy widget snippet' }).waitFor();
    if (width === 390) {
      const fits = await checklist.evaluate(
        (el) => el.scrollWidth <= el.clientWidth && el.getBoundingClientRect().right <= innerWidth,
      );
      assert.ok(fits, 'the checklist fits a phone');
    }

    // The history's line: 2 × the unit price, raised to the 50.00 minimum order, the whole formula shown.
    await page.goto(`${suite.host.origin}/dashboard/#/quotes`);
    const total = page.getByTestId('line-total');
    await total.waitFor();
    const cents = Math.round((q.body.total_price as number) * 100);
    const [unit, sum, lift] = [cents, 2 * cents, 5000 - 2 * cents].map((c) => (c / 100).toFixed(2).replace('.', '\\.'));
    assert.match(
      await total.innerText(),
      new RegExp(
        `^2 × \\$${unit}( \\(minimum price per part\\))? = \\$${sum} \\+ \\$${lift} \\(minimum order\\) = \\$50\\.00$`,
      ),
    );
    await shoot(page, `quote-history-line-totals-${width}`);

    // The cart takes the line, and the shop sets its own prices: every step is done.
    const ack = await c.request('POST', '/v2/widget/cart/acknowledge', {
      json: { cart_line_ids: [line.body.cart_line_id] },
      headers,
    });
    assert.equal(ack.status, 200);
    for (const [name, price] of [
      ['PLA', 32],
      ['PETG', 35],
    ] as const) {
      const own = await api.post('/v2/profiles/material', {
        name,
        settings: { filament_type: name, price_per_kg: price },
      });
      assert.equal(own.status, 201, JSON.stringify(own.body));
      if (name === 'PLA') {
        // PLA alone is not every offered material: the step stays open, naming PETG.
        await page.goto(`${suite.host.origin}/dashboard/#/overview`);
        const step = page.locator('li[data-step="prices"]');
        await page.getByText('PETG sells at the shipped example prices').waitFor();
        assert.match(await step.innerText(), /To do/);
      }
    }
    await page.reload();
    await page.getByTestId('setup-complete').waitFor();
    assert.match(await page.getByTestId('setup-complete').innerText(), /all 5 steps are done/);
    await page.context().close();
  });
}

// End-to-end in Debian's Chromium against a real server: the Orders page lists every add to a cart (the one a
// shop page's cart took and the one no cart took), with the shopper's choices, the model file, the signed quote
// and a CSV export; the quote history's Cart column says what became of each quote. Screenshots in
// test-artifacts/dashboard/.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { assertAccessible, CHROMIUM, chromiumMissing, launch, loggedInPage, shoot } from './dashboard-browser.ts';
import { type DashboardHost, dashboardHost } from './dashboard-serve.ts';
import { buildDashboardIfMissing } from './dashboard-suite.ts';

const SHOP = 'https://shop.example';
const skip = chromiumMissing()
  ? `Debian's Chromium is missing at ${CHROMIUM}: install it with "apt-get install -y chromium"`
  : false;

describe('dashboard: orders and the quote history cart column', { skip }, () => {
  let server: TestServer;
  let host: DashboardHost;
  let browser: Browser;
  let page: Page;
  /** Two adds by one shopper: [quote id, cart line id] of the acknowledged one, then of the reserved one. */
  const lines: { quote: string; line: string }[] = [];
  const at = (hash: string) => `${host.origin}/dashboard/#/${hash}`;
  const h1 = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });

  before(async () => {
    buildDashboardIfMissing();
    server = await startTestServer({ RATE_LIMIT_ANON_PLAN: 'business' });
    host = await dashboardHost(server.url);
    const account = await server.newAccount();
    const dashboard = server.client();
    dashboard.csrf = (
      await dashboard.post('/dashboard/api/login', { email: account.email, password: account.password })
    ).body.csrf_token;
    const key = (await dashboard.post('/dashboard/api/widget-keys', { name: 'Shop', allowed_origins: [SHOP] })).body
      .key;
    // A shopper through the widget: one upload, two colours, each added to the cart.
    const c = server.client();
    const base = { 'x-widget-key': key, origin: SHOP };
    const id = (await c.request('GET', '/v2/file/upload-id', { headers: base })).body;
    const headers = { ...base, 'x-shopper-token': id.shopper_token };
    const file = (
      await c.uploadBytes(`/v2/file/public/${id.upload_id}`, new TextEncoder().encode(CUBE_OBJ), 'bracket.obj')
    ).body.file_id;
    for (const [color, quantity] of [
      ['Black', 3],
      ['White', 2],
    ] as const) {
      const q = await c.request('POST', `/v2/file/quote/${file}`, { json: { choices: { color } }, headers });
      assert.equal(q.status, 200, JSON.stringify(q.body));
      const added = await c.request('POST', '/v2/widget/cart', {
        json: { quote_id: q.body.quote_id, quantity },
        headers,
      });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      lines.push({ quote: q.body.quote_id, line: added.body.cart_line_id });
    }
    const ack = await c.request('POST', '/v2/widget/cart/acknowledge', {
      json: { cart_line_ids: [lines[0]!.line] },
      headers,
    });
    assert.equal(ack.status, 200);

    browser = await launch();
    page = await loggedInPage(browser, host.origin, account);
  });

  after(async () => {
    await browser?.close();
    await host?.close();
    await server?.stop();
  });

  it('lists every add to a cart with its status, choices, file and signed quote; exports them as CSV', async () => {
    await page.getByRole('link', { name: 'Orders' }).click();
    await h1('Orders').waitFor();
    const rows = page.getByTestId('orders').locator('tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 2);
    const taken = page.locator(`tr[data-line="${lines[0]!.line}"]`);
    const reserved = page.locator(`tr[data-line="${lines[1]!.line}"]`);
    assert.match(await taken.innerText(), /In a cart/);
    assert.match(await taken.innerText(), /Black/);
    assert.match(await reserved.innerText(), /Not in a cart/);
    assert.match(await reserved.innerText(), /White/);
    assert.match(await reserved.innerText(), /\b2\b/);
    const download = reserved.getByRole('link', { name: 'Download bracket.obj' });
    assert.match((await download.getAttribute('href'))!, /^\/v2\/file\/file_/);
    const fetched = await page.evaluate(
      async (url) => (await fetch(url)).status,
      (await download.getAttribute('href'))!,
    );
    assert.equal(fetched, 200, 'the model file downloads with the dashboard session');
    await reserved.getByText('Signature').click();
    assert.match(await reserved.innerText(), new RegExp(`v3:${lines[1]!.quote}:`));
    await assertAccessible(page, 'orders');
    await shoot(page, 'orders', true);

    const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    const csv = await page.evaluate(async (url) => (await fetch(url)).text(), href!);
    assert.match(csv, /^cart_line_id,created_at,status,/);
    for (const { line } of lines) assert.ok(csv.includes(line), `the CSV has ${line}`);
  });

  it('the quote history and the quote page say what became of each quote in the carts', async () => {
    await page.goto(at('quotes'));
    await h1('Quote history').waitFor();
    const row = (quote: string) => page.locator('tbody tr', { has: page.locator(`a[href="#/quotes/${quote}"]`) });
    await row(lines[0]!.quote).waitFor();
    // Each add shows its line total next to the unit price: unit × quantity (no minimum line price here).
    for (const [quote, quantity, status] of [
      [lines[0]!.quote, 3, 'In a cart'],
      [lines[1]!.quote, 2, 'Not in a cart'],
    ] as const) {
      const m = new RegExp(
        `${quantity} × \\$([\\d.]+)(?: \\(minimum price per part\\))? = \\$([\\d.]+)\\s+${status}`,
      ).exec(await row(quote).innerText());
      assert.ok(m, `${quantity} × unit = line total, ${status}`);
      assert.equal(Math.round(Number(m[1]) * 100) * quantity, Math.round(Number(m[2]) * 100));
    }
    await assertAccessible(page, 'quote history');

    await row(lines[1]!.quote).getByRole('link', { name: lines[1]!.quote }).click();
    const carts = page.getByTestId('quote-carts');
    await carts.waitFor();
    assert.match(
      await carts.innerText(),
      /2 × \$[\d.]+( \(minimum price per part\))? = \$[\d.]+ Not in a cart/,
      "the quote page says so too, with the line's formula",
    );
    await assertAccessible(page, 'quote');
  });
});

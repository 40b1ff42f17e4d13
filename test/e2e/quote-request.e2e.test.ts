// Request a quote, end to end in Debian's Chromium at 1280 and 390 px: the copied snippet on a plain page with no cart
// connected; the shopper prices a part and presses Add to cart, no cart takes it, and the widget asks for a name, an
// e-mail and a note (the form's errors announced, focus on the field to mend); the request reaches the dashboard's
// Orders and a signed webhook; the merchant prices it there (no SMTP on this server: the link is copied); the shopper
// opens the link in another browser and orders it. With `multiple` on the same snippet, Add all to cart on such a
// page asks once for a name and an e-mail, and each part becomes a request in Orders and a webhook event. axe finds
// nothing on the widget's forms nor on the Orders page. Screenshots in test-artifacts/widget/ and, with
// SLICEQUOTE_UPDATE_SCREENSHOTS=1, the priced request's row at 1280 px (docs/screenshots/dashboard-quote-request-
// priced.png) and the several parts' form at 390 px (docs/screenshots/widget-request-parts-phone.png).

import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { embedSnippet } from '../../dashboard/src/lib/snippet.ts';
import { corpusPath } from '../helpers/corpus.ts';
import { eventually } from '../helpers/poll.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import { assertNoAxeViolations } from './axe.ts';
import { assertAccessible, loggedInPage } from './dashboard-browser.ts';
import { type DashboardHost, dashboardHost } from './dashboard-serve.ts';
import {
  chromiumMissing,
  launchChromium,
  plainShopPage,
  startWidgetEnvWithPage,
  type WidgetEnv,
} from './widget-env.ts';

const skip = chromiumMissing() ?? false;
const ARTIFACTS = path.resolve('test-artifacts', 'widget');
const CUBE = corpusPath('stl', 'cube20_ascii.stl');
const TWO_CUBES = corpusPath('stl', 'two_cubes_10mm.stl');
const DESKTOP = { name: 'desktop', width: 1280, height: 900 };
const PHONE = { name: 'phone', width: 390, height: 844 };
// Each flow at one width, the two widths shared between them (the widget's form and the dashboard's Orders are
// seen at both): the single part at the desktop width, the several parts on the phone.
const SIZES = [DESKTOP, PHONE];

let env: WidgetEnv;
let browser: Browser;
let origin: string;
let host: DashboardHost;
let hooks: Receiver;
let hookSecret: string;

before(async () => {
  if (skip) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  // The copied snippet under the page's own heading (axe judges the whole page, which a shop gives a title); on
  // /parts with the `multiple` attribute a merchant adds for several parts (docs/widget.md).
  ({ env, origin } = await startWidgetEnvWithPage(
    (req, res, { server, widgetKey }) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      const snippet = embedSnippet(server.url, widgetKey);
      const body = req.url === '/parts' ? snippet.replace('<slice-quote ', '<slice-quote multiple ') : snippet;
      res.end(plainShopPage(`<h1>Custom prints</h1>${body}`));
    },
    { RATE_LIMIT_ANON_PLAN: 'business' },
  ));
  hooks = await startReceiver();
  const hook = await env.server
    .client(env.apiToken)
    .post('/v2/webhooks', { url: hooks.url, events: ['quote_request.created', 'quote_request.priced'] });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  hookSecret = hook.body.secret;
  host = await dashboardHost(env.server.url);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await host?.close();
  await hooks?.close();
  await env?.stop();
});

const widget = (page: Page, part: string) => page.locator(`slice-quote [part~=${part}]`);
const focusedId = (page: Page) =>
  page.locator('slice-quote').evaluate((el) => (el.shadowRoot!.activeElement as HTMLElement | null)?.id ?? '');

async function open(url: string, size: (typeof SIZES)[number]): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: size.width, height: size.height }, bypassCSP: true });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error('page error:', err.message));
  await page.goto(url);
  return page;
}

for (const size of [DESKTOP]) {
  test(`${size.name}: no cart on the page → a request in Orders and the webhook → priced in the dashboard → ordered from the link`, {
    skip,
  }, async () => {
    const shopper = `Ada ${size.name}`;
    const email = `ada-${size.name}@example.test`;
    const page = await open(`${origin}/plain`, size);
    try {
      await page.locator('slice-quote #file').setInputFiles(CUBE);
      await widget(page, 'amount').waitFor();
      await widget(page, 'add-button').click();
      // No cart took the line: the form opens, focus on its first field, and the bar says why.
      const form = widget(page, 'request-form');
      await form.waitFor();
      await page.waitForFunction(
        () => document.querySelector('slice-quote')?.shadowRoot?.activeElement?.id === 'rfq-name',
      );
      assert.match(await widget(page, 'reserved').innerText(), /No cart took your part yet/);
      await assertNoAxeViolations(page, `${size.name}: the request form`);

      // Sent empty: each field says what is wrong, announced; focus goes to the first to mend.
      await widget(page, 'send-request-button').click();
      await widget(page, 'field-error').first().waitFor();
      assert.equal(await page.locator('slice-quote #rfq-name').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.locator('slice-quote #rfq-email').getAttribute('aria-invalid'), 'true');
      assert.equal(await focusedId(page), 'rfq-name');
      await assertNoAxeViolations(page, `${size.name}: the request form with its errors`);

      await page.locator('slice-quote #rfq-name').fill(shopper);
      await page.locator('slice-quote #rfq-email').fill(email);
      await page.locator('slice-quote #rfq-note').fill('Matte black if you can.');
      const box = await widget(page, 'send-request-button').boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= size.width, 'Send request is within the screen');
      await widget(page, 'send-request-button').click();
      await widget(page, 'request-sent').waitFor();
      assert.match(await widget(page, 'request-sent').innerText(), new RegExp(`link to order your part to ${email}`));
      await page.screenshot({ path: path.join(ARTIFACTS, `request-sent-${size.name}.png`) });
    } finally {
      await page.context().close();
    }

    // The signed webhook.
    const created = await eventually(
      async () => hooks.requests.find((r) => r.json?.event === 'quote_request.created' && r.json.data.email === email),
      20_000,
      'quote_request.created',
    );
    const signature = `sha256=${createHmac('sha256', hookSecret).update(created.body).digest('hex')}`;
    assert.equal(created.headers['x-webhook-signature'], signature);
    assert.equal(created.json.data.reason, 'no_cart');
    assert.equal(created.json.data.name, shopper);

    // The merchant prices it in Orders.
    const dash = await loggedInPage(browser, host.origin, env.merchant);
    let link = '';
    try {
      await dash.setViewportSize({ width: size.width, height: size.height });
      await dash.goto(`${host.origin}/dashboard/#/orders`);
      const row = dash.locator('[data-testid=quote-requests] tr', { hasText: email });
      await row.waitFor();
      assert.match(await row.innerText(), /Requested/);
      assert.match(await row.innerText(), /Matte black if you can\./);
      await row.getByRole('button', { name: `Price this request of ${shopper}` }).click();
      await row.getByLabel('Price per part, tax included').fill('12.50');
      await row.getByLabel('Valid for (days)').fill('5');
      await row.getByRole('button', { name: 'Price and make the link' }).click();
      const linkField = row.getByLabel('Link to order it');
      await linkField.waitFor();
      link = await linkField.inputValue();
      assert.ok(link.startsWith(`${origin}/plain?`), link);
      assert.match(await row.innerText(), /Priced/);
      assert.match(await row.innerText(), /E-mail is not configured on this server/);
      await row.getByRole('button', { name: 'Copy link' }).waitFor();
      await assertAccessible(dash, `${size.name}: Orders with a priced request`);
      const shot = path.join(ARTIFACTS, `request-priced-${size.name}.png`);
      await row.screenshot({ path: shot });
      if (size.name === 'desktop' && process.env.SLICEQUOTE_UPDATE_SCREENSHOTS === '1')
        copyFileSync(shot, path.resolve('docs', 'screenshots', 'dashboard-quote-request-priced.png'));
    } finally {
      await dash.context().close();
    }

    // The shopper opens the link in another browser and orders it at the price set by hand.
    const again = await open(link, size);
    try {
      await widget(again, 'kept-title').waitFor();
      assert.match(await widget(again, 'amount').innerText(), /12\.50/);
      await widget(again, 'add-button').click();
      await widget(again, 'added').waitFor();
      // The shop priced it on this shopper's request, so it has their e-mail: no second form is asked for.
      assert.equal(await widget(again, 'added').innerText(), 'Your part is reserved — the shop will contact you.');
      assert.equal(await widget(again, 'request-form').count(), 0);
      await assertNoAxeViolations(again, `${size.name}: the priced request opened from its link`);
    } finally {
      await again.context().close();
    }
    const api = env.server.client(env.apiToken);
    const listed = await api.get('/v2/quote-requests?status=ordered');
    const ordered = listed.body.data.find((r: { email: string }) => r.email === email);
    assert.ok(ordered, 'the request is ordered');
    // The shop's order line is the price set by hand, as the widget showed it.
    const line = (await api.get(`/v2/widget/cart?quote_id=${ordered.price.quote_id}`)).body.data[0];
    assert.deepEqual([line?.quantity, line?.total_price], [1, 12.5]);
  });
}

for (const size of [PHONE]) {
  test(`${size.name}: several parts on the copied snippet: Add all, no cart → one form → a request per part in Orders and the webhook`, {
    skip,
  }, async () => {
    const shopper = `Grace ${size.name}`;
    const email = `grace-${size.name}@example.test`;
    const page = await open(`${origin}/parts`, size);
    try {
      await page.locator('slice-quote #file').setInputFiles([CUBE, TWO_CUBES]);
      await page.waitForFunction(
        () =>
          document.querySelector('slice-quote')?.shadowRoot?.querySelectorAll('[part~=row][data-status=priced]')
            .length === 2,
      );
      await widget(page, 'add-all-button').click();
      // No cart took the lines: one form for both parts opens, focus on its first field, and the bar says why.
      await widget(page, 'lines-request').locator('[part~=request-form]').waitFor();
      await page.waitForFunction(
        () => document.querySelector('slice-quote')?.shadowRoot?.activeElement?.id === 'all-rfq-name',
      );
      assert.equal(
        await widget(page, 'reserved').innerText(),
        'No cart took your parts yet: request a quote above, and the shop will send you a link to order them.',
      );
      assert.match(await widget(page, 'lines-request').innerText(), /No cart on this page took your parts/);
      assert.equal(await widget(page, 'row-added').count(), 0, 'no row says "In your cart"');
      await assertNoAxeViolations(page, `${size.name}: the request form of several parts`);
      const shot = path.join(ARTIFACTS, `request-parts-form-${size.name}.png`);
      await page.screenshot({ path: shot });
      if (size.name === 'phone' && process.env.SLICEQUOTE_UPDATE_SCREENSHOTS === '1')
        copyFileSync(shot, path.resolve('docs', 'screenshots', 'widget-request-parts-phone.png'));

      // Sent empty: the field to mend is named and focused, as for one part.
      await widget(page, 'send-request-button').click();
      await widget(page, 'field-error').first().waitFor();
      assert.equal(await page.locator('slice-quote #all-rfq-email').getAttribute('aria-invalid'), 'true');
      assert.equal(await focusedId(page), 'all-rfq-name');

      await page.locator('slice-quote #all-rfq-name').fill(shopper);
      await page.locator('slice-quote #all-rfq-email').fill(email);
      await page.locator('slice-quote #all-rfq-note').fill('Both in grey.');
      const box = await widget(page, 'send-request-button').boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= size.width, 'Send request is within the screen');
      await widget(page, 'send-request-button').click();
      await widget(page, 'request-sent').waitFor();
      assert.match(await widget(page, 'request-sent').innerText(), new RegExp(`links to order your parts to ${email}`));
      await page.waitForFunction(
        () => document.querySelector('slice-quote')?.shadowRoot?.activeElement?.getAttribute('part') === 'request-sent',
      );
      assert.equal(await widget(page, 'reserved').innerText(), 'Your parts are reserved — the shop will contact you.');
      await assertNoAxeViolations(page, `${size.name}: several parts requested`);
      await page.screenshot({ path: path.join(ARTIFACTS, `request-parts-sent-${size.name}.png`), fullPage: true });
    } finally {
      await page.context().close();
    }

    // A signed webhook event per part, each with its quote.
    const created = await eventually(
      async () => {
        const got = hooks.requests.filter(
          (r) => r.json?.event === 'quote_request.created' && r.json.data.email === email,
        );
        return got.length === 2 ? got : null;
      },
      20_000,
      'two quote_request.created',
    );
    for (const c of created) {
      assert.equal(
        c.headers['x-webhook-signature'],
        `sha256=${createHmac('sha256', hookSecret).update(c.body).digest('hex')}`,
      );
      assert.equal(c.json.data.reason, 'no_cart');
      assert.match(c.json.data.quoteId, /^qt_/);
    }
    assert.deepEqual(created.map((c) => c.json.data.fileName).sort(), ['cube20_ascii.stl', 'two_cubes_10mm.stl']);

    // Both are in Orders, each with the shopper's note, to be priced.
    const dash = await loggedInPage(browser, host.origin, env.merchant);
    try {
      await dash.setViewportSize({ width: size.width, height: size.height });
      await dash.goto(`${host.origin}/dashboard/#/orders`);
      const rows = dash.locator('[data-testid=quote-requests] tbody tr', { hasText: email });
      await rows.first().waitFor();
      assert.equal(await rows.count(), 2);
      for (const text of await rows.allInnerTexts()) {
        assert.match(text, /Requested/);
        assert.match(text, /Both in grey\./);
      }
      await assertAccessible(dash, `${size.name}: Orders with the requests of several parts`);

      // Analytics counts the requests apart from the orders, as the shop's list has them.
      const listed = async (status: string) =>
        (await env.server.client(env.apiToken).get(`/v2/quote-requests?status=${status}&limit=100`)).body.total;
      await dash.goto(`${host.origin}/dashboard/#/analytics`);
      const requests = dash.getByTestId('analytics-requests');
      await requests.waitFor();
      for (const status of ['requested', 'priced', 'ordered'])
        assert.match(
          await requests.locator(`[data-cell="${status}"]`).innerText(),
          new RegExp(`^${await listed(status)} `),
          status,
        );
      assert.match(await requests.locator('[data-cell="requested"]').innerText(), /^[2-9]\d* waiting for your price$/);
      await assertAccessible(dash, `${size.name}: analytics with quote requests`);
    } finally {
      await dash.context().close();
    }
  });
}

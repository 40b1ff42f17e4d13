// End-to-end: the merchant dashboard in Debian's Chromium against a real server. Walks every page's main
// flow in order (each step builds on the previous one), checks each page with axe-core, and keeps a
// screenshot per page in test-artifacts/dashboard/.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { assertAccessible, CHROMIUM, chromiumMissing, cspViolations, launch, shoot } from './dashboard-browser.ts';
import { type DashboardHost, dashboardHost } from './dashboard-serve.ts';
import { buildDashboardIfMissing } from './dashboard-suite.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CUBE = path.join(ROOT, 'demo', 'models', 'calibration-cube.stl');
const skip = chromiumMissing()
  ? `Debian's Chromium is missing at ${CHROMIUM}: install it with "apt-get install -y chromium" (or npm run setup -- --with-browser)`
  : false;
const email = `merchant-${Date.now()}@example.test`;
const password = 'a long enough password';

describe('merchant dashboard end to end', { skip }, () => {
  let server: TestServer;
  let host: DashboardHost;
  let browser: Browser;
  let page: Page;
  let receiver: Receiver;
  let receiverStatus = 500;
  let apiToken = '';
  let refused: string[] = [];
  const at = (hash: string) => `${host.origin}/dashboard/#/${hash}`;
  const h1 = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });

  before(async () => {
    // setup.sh builds the dashboard; build here too so the test runs on its own after a fresh clone.
    buildDashboardIfMissing();
    server = await startTestServer({
      WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
      WEBHOOK_SWEEP_INTERVAL_MS: '200',
      WEBHOOK_TIMEOUT_MS: '2000',
    });
    host = await dashboardHost(server.url);
    receiver = await startReceiver(() => ({ status: receiverStatus }));
    browser = await launch();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    page.on('pageerror', (err) => console.error('page error:', err.message));
    refused = cspViolations(page);
  });

  after(async () => {
    await browser?.close();
    await receiver?.close();
    await host?.close();
    await server?.stop();
  });

  it('signs up, logs out and logs back in', async () => {
    await page.goto(at('signup'));
    await h1('Create your merchant account').waitFor();
    await assertAccessible(page, 'sign up');
    await shoot(page, 'signup');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('alert').getByText('at least 10 characters').waitFor();
    await page.getByLabel('Password').fill(password);
    await page.getByLabel(/Shop name/).fill('Layer Cake Prints');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await h1('Overview').waitFor();
    await page.getByRole('button', { name: 'Log out' }).click();
    await h1('Log in to your dashboard').waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('wrong password!');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').getByText('The email or password is wrong.').waitFor();
    await assertAccessible(page, 'log in (with an error)');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await h1('Overview').waitFor();
  });

  it('shows the overview with plan, allowance, storage, empty recent quotes and the snippet', async () => {
    await page.getByText('No quotes yet').waitFor();
    assert.match(await page.getByTestId('quotes-used').innerText(), /^0 of [\d,]+/);
    assert.match(await page.getByLabel('Getting-started commands').innerText(), new RegExp(`${host.origin}/v2/file`));
    // Without a widget key yet, the widget panel beside the curl commands shows no snippet (never a placeholder
    // key), only where to make one; the first-run checklist starts with that step.
    const widgetStart = page.getByTestId('overview-widget-start');
    assert.equal(await page.getByTestId('overview-embed-snippet').count(), 0);
    assert.equal(await widgetStart.getByRole('button', { name: 'Copy widget snippet' }).count(), 0);
    assert.doesNotMatch(await page.locator('main').innerText(), /pk_YOUR_WIDGET_KEY/);
    await widgetStart.getByRole('link', { name: 'Create a widget key' }).waitFor();
    assert.match(await page.getByTestId('setup-checklist').innerText(), /0 of 5 done/);
    const [widgetBox, curlBox] = [
      await widgetStart.boundingBox(),
      await page.getByRole('region', { name: 'Get started with the API' }).boundingBox(),
    ];
    assert.ok(
      widgetBox && curlBox && Math.abs(widgetBox.y - curlBox.y) < 80 && widgetBox.x + widgetBox.width < curlBox.x,
      'side by side at 1280 px',
    );
    // Landing on a page focuses its heading for screen readers, without drawing a focus box around it.
    const headingOutline = await page.evaluate(() =>
      document.activeElement?.tagName === 'H1'
        ? getComputedStyle(document.activeElement).outlineStyle
        : 'heading not focused',
    );
    assert.equal(headingOutline, 'none');
    await assertAccessible(page, 'overview');
    await shoot(page, 'overview-empty');
  });

  it('creates an API token that works with a plain fetch, and revokes another', async () => {
    await page.goto(at('tokens'));
    await h1('API tokens').waitFor();
    await page.getByText('No tokens yet').waitFor();
    await page.getByLabel('Name').fill('shop backend');
    await page.getByRole('button', { name: 'Create token' }).click();
    apiToken = (await page.getByTestId('secret-value').innerText()).trim();
    assert.ok(apiToken.length > 40, 'the token is shown once');
    const me = await fetch(`${server.url}/v2/user`, { headers: { authorization: `Bearer ${apiToken}` } });
    assert.equal(me.status, 200);
    assert.equal((await me.json()).email, email);
    await page.getByRole('cell', { name: /^shop backend tok_/ }).waitFor();
    await assertAccessible(page, 'tokens');
    await shoot(page, 'tokens', true);

    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByLabel('Name').fill('old script');
    await page.getByRole('button', { name: 'Create token' }).click();
    const oldToken = (await page.getByTestId('secret-value').innerText()).trim();
    await page.getByRole('button', { name: 'Revoke token old script' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke token' }).click();
    await page.getByText('Token "old script" revoked.').waitFor();
    assert.equal(
      (await fetch(`${server.url}/v2/user`, { headers: { authorization: `Bearer ${oldToken}` } })).status,
      401,
    );
  });

  it('creates a widget key with allowed origins, shows its embed snippet and preview, revokes one', async () => {
    await page.goto(at('widget-keys'));
    await h1('Widget keys').waitFor();
    await page.getByLabel('Name').fill('main shop');
    await page.getByLabel('Allowed origins').fill('not an origin');
    await page.getByRole('button', { name: 'Create widget key' }).click();
    await page.getByRole('alert').getByText('is not an origin').waitFor();
    await page.getByLabel('Allowed origins').fill(`https://shop.example.com\n${host.origin}`);
    await page.getByRole('button', { name: 'Create widget key' }).click();
    await page.getByText('Widget key "main shop" created.').waitFor();
    const snippet = await page.getByTestId('embed-snippet').innerText();
    assert.match(snippet, new RegExp(`<script type="module" src="${host.origin}/widget/slice-quote.js"></script>`));
    assert.match(snippet, new RegExp(`<slice-quote api="${host.origin}" key="pk_[\\w-]+">`));
    // The preview is the widget engineer's component in a frame: shown when the server serves the widget.
    await page.locator('iframe.widget-preview, .state-empty:has-text("Preview unavailable")').first().waitFor();
    await assertAccessible(page, 'widget keys', ['iframe.widget-preview']);
    await shoot(page, 'widget-keys', true);

    await page.getByLabel('Name').fill('staging');
    await page.getByLabel('Allowed origins').fill('https://staging.example.com');
    await page.getByRole('button', { name: 'Create widget key' }).click();
    await page.getByText('Widget key "staging" created.').waitFor();
    await page.getByRole('button', { name: 'Revoke widget key staging' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('Widget key "staging" revoked.').waitFor();
    // The list reloads after the notice; the revoked key must leave it (waitFor fails after its timeout).
    await page.getByRole('cell', { name: 'staging', exact: true }).waitFor({ state: 'detached' });
    assert.equal(await page.getByRole('cell', { name: 'staging', exact: true }).count(), 0);
  });

  it('creates a webhook to a loopback receiver (secret shown once)', async () => {
    await page.goto(at('webhooks'));
    await h1('Webhooks').waitFor();
    await page.getByText('No webhooks yet').waitFor();
    await page.getByLabel('Receiver URL').fill(receiver.url);
    // Each event checkbox has room: its own padded box, rows well apart.
    const boxes = await page.locator('.check-grid .field-check').evaluateAll((els) =>
      els.map((el) => {
        const r = el.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, padding: parseFloat(getComputedStyle(el).paddingTop) };
      }),
    );
    assert.ok(
      boxes.length >= 5 && boxes.every((b) => b.padding >= 8),
      `padded: ${JSON.stringify(boxes.map((b) => b.padding))}`,
    );
    const rows = boxes
      .map((b) => b.top)
      .sort((a, b) => a - b)
      .filter((top, i, all) => i === 0 || top - all[i - 1]! > 5);
    const gaps = rows
      .slice(1)
      .map((top) => top - Math.max(...boxes.filter((b) => b.top < top - 5).map((b) => b.bottom)));
    assert.ok(
      gaps.every((g) => g >= 10),
      `rows apart: ${gaps.join(', ')} px`,
    );
    await assertAccessible(page, 'webhooks');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = (await page.getByTestId('secret-value').innerText()).trim();
    assert.ok(secret.length >= 16, 'the signing secret is shown once');
    await page.getByRole('link', { name: receiver.url }).waitFor();
    await shoot(page, 'webhooks');
  });

  it("creates a material profile with the API's validation and quotes a model with it", async () => {
    await page.goto(at('profiles/material'));
    await h1('Slice profiles').waitFor();
    await page.getByRole('link', { name: 'New material profile' }).click();
    await page.getByLabel(/^Material name/).fill('Matte PLA');
    await page.getByLabel(/^Fan speed/).fill('150');
    await page.getByText('Fan speed must be at most 100 %').waitFor();
    await page.getByLabel(/^Density/).fill('abc');
    await page.getByRole('button', { name: 'Create profile' }).click();
    await page.getByText('2 fields need attention before saving.').waitFor();
    assert.equal(
      await page.evaluate(() => document.activeElement?.id),
      'pf-density',
      'focus moves to the first invalid field',
    );
    await assertAccessible(page, 'profile form with errors');
    await page.getByLabel(/^Density/).fill('1.25');
    await page.getByLabel(/^Fan speed/).fill('80');
    assert.equal(await page.getByLabel(/^Price per gram/).count(), 0, 'one price: per kg');
    await page.getByLabel(/^Price per kg/).fill('32');
    await page.getByLabel(/^Default colour/).fill('Graphite');
    await page.getByRole('button', { name: 'Create profile' }).click();
    await page.getByText('Profile "Matte PLA" saved.').waitFor();

    await page.getByLabel('Upload a model (STL, 3MF or OBJ)').setInputFiles(CUBE);
    await page
      .getByLabel('Model to quote')
      .locator('option', { hasText: 'calibration-cube.stl' })
      .waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Quote with this profile' }).click();
    await page.getByRole('heading', { name: /^Result:/ }).waitFor();
    const density = page.locator('[data-setting="material_config.density"]');
    assert.match(await density.innerText(), /1\.25 g\/cm³\s+Your profile “Matte PLA”/);
    assert.match(await page.locator('[data-setting="material_config.filament_type"]').innerText(), /Request/);
    assert.match(
      await page.locator('[data-setting="material_config.price_per_gram"]').innerText(),
      /0\.032\s+Your profile “Matte PLA”/,
    );
    assert.match(await page.locator('[data-setting="printer_config.layer_height"]').innerText(), /Global profile/);
    await assertAccessible(page, 'profile with try-it result');
    await shoot(page, 'profile-try-it', true);
  });

  it('names the shipped global settings profiles once, and writes money units in the shop currency', async () => {
    await page.goto(at('profiles/global'));
    await h1('Slice profiles').waitFor();
    await page.getByRole('heading', { level: 2, name: 'Shipped global settings profiles (read-only)' }).waitFor();
    assert.doesNotMatch(await page.locator('main').innerText(), /global global/i);
    await page.goto(at('profiles/printer/new'));
    await page.getByLabel(/^Machine hourly cost/).waitFor();
    assert.match(await page.locator('label[for="pf-hourly_cost"]').innerText(), /\(USD\/h\)/);
    assert.doesNotMatch(await page.locator('main').innerText(), /currency\//);
  });

  it('shows the failed delivery, and resends it once the receiver answers 200', async () => {
    await receiver.waitFor(3, 30_000); // the quote.completed event: first attempt plus two retries, all 500
    await page.goto(at('webhooks'));
    await page.getByRole('link', { name: receiver.url }).click();
    await h1('Webhook').waitFor();
    const failed = page.locator('tr[data-state="failed"]');
    await failed.first().waitFor();
    assert.match(await failed.first().innerText(), /quote\.completed\s+Failed\s+3 \/ 3\s+500/);
    await assertAccessible(page, 'webhook with a failed delivery');
    await shoot(page, 'webhook-deliveries-failed', true);

    receiverStatus = 200;
    await failed
      .first()
      .getByRole('button', { name: /^Resend/ })
      .click();
    await page.getByText(/Resent quote\.completed as a new delivery/).waitFor();
    await page.locator('tr[data-state="delivered"]').first().waitFor();
    const resent = receiver.requests.at(-1)!;
    assert.equal(resent.headers['x-webhook-event'], 'quote.completed');
    await page.getByRole('button', { name: 'Refresh' }).click();
    assert.match(await page.getByTestId('webhook-stats').innerText(), /Delivered\s+1/);

    await page.getByRole('switch').click();
    await page.getByText('Webhook paused').waitFor();
    await page.getByRole('switch', { checked: false }).waitFor();
    await page.getByRole('switch').click();
    await page.getByText('Webhook active again.').waitFor();
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('file.uploaded').check();
    await page.getByRole('button', { name: 'Save webhook' }).click();
    await page.getByText('Webhook saved.').waitFor();
    await page.locator('.props code.chip', { hasText: 'file.uploaded' }).waitFor();
    await shoot(page, 'webhook-deliveries');
  });

  it('lists, filters, opens, downloads and deletes quotes in the history', async () => {
    // More quotes through the API with the dashboard-made token, in another material.
    for (let i = 0; i < 2; i++) await quoteViaApi(server.url, apiToken, 'PETG');
    await page.goto(at('quotes'));
    await h1('Quote history').waitFor();
    await page.getByText('3 quotes.').waitFor();
    await page.getByLabel('Material').selectOption('Matte PLA');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await page.getByText(/^1 matching quotes/).waitFor();
    assert.equal(await page.locator('table tbody tr').count(), 1);
    await assertAccessible(page, 'quote history (filtered)');
    await shoot(page, 'quotes-filtered');
    await page.getByRole('link', { name: 'Clear' }).click();
    await page.getByText('3 quotes.').waitFor();
    await shoot(page, 'quotes', true);

    await page.locator('table tbody tr').first().getByRole('link').click();
    await h1('Quote for calibration-cube.stl').waitFor();
    await page.getByRole('table', { name: 'Price breakdown' }).waitFor();
    await page.locator('[data-setting="material_config.filament_type"]').waitFor();
    // One duration format on the page: the headline and the summary both say "N min" (or "N h N min").
    const times = await page.getByText(/^\d+(\s?h \d+)? ?m(in)?$/).allInnerTexts();
    assert.ok(
      times.length >= 2 && times.every((t) => /^(\d+ h )?\d+ min$/.test(t)) && new Set(times).size === 1,
      `print times: ${JSON.stringify(times)}`,
    );
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download calibration-cube.stl' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'calibration-cube.stl');
    assert.deepEqual(readFileSync(await download.path()), readFileSync(CUBE));
    await assertAccessible(page, 'quote page');
    await shoot(page, 'quote');
    await page.getByRole('button', { name: 'Delete quote' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete quote' }).click();
    await h1('Quote history').waitFor();
    await page.getByText('2 quotes.').waitFor();
  });

  it('shows usage and analytics as charts and exports CSV and JSON', async () => {
    await page.goto(at('analytics'));
    await h1('Usage & analytics').waitFor();
    const popular = page.getByTestId('popular-materials');
    await popular.waitFor();
    assert.match(await popular.innerText(), /PETG\s+2/);
    assert.match(await popular.innerText(), /Matte PLA\s+1/);
    assert.match(await page.getByTestId('endpoint-usage').innerText(), /POST \/v2\/file\/quote\/:file_id/);
    assert.match(await page.getByTestId('analytics-totals').innerText(), /Completed quotes\s+3/);
    assert.ok((await page.locator('sq-chart canvas').count()) >= 3, 'three charts');
    await page.getByText('Week', { exact: true }).click();
    await page.getByText('Cost trends as a table').click();
    await page
      .getByRole('rowheader', { name: /^\d{4}-W\d{2}$/ })
      .first()
      .waitFor();
    await assertAccessible(page, 'analytics');
    await shoot(page, 'analytics', true);

    const [csv] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    assert.match(csv.suggestedFilename(), /^slicequote-quotes-\d{4}-\d{2}-\d{2}\.csv$/);
    const text = readFileSync(await csv.path(), 'utf8');
    assert.equal(text.trim().split('\r\n').length, 4, 'a header and the three quotes (the deleted one included)');
    const [json] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export JSON' }).click(),
    ]);
    assert.equal(JSON.parse(readFileSync(await json.path(), 'utf8')).count, 3);
  });

  it('lands on the overview with the quotes counted, and is keyboard operable', async () => {
    await page.goto(at('overview'));
    await h1('Overview').waitFor();
    assert.match(await page.getByTestId('quotes-used').innerText(), /^3 of/);
    assert.match(
      await page.getByTestId('overview-embed-snippet').innerText(),
      /key="pk_[\w-]+"/,
      'the snippet carries the real widget key',
    );
    await page.getByRole('table').waitFor();
    await shoot(page, 'overview', true);
    // The skip link is the first stop of the page, before the brand link.
    await page.getByRole('link', { name: 'slicequote', exact: true }).focus();
    await page.keyboard.press('Shift+Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'H1');
    // Navigating moves focus to the new page's heading, so screen readers announce the page.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'API tokens' }).focus();
    await page.keyboard.press('Enter');
    await h1('API tokens').waitFor();
    await page.waitForFunction(
      () => document.activeElement?.tagName === 'H1' && document.activeElement.textContent === 'API tokens',
    );
    assert.equal(await page.title(), 'API tokens · slicequote');
  });

  it('ran every page, the widget preview included, under its Content-Security-Policy without a refusal', () => {
    assert.deepEqual(refused, []);
  });
});

async function quoteViaApi(base: string, token: string, material: string): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(CUBE)]), 'calibration-cube.stl');
  const auth = { authorization: `Bearer ${token}` };
  const file = await (await fetch(`${base}/v2/file`, { method: 'POST', headers: auth, body: form })).json();
  const res = await fetch(`${base}/v2/file/quote/${file.file_id}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ material_config: { filament_type: material } }),
  });
  assert.equal(res.status, 200, await res.clone().text());
}

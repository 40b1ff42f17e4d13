// End-to-end in Debian's Chromium against a real server and a real loopback receiver: "Send test event" per
// webhook with the receiver's answer, the delivery detail (signed request, every attempt with status, timing
// and outcome), the usage page counting API calls apart from the dashboard's own, and a private receiver's refusal
// naming the setting that allows it. Screenshots in
// test-artifacts/dashboard/.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verify } from '@octokit/webhooks-methods';
import type { Browser, Page } from 'playwright-core';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { assertAccessible, CHROMIUM, chromiumMissing, launch, loggedInPage, shoot } from './dashboard-browser.ts';
import { type DashboardHost, dashboardHost } from './dashboard-serve.ts';
import { buildDashboardIfMissing } from './dashboard-suite.ts';

const skip = chromiumMissing()
  ? `Debian's Chromium is missing at ${CHROMIUM}: install it with "apt-get install -y chromium"`
  : false;

describe('dashboard: test events, delivery detail and usage by caller', { skip }, () => {
  let server: TestServer;
  let host: DashboardHost;
  let browser: Browser;
  let page: Page;
  let receiver: Receiver;
  let receiverStatus = 200;
  let account: Awaited<ReturnType<TestServer['newAccount']>>;
  let hook: { webhook_id: string; secret: string; url: string };
  const at = (hash: string) => `${host.origin}/dashboard/#/${hash}`;
  const h1 = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });

  before(async () => {
    buildDashboardIfMissing();
    server = await startTestServer({
      WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
      WEBHOOK_SWEEP_INTERVAL_MS: '200',
      WEBHOOK_TIMEOUT_MS: '2000',
    });
    host = await dashboardHost(server.url);
    receiver = await startReceiver(() => ({
      status: receiverStatus,
      body: receiverStatus === 200 ? 'thanks' : 'database unavailable',
    }));
    account = await server.newAccount();
    const created = await server
      .client(account.token)
      .post('/v2/webhooks', { url: receiver.url, events: ['quote.completed'] });
    assert.equal(created.status, 201);
    hook = created.body;
    browser = await launch();
    page = await loggedInPage(browser, host.origin, account);
  });

  after(async () => {
    await browser?.close();
    await receiver?.close();
    await host?.close();
    await server?.stop();
  });

  it('sends a test event from the webhook list and shows what the receiver answered', async () => {
    await page.goto(at('webhooks'));
    await h1('Webhooks').waitFor();
    const result = page.getByTestId('test-event-result');
    await page.getByRole('button', { name: `Send test event to ${receiver.url}` }).click();
    await result.getByText(/^Delivered: your endpoint answered 200 in \d+ ms\./).waitFor();
    const ping = receiver.requests.at(-1)!;
    assert.equal(ping.headers['x-webhook-event'], 'ping');
    assert.deepEqual([ping.json.event, ping.json.test], ['ping', true]);
    assert.equal(await verify(hook.secret, ping.body, ping.headers['x-webhook-signature'] as string), true);

    receiverStatus = 500;
    await page.getByRole('button', { name: `Send test event to ${receiver.url}` }).click();
    // The first attempt's outcome; the retries go on meanwhile (how far they got depends on timing).
    await result
      .getByText(
        /^Not delivered: receiver answered 500 \(after \d+ ms\)\. (Retrying: up to 3 attempts in all|No attempt succeeded \(3 of 3\))\./,
      )
      .waitFor();
    await assertAccessible(page, 'webhooks with a test result');
    await shoot(page, 'webhooks-test-event');
  });

  it('opens the failed test delivery: the signed request and each attempt with status, timing and outcome', async () => {
    await page.getByTestId('test-event-result').getByRole('link', { name: 'Details' }).click();
    await h1('Delivery').waitFor();
    // The page follows the retries by itself until the third attempt fails.
    await page.getByTestId('delivery-summary').getByText('Failed').waitFor();
    const rows = page.getByTestId('delivery-attempts').locator('tbody tr');
    assert.equal(await rows.count(), 3);
    for (let i = 0; i < 3; i++)
      assert.match(
        await rows.nth(i).innerText(),
        new RegExp(`^${i + 1}\\s.*\\d+ ms\\s+500\\s+receiver answered 500\\s+not kept`, 's'),
      );
    const last = receiver.requests.at(-1)!;
    const headers = await page.getByTestId('delivery-headers').innerText();
    assert.ok(headers.includes(last.headers['x-webhook-signature'] as string), 'the signature that was sent');
    assert.ok(headers.includes(last.headers['x-webhook-timestamp'] as string), "the latest attempt's timestamp");
    assert.match(headers, /x-webhook-event\s+ping/);
    const body = await page.getByTestId('delivery-body').innerText();
    assert.deepEqual(JSON.parse(body), last.json, 'the body that was sent, indented for reading');
    assert.match(body, /"test": true/);
    await assertAccessible(page, 'delivery detail');
    await shoot(page, 'webhook-delivery-detail', true);
    // On a phone the long signature, body and answers wrap or scroll inside their boxes, not the page.
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the phone`);
    await assertAccessible(page, 'delivery detail on a phone');
    await shoot(page, 'webhook-delivery-detail-phone');
    await page.setViewportSize({ width: 1280, height: 900 });

    // From the webhook's delivery log, each delivery links to its detail; test deliveries are marked.
    await page.getByRole('link', { name: 'Back to the webhook' }).click();
    await h1('Webhook').waitFor();
    const firstRow = page.getByTestId('deliveries').locator('tbody tr').first();
    assert.match(await firstRow.innerText(), /^ping test/);
    await firstRow.getByRole('link', { name: /^Details of ping delivery dlv_/ }).click();
    await h1('Delivery').waitFor();
  });

  it("counts API calls on the usage page by default, with the dashboard's own calls apart", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/v2/user`, { headers: { authorization: `Bearer ${account.token}` } });
      assert.equal(res.status, 200);
    }
    await page.goto(at('analytics'));
    await h1('Usage & analytics').waitFor();
    const endpoints = page.getByTestId('endpoint-usage');
    await endpoints.waitFor();
    // Only the token's calls (creating the webhook, then three GET /v2/user): the dashboard's own GET /v2/user,
    // /v2/webhooks and /v2/usage calls are left out.
    assert.deepEqual(
      (await endpoints.locator('tbody th').allInnerTexts()).map((t) => t.trim()),
      ['GET /v2/user', 'POST /v2/webhooks'],
    );
    assert.match(await endpoints.locator('tbody tr').first().innerText(), /GET \/v2\/user\s+3\s+0/);
    const callers = page.getByTestId('usage-callers');
    assert.match(await callers.innerText(), /API tokens 4 · Widget 0 · This dashboard \d+ \(not counted below\)/);
    const own = Number(/This dashboard (\d+)/.exec(await callers.innerText())![1]);
    assert.ok(own >= 2, `the dashboard's own calls so far: ${own}`);
    await assertAccessible(page, 'usage by caller');
    await shoot(page, 'analytics-usage-callers');

    await page.getByLabel('Count', { exact: true }).selectOption({ label: 'This dashboard' });
    await endpoints.getByText('GET /v2/usage').waitFor();
    assert.doesNotMatch(await callers.innerText(), /This dashboard \d+ \(not counted below\)/);
    assert.match(await callers.innerText(), /API tokens 4 \(not counted below\)/);
    await page.getByLabel('Count', { exact: true }).selectOption({ label: 'All calls' });
    await page.waitForFunction(
      () => !document.querySelector('[data-testid="usage-callers"]')?.textContent?.includes('not counted'),
    );
    const all = await endpoints.innerText();
    assert.match(all, /GET \/v2\/usage/);
    assert.match(all, /POST \/v2\/webhooks/);
    const userCalls = Number(/GET \/v2\/user\s+(\d+)/.exec(all)![1]);
    assert.ok(userCalls > 3, `the token's 3 and the dashboard's own: ${userCalls}`);
  });

  it('refuses a private receiver naming the operator setting that allows it, with its guide linked', async () => {
    await page.goto(at('webhooks'));
    await h1('Webhooks').waitFor();
    // 127.0.0.1/32 is allowed on this server; the rest of the private ranges are not.
    await page.getByLabel('Receiver URL').fill('http://10.0.0.7/hook');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'is not public' });
    await alert.waitFor();
    assert.match(
      await alert.innerText(),
      /address 10\.0\.0\.7 is not public \(private\); .*WEBHOOK_ALLOW_PRIVATE_CIDRS/,
    );
    assert.equal(await page.getByLabel('Receiver URL').getAttribute('aria-invalid'), 'true');
    const help = page.getByTestId('webhook-refusal-help');
    assert.match(await help.innerText(), /WEBHOOK_ALLOW_PRIVATE_CIDRS/);
    const guide = help.getByRole('link', { name: /webhooks guide/ });
    const href = (await guide.getAttribute('href'))!;
    assert.match(href, /webhooks.*\.md$/);
    const served = await page.evaluate(async (u) => {
      const res = await fetch(u);
      return { status: res.status, text: await res.text() };
    }, href);
    assert.equal(served.status, 200);
    assert.match(served.text, /### Local development: `WEBHOOK_ALLOW_PRIVATE_CIDRS`/, 'the guide explains the setting');
    await assertAccessible(page, 'webhooks with a refused private receiver');
  });
});

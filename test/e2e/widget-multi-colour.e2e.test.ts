// A multi-colour 3MF in the storefront, end to end in Debian's Chromium: a PrusaSlicer project whose two parts print
// with two extruders is never priced (one filament's slice would misprice it). On the demo shop at 1280 px the
// single-part widget says it is multi-colour and offers Request a quote instead of a price; at 390 px its row among
// several parts does the same, naming the part, while the other row is priced. Each request reaches the shop's
// requests with the reason; the merchant prices it, and the shopper opens the link on the demo shop page it came
// from and orders it: the shop's cart takes it, and the request reads ordered.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { corpusPath } from '../helpers/corpus.ts';
import { projectThreeMf, TWO_COLOUR_PROJECT } from '../helpers/prusa-project.ts';
import { assertNoAxeViolations } from './axe.ts';
import { chromiumMissing, widgetSuite } from './widget-env.ts';

const skip = chromiumMissing() ?? false;
const CUBE = corpusPath('stl', 'cube20_ascii.stl');
const TWO_COLOURS = {
  name: 'two-colours.3mf',
  mimeType: 'model/3mf',
  buffer: Buffer.from(projectThreeMf(TWO_COLOUR_PROJECT)),
};

const suite = widgetSuite(skip, { env: { RATE_LIMIT_ANON_PLAN: 'business' } });

async function open(path: string, width: number, height: number): Promise<Page> {
  // bypassCSP: axe-core is injected as an inline script, which the shop's policy rightly refuses.
  const page = await suite.browser.newPage({ viewport: { width, height }, bypassCSP: true });
  page.on('pageerror', (err) => console.error('page error:', err.message));
  await page.goto(`${suite.env.shop.url}${path}`);
  await page.waitForFunction(() => (document.querySelector('slice-quote') as unknown as { config: unknown }).config);
  return page;
}

/** The shop's requests of one shopper's e-mail, as the dashboard's Orders lists them. */
async function requestOf(email: string) {
  const listed = await suite.env.server.client(suite.env.apiToken).get('/v2/quote-requests?status=requested');
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  return listed.body.data.find((r: { email: string }) => r.email === email);
}

/**
 * The merchant prices the request (as the dashboard's Orders does); the shopper opens the link it makes, on the page
 * the request came from, in another browser at the same size, and orders it: the demo shop's cart takes it.
 */
async function pricedAndOrdered(requestId: string, width: number, height: number): Promise<void> {
  const api = suite.env.server.client(suite.env.apiToken);
  const priced = await api.post(`/v2/quote-requests/${requestId}/price`, { unit_price: 30, valid_days: 5 });
  assert.equal(priced.status, 200, JSON.stringify(priced.body));
  const link: string = priced.body.price.order_url;
  assert.ok(link.startsWith(suite.env.shop.url.replace(/\/$/, '')), `the link opens the shop page: ${link}`);
  const context = await suite.browser.newContext({ viewport: { width, height }, bypassCSP: true });
  try {
    const page = await context.newPage();
    page.on('pageerror', (err) => console.error('page error:', err.message));
    await page.goto(link);
    await page.locator('slice-quote [part~=kept-title]').waitFor();
    assert.equal(await page.locator('slice-quote [part~=amount]').innerText(), '$30.00');
    await page.locator('slice-quote [part~=add-button]').click();
    const added = page.locator('slice-quote [part~=added]');
    await added.waitFor();
    assert.equal(await added.innerText(), 'Added 1 × two-colours.3mf to your cart.');
    await assertNoAxeViolations(page, `a priced request ordered at ${width} px`);
  } finally {
    await context.close();
  }
  const request = await api.get(`/v2/quote-requests/${requestId}`);
  assert.equal(request.body.status, 'ordered');
}

async function sendRequest(page: Page, scope: string, email: string): Promise<void> {
  await page.locator(`${scope} [part~=request-button]`).click();
  await page.locator(`${scope} input[name=name]`).fill('Ada Lovelace');
  await page.locator(`${scope} input[name=email]`).fill(email);
  await page.locator(`${scope} textarea[name=note]`).fill('Red body, white lid.');
  await page.locator(`${scope} [part~=send-request-button]`).click();
  await page.locator(`${scope} [part~=request-sent]`).waitFor();
}

test('1280 px, one part: a two-colour 3MF shows why and Request a quote instead of a price; priced, it is ordered from the link', {
  skip,
}, async () => {
  const page = await open('/', 1280, 900);
  try {
    await page.locator('slice-quote #file').setInputFiles(TWO_COLOURS);
    const error = page.locator('slice-quote [part~=error]');
    await error.waitFor();
    assert.equal(await error.getAttribute('data-code'), 'multi_material');
    assert.match(await error.innerText(), /multi-colour/);
    assert.equal(await page.locator('slice-quote [part~=amount]').count(), 0, 'no price shown');
    assert.equal(await page.locator('slice-quote [part~=estimate]').count(), 0, 'nor an estimate');
    await assertNoAxeViolations(page, 'a multi-colour part offered Request a quote');
    await sendRequest(page, 'slice-quote', 'ada-one@example.test');
    const request = await requestOf('ada-one@example.test');
    assert.deepEqual([request?.reason, request?.reason_code], ['not_priceable', 'multi_material']);
    await pricedAndOrdered(request.request_id, 1280, 900);
  } finally {
    await page.close();
  }
});

test('390 px, several parts: the multi-colour row offers Request a quote, named for its part; the other is priced; the request is ordered from its link', {
  skip,
}, async () => {
  const page = await open('/parts', 390, 844);
  try {
    const cubeFile = { name: 'cube20_ascii.stl', mimeType: 'model/stl', buffer: readFileSync(CUBE) };
    await page.locator('slice-quote #file').setInputFiles([cubeFile, TWO_COLOURS]);
    const cube = page.locator('slice-quote [part~=row]').nth(0);
    const coloured = page.locator('slice-quote [part~=row]').nth(1);
    await coloured.locator('[part~=error]').waitFor();
    assert.equal(await coloured.locator('[part~=error]').getAttribute('data-code'), 'multi_material');
    assert.match(await coloured.locator('[part~=error]').innerText(), /multi-colour/);
    assert.equal(await coloured.locator('[part~=row-price]').count(), 0, 'no price in its row');
    assert.match(
      (await coloured.locator('[part~=request-button]').textContent())!.replace(/\s+/g, ' '),
      /Request a quote for part 2: two-colours\.3mf/,
    );
    // The row shows its estimate while it is sliced; it is priced once its slice is in.
    await page.locator('slice-quote [part~=row]:nth-child(1)[data-status=priced]').waitFor();
    assert.equal(await cube.locator('[part~=row-price]').count(), 1, 'the cube is priced');
    await sendRequest(page, 'slice-quote [part~=row]:nth-child(2)', 'ada-rows@example.test');
    const request = await requestOf('ada-rows@example.test');
    assert.deepEqual([request?.reason, request?.reason_code], ['not_priceable', 'multi_material']);
    await pricedAndOrdered(request.request_id, 390, 844);
  } finally {
    await page.close();
  }
});

// Orders are never lost, in Debian's Chromium at 1280 and 390 px, on plain pages of another origin holding
// only the snippet as a merchant copies it from the dashboard: as copied (no cart connected) the shopper reads
// that no cart took the part and is asked for a quote request (the Request a quote form), and the merchant's
// orders list the line as unacknowledged; with the snippet's listener filled in the shopper reads "Added … to your cart" and the line
// is acknowledged; with `cart-url` a shop without JavaScript receives the signed lines as a form POST.
// Screenshots go to test-artifacts/widget/ and, with SLICEQUOTE_UPDATE_SCREENSHOTS=1, the reserved state at 390 px
// to docs/screenshots/widget-cart-reserved-phone.png.

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { embedSnippet } from '../../dashboard/src/lib/snippet.ts';
import { corpusPath } from '../helpers/corpus.ts';
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
const SIZES = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];

let env: WidgetEnv;
let browser: Browser;
let origin: string;
/** The bodies the `cart-url` received. */
const posted: URLSearchParams[] = [];

/** A shop page of another origin than the API: the snippet, as copied or with its cart listener filled in. */
function shopPage(kind: string): string {
  const snippet = embedSnippet(env.server.url, env.widgetKey);
  const body =
    kind === 'connected'
      ? snippet.replace('// e.detail.accept();', 'e.detail.accept();')
      : kind === 'form'
        ? snippet.replace('<slice-quote ', `<slice-quote cart-url="${origin}/cart" `)
        : snippet;
  return plainShopPage(body);
}

before(async () => {
  if (skip) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  ({ env, origin } = await startWidgetEnvWithPage(
    (req, res) => {
      if (req.method === 'POST' && req.url === '/cart') {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          posted.push(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end('<!doctype html><title>Cart</title><h1>Your cart</h1>');
        });
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(shopPage(req.url!.slice(1)));
    },
    { RATE_LIMIT_ANON_PLAN: 'business' },
  ));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await env?.stop();
});

async function priced(kind: string, size: (typeof SIZES)[number]): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
  await page.goto(`${origin}/${kind}`);
  await page.locator('slice-quote #file').setInputFiles(CUBE);
  await page.locator('slice-quote [part~=amount]').waitFor();
  return page;
}

/** The merchant's record of the line the page's last add made (GET /v2/widget/cart with the API token). */
async function order(quoteId: string) {
  const list = await env.server.client(env.apiToken).get(`/v2/widget/cart?quote_id=${quoteId}`);
  assert.equal(list.status, 200);
  assert.equal(list.body.total, 1, 'one line recorded');
  return list.body.data[0];
}

const quoteOf = (page: Page): Promise<string> =>
  page.locator('slice-quote').evaluate((el) => (el as unknown as { quote: { quote_id: string } }).quote.quote_id);

for (const size of SIZES) {
  test(`${size.name}: the snippet as copied: no cart took the part, the widget asks for a quote request; the line is an unacknowledged order`, {
    skip,
  }, async () => {
    const page = await priced('plain', size);
    try {
      const quoteId = await quoteOf(page);
      await page.locator('slice-quote [part~=add-button]').click();
      const note = page.locator('slice-quote [part~=added]');
      await note.waitFor();
      assert.equal(
        await note.innerText(),
        'No cart took your part yet: request a quote above, and the shop will send you a link to order it.',
      );
      assert.ok(await note.isVisible());
      await page.locator('slice-quote [part~=request-form]').waitFor();
      const shot = path.join(ARTIFACTS, `cart-reserved-${size.name}.png`);
      await page.screenshot({ path: shot });
      if (size.name === 'phone' && process.env.SLICEQUOTE_UPDATE_SCREENSHOTS === '1')
        copyFileSync(shot, path.resolve('docs', 'screenshots', 'widget-cart-reserved-phone.png'));
      const o = await order(quoteId);
      assert.deepEqual([o.status, o.acknowledged_at], ['unacknowledged', null]);
      assert.equal(o.origin, origin);
    } finally {
      await page.close();
    }
  });

  test(`${size.name}: the snippet's listener filled in: "Added to your cart"; the line is acknowledged`, {
    skip,
  }, async () => {
    const page = await priced('connected', size);
    try {
      const quoteId = await quoteOf(page);
      const acknowledged = page.waitForResponse((r) => r.url().endsWith('/v2/widget/cart/acknowledge'), {});
      await page.locator('slice-quote [part~=add-button]').click();
      const note = page.locator('slice-quote [part~=added]');
      await note.waitFor();
      assert.equal(await note.innerText(), 'Added 1 × cube20_ascii.stl to your cart.');
      await page.screenshot({ path: path.join(ARTIFACTS, `cart-added-${size.name}.png`) });
      assert.equal((await acknowledged).status(), 200);
      assert.equal((await order(quoteId)).status, 'acknowledged');
    } finally {
      await page.close();
    }
  });

  test(`${size.name}: cart-url: a shop without JavaScript receives the signed line as a form POST`, {
    skip,
  }, async () => {
    const page = await priced('form', size);
    try {
      const quoteId = await quoteOf(page);
      const before = posted.length;
      await page.locator('slice-quote [part~=add-button]').click();
      await page.waitForURL(`${origin}/cart`);
      assert.equal(posted.length, before + 1);
      const form = posted.at(-1)!;
      assert.equal(form.get('lines[0][quote_id]'), quoteId);
      assert.equal(form.get('lines[0][quantity]'), '1');
      assert.match(form.get('lines[0][signature_payload]')!, new RegExp(`^v3:${quoteId}:`));
      assert.match(form.get('lines[0][signature_hmac_sha256]')!, /^[0-9a-f]{64}$/);
      const o = await order(quoteId);
      assert.equal(form.get('lines[0][cart_line_id]'), o.cart_line_id);
      assert.equal(o.status, 'acknowledged', 'recorded before the page left for the cart');
    } finally {
      await page.close();
    }
  });
}

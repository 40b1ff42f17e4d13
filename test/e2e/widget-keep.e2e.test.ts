// Quotes shoppers can keep, and parts that must be turned or scaled to fit, in Debian's Chromium at 1280 and 390 px,
// on the demo shop and on a plain page of another origin holding only the copied snippet: a priced part is saved as
// a link (the shop page's address with sq-quote=…) and a PDF; the link opens the part with its price in another
// browser; a link kept at quantity 3 is shown whole, copied with its Copy button, its PDF read (quantity 3, the
// widget's line total, until when the price holds, no cost words) and ordered from another browser: the cart event
// and the shop's order carry quantity 3 and the same total; on the plain page, whose copied listener takes nothing,
// the widget then asks for a name and an e-mail and the shop gets a request for that quote at 3 (axe finds nothing
// on either page); an altered, expired or other shop's link says so in plain words. A bar too long for the plate is
// told "Turned to fit the printer"; a 1 mm cube is warned of its thin walls, a 0.5 mm speck refused with Request a
// quote (no price); a part too big gets a scale control whose percent prices it through the rescale path. Screenshots in test-artifacts/widget/ and, with
// SLICEQUOTE_UPDATE_SCREENSHOTS=1, the kept quote at 390 px in docs/screenshots/widget-kept-quote-phone.png.

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { corpusPath } from '../helpers/corpus.ts';
import { merchantShop } from '../helpers/server.ts';
import { prismZObj } from '../helpers/solids.ts';

const square = (side: number): [number, number][] => [
  [0, 0],
  [side, 0],
  [side, side],
  [0, side],
];

import { embedSnippet } from '../../dashboard/src/lib/snippet.ts';
import { COST_WORDS, pdfAmount, pdfText } from '../helpers/pdf-text.ts';
import { assertNoAxeViolations } from './axe.ts';
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
const TOO_BIG = corpusPath('stl', 'too_big_400mm_cube.stl');
/** A 1 mm cube: thin-walled for a 0.4 mm nozzle (its average wall a third of its side), still a shape to print. */
const SMALL = { name: 'small.obj', mimeType: 'model/obj', buffer: Buffer.from(prismZObj(square(1), 0, 1)) };
/** A 0.5 mm cube: a speck the nozzle cannot draw (part_too_small), which only the shop can price. */
const TINY = corpusPath('stl', 'tiny_0.5mm_cube.stl');
const SIZES = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];

let env: WidgetEnv;
let browser: Browser;
let origin: string;
/** Another shop's widget key, allowed on the same plain page's origin. */
let strangerKey: string;
/** A bar longer than the plate's shorter side, which fits only turned on the plate. */
let bar: string;

before(async () => {
  if (skip) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  // The page's answers use strangerKey and bar, set below before any browser asks.
  ({ env, origin } = await startWidgetEnvWithPage(
    (req, res) => {
      const url = new URL(req.url!, origin);
      if (url.pathname === '/bar.obj') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(bar);
      }
      const key = url.pathname === '/stranger' ? strangerKey : env.widgetKey;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      // The copied snippet under the page's own heading (axe judges the whole page, which a shop gives a title).
      res.end(plainShopPage(`<h1>Custom prints</h1>${embedSnippet(env.server.url, key)}`));
    },
    { RATE_LIMIT_ANON_PLAN: 'business' },
  ));
  strangerKey = (await merchantShop(env.server, 'keep-stranger@example.test', origin)).key;
  const config = await env.server
    .client()
    .request('GET', '/v2/widget/config', { headers: { 'x-widget-key': env.widgetKey, origin } });
  const { x, y } = config.body.build_volume as { x: number; y: number };
  assert.notEqual(x, y, 'a plate longer one way than the other');
  // Along the plate's shorter side, longer than it and shorter than the longer side: it fits turned by 90°.
  const long = (x + y) / 2;
  const [w, d] = x < y ? [long, 8] : [8, long];
  bar = prismZObj(
    [
      [0, 0],
      [w, 0],
      [w, d],
      [0, d],
    ],
    0,
    4,
  );
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await env?.stop();
});

const widget = (page: Page, part: string) => page.locator(`slice-quote [part~=${part}]`);
const escapeRe = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function open(url: string, size: (typeof SIZES)[number], opts: { bypassCSP?: boolean } = {}): Promise<Page> {
  // A context of its own: another browser, without the first shopper's session. bypassCSP only where axe-core is
  // injected (an inline script the demo shop's policy rightly refuses).
  const context = await browser.newContext({
    viewport: { width: size.width, height: size.height },
    acceptDownloads: true,
    bypassCSP: opts.bypassCSP ?? false,
  });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error('page error:', err.message));
  await page.goto(url);
  return page;
}

/** Downloads the PDF the button gives and answers its bytes. */
async function pdfFrom(page: Page, button: ReturnType<Page['locator']>): Promise<Buffer> {
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
  assert.match(download.suggestedFilename(), /^quote-.+\.pdf$/);
  return readFileSync((await download.path())!);
}

// Each flow at each width and on each page, in pairs: the first flow on the demo shop at the desktop width and on
// the plain page on the phone, the second the other way round. Every width meets every page, and every flow every
// width and every page, at half the runs of all four pairs for each flow.
const WHERE = ['demo shop', 'plain page'] as const;

for (const [i, size] of SIZES.entries()) {
  {
    const where = WHERE[i % 2]!;
    test(`${size.name}, ${where}: a priced part is kept as a link and a PDF; the link reopens it with its price`, {
      skip,
    }, async () => {
      const shopUrl = where === 'demo shop' ? env.shop.url : `${origin}/plain`;
      const page = await open(shopUrl, size);
      try {
        await page.locator('slice-quote #file').setInputFiles(CUBE);
        await widget(page, 'amount').waitFor();
        const price = await widget(page, 'amount').innerText();
        await widget(page, 'keep-button').click();
        const linkField = widget(page, 'kept-link');
        await linkField.waitFor();
        const link = await linkField.inputValue();
        assert.ok(link.startsWith(shopUrl.replace(/\/$/, '')), `the link is the shop page's own address: ${link}`);
        const token = new URL(link).searchParams.get('sq-quote')!;
        assert.match(token, /^(qt|job)_\w+\.\d+\.1\.[\w-]{43}$/, 'the link keeps quantity 1');
        assert.ok(
          await linkField.evaluate((el) => el === (el.getRootNode() as ShadowRoot).activeElement),
          'focus goes to the link',
        );
        const pdf = await pdfFrom(page, widget(page, 'pdf-button'));
        assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
        await page.screenshot({ path: path.join(ARTIFACTS, `keep-saved-${size.name}-${where.replace(' ', '-')}.png`) });

        // Another browser opens the link: the part's picture, its choices and the same price.
        const again = await open(link, size);
        try {
          await widget(again, 'kept-title').waitFor();
          assert.equal(await widget(again, 'amount').innerText(), price);
          const picture = widget(again, 'kept-picture');
          await again.waitForFunction(
            (el) => (el as HTMLImageElement | null)?.naturalWidth === 320,
            await picture.elementHandle(),
          );
          assert.equal(await picture.getAttribute('alt'), 'Picture of cube20_ascii.stl');
          assert.match(await widget(again, 'kept-validity').innerText(), /^This price holds until /);
          assert.match(await widget(again, 'facts').innerText(), /Material/);
          const box = await widget(again, 'pdf-button').boundingBox();
          assert.ok(box && box.x >= 0 && box.x + box.width <= size.width, 'the PDF button is within the screen');
          assert.equal((await pdfFrom(again, widget(again, 'pdf-button'))).subarray(0, 5).toString('latin1'), '%PDF-');
          await again.screenshot({
            path: path.join(ARTIFACTS, `keep-reopened-${size.name}-${where.replace(' ', '-')}.png`),
          });
          // Closing it leaves the shopper at the drop zone.
          await again.locator('slice-quote').getByRole('button', { name: 'Price another part' }).click();
          await widget(again, 'dropzone').waitFor();
        } finally {
          await again.context().close();
        }
      } finally {
        await page.context().close();
      }
    });
  }

  {
    const where = WHERE[(i + 1) % 2]!;
    test(`${size.name}, ${where}: a link kept at quantity 3 is shown whole and copied; its PDF says 3, the total and until when; another browser orders it at 3 for the same total`, {
      skip,
    }, async () => {
      // The demo shop, whose cart takes the line; or the copied snippet alone, whose listener takes nothing, so the
      // shopper is asked for a quote request. Whole pages: axe judges the page too.
      const shopUrl = where === 'demo shop' ? env.shop.url : `${origin}/plain`;
      const page = await open(shopUrl, size, { bypassCSP: true });
      try {
        await page
          .context()
          .grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(shopUrl).origin });
        await page.locator('slice-quote #file').setInputFiles(CUBE);
        const amount = widget(page, 'amount');
        await amount.waitFor();
        const one = await amount.innerText();
        await page.locator('slice-quote #quantity').fill('3');
        await page.waitForFunction(([el, before]) => (el as HTMLElement).innerText !== before, [
          await amount.elementHandle(),
          one,
        ] as const);
        const total = await amount.innerText();
        const words = await widget(page, 'unit-price').innerText();
        assert.match(words, new RegExp(`^${escapeRe(one)} each.* · 3 pieces`));
        await widget(page, 'keep-button').click();
        const field = widget(page, 'kept-link');
        await field.waitFor();
        const link = await field.inputValue();
        assert.match(new URL(link).searchParams.get('sq-quote')!, /^(qt|job)_\w+\.\d+\.3\.[\w-]{43}$/);
        assert.match(await widget(page, 'keep').innerText(), /Link to this quote \(3 pieces\)/);
        // The validity is the price's (the quote's expires_at), not the link's own.
        const quote = await page.locator('slice-quote').evaluate(
          (el) =>
            (
              el as unknown as {
                quote: { quote_id: string; expires_at: string; currency: string; price_breakdown: { digits: number } };
              }
            ).quote,
        );
        const priceDay = new Date(quote.expires_at).toLocaleDateString('en-US', {
          year: 'numeric',
          month: 'long',
          day: 'numeric',
          timeZone: 'UTC',
        });
        assert.equal(await widget(page, 'kept-link-validity').innerText(), `The price holds until ${priceDay}.`);
        // Shown whole: nothing of the link is scrolled out of its field.
        const fits = await field.evaluate(
          (el) => el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1,
        );
        assert.ok(fits, 'the whole link is in view');
        await widget(page, 'copy-button').click();
        await page.waitForFunction(
          (el) => (el as HTMLElement).innerText === 'Link copied.',
          await widget(page, 'copy-status').elementHandle(),
        );
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link, 'the link is on the clipboard');
        await page.screenshot({
          path: path.join(ARTIFACTS, `keep-copied-${size.name}-${where.replace(' ', '-')}.png`),
        });
        await assertNoAxeViolations(page, `the saved link at ${size.width} px, ${where}`);

        // Another browser opens it: quantity 3, the same total; Add to cart hands the page's cart that line.
        const again = await open(link, size, { bypassCSP: true });
        try {
          await widget(again, 'kept-title').waitFor();
          assert.equal(await widget(again, 'kept-quantity').innerText(), '3');
          assert.equal(await widget(again, 'amount').innerText(), total);
          // The same words as on the page the link was made on.
          assert.equal(await widget(again, 'unit-price').innerText(), words);
          await assertNoAxeViolations(again, `the kept quote at ${size.width} px, ${where}`);
          // Its PDF is a quotation of this line: 3 pieces, the total the widget shows, until when the price holds,
          // no word of the shop's costs; it links back to this very page, the kept link in it.
          const bytes = await pdfFrom(again, widget(again, 'pdf-button'));
          const text = await pdfText(bytes);
          const pdfTotal = pdfAmount(
            Number(total.replace(/[^\d.]/g, '')),
            quote.price_breakdown.digits,
            quote.currency,
          );
          assert.match(text, /^Quantity\n3$/m, text);
          assert.match(text, new RegExp(`^Total\\n${escapeRe(pdfTotal)}$`, 'm'), `the widget's ${total}: ${text}`);
          assert.match(text, new RegExp(`Price valid until ${quote.expires_at.slice(0, 10)}`), text);
          assert.match(text, /^cube20_ascii\.stl$/m);
          assert.doesNotMatch(text, COST_WORDS, 'no cost breakdown: the merchant did not choose to show it');
          assert.ok(bytes.toString('latin1').includes(`/URI (${link})`), 'the PDF links back to the shop page');
          const added = again.evaluate(
            (accept) =>
              new Promise<{
                quantity: number;
                total_price: number;
                currency: string;
                quote_id: string;
                summary: string;
              }>((resolve) =>
                document.addEventListener('sq-add-to-cart', (e) => {
                  const detail = (e as CustomEvent).detail;
                  if (accept) detail.accept();
                  resolve({ ...detail, accept: undefined });
                }),
              ),
            where === 'demo shop',
          );
          await widget(again, 'add-button').click();
          const detail = await added;
          assert.equal(detail.quantity, 3);
          const shown = await again.evaluate(
            ([v, currency]) => new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(v),
            [detail.total_price, detail.currency] as const,
          );
          assert.equal(shown, total, 'the cart gets the total the link showed');
          assert.match(detail.summary, /20(\.0)? × 20(\.0)? × 20(\.0)? mm/);
          const orders = await env.server.client(env.apiToken).get(`/v2/widget/cart?quote_id=${detail.quote_id}`);
          const order = orders.body.data[0];
          assert.deepEqual([order.quantity, order.total_price], [3, detail.total_price]);
          const note = widget(again, 'added');
          await note.waitFor();
          if (where === 'demo shop') {
            assert.equal(await note.innerText(), 'Added 3 × cube20_ascii.stl to your cart.');
          } else {
            // No cart took it: the widget asks who to send the order link to, never "the shop will contact you"
            // without a way to.
            assert.equal(
              await note.innerText(),
              'No cart took your part yet: request a quote above, and the shop will send you a link to order it.',
            );
            await widget(again, 'request-form').waitFor();
            await again.waitForFunction(
              () => document.querySelector('slice-quote')?.shadowRoot?.activeElement?.id === 'rfq-name',
            );
            await assertNoAxeViolations(again, `the request form of a kept quote at ${size.width} px`);
            const email = `kept-${size.name}@example.test`;
            await again.locator('slice-quote #rfq-name').fill(`Kept ${size.name}`);
            await again.locator('slice-quote #rfq-email').fill(email);
            const box = await widget(again, 'send-request-button').boundingBox();
            assert.ok(box && box.x >= 0 && box.x + box.width <= size.width, 'Send request is within the screen');
            await widget(again, 'send-request-button').click();
            await widget(again, 'request-sent').waitFor();
            assert.match(await widget(again, 'request-sent').innerText(), new RegExp(`order your part to ${email}`));
            assert.equal(await note.innerText(), 'Your part is reserved — the shop will contact you.');
            // The shop's request: the kept quote at 3 pieces, from this other browser.
            const requests = await env.server.client(env.apiToken).get('/v2/quote-requests?limit=100');
            const request = requests.body.data.find((r: { email: string }) => r.email === email);
            assert.deepEqual(
              [request?.quote_id, request?.quantity, request?.reason],
              [quote.quote_id, 3, 'no_cart'],
              JSON.stringify(request),
            );
          }
          const shot = path.join(ARTIFACTS, `keep-ordered-${size.name}-${where.replace(' ', '-')}.png`);
          await again.screenshot({ path: shot });
          if (size.name === 'phone' && where === 'demo shop' && process.env.SLICEQUOTE_UPDATE_SCREENSHOTS === '1')
            copyFileSync(shot, path.resolve('docs', 'screenshots', 'widget-kept-quote-phone.png'));
          await assertNoAxeViolations(again, `the ordered kept quote at ${size.width} px, ${where}`);
        } finally {
          await again.context().close();
        }
      } finally {
        await page.context().close();
      }
    });
  }

  test(`${size.name}: an altered, expired or other shop's link says so in plain words`, {
    skip,
  }, async () => {
    const page = await open(`${origin}/plain`, size);
    let token: string;
    try {
      await page.locator('slice-quote #file').setInputFiles(CUBE);
      await widget(page, 'amount').waitFor();
      await widget(page, 'keep-button').click();
      token = new URL(await widget(page, 'kept-link').inputValue()).searchParams.get('sq-quote')!;
    } finally {
      await page.context().close();
    }
    const said = async (url: string) => {
      const p = await open(url, size);
      try {
        const alert = widget(p, 'kept-error');
        await alert.waitFor();
        return { text: await alert.innerText(), code: await alert.getAttribute('data-code') };
      } finally {
        await p.context().close();
      }
    };
    const altered = token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    const bad = await said(`${origin}/plain?sq-quote=${encodeURIComponent(altered)}`);
    assert.equal(bad.code, 'quote_link_invalid');
    assert.match(bad.text, /This quote link is damaged or was not made by this shop/);
    const foreign = await said(`${origin}/stranger?sq-quote=${encodeURIComponent(token)}`);
    assert.match(foreign.text, /This quote is not available in this shop/);
    const realNow = env.server.deps.now;
    env.server.deps.now = () => new Date(realNow().getTime() + 31 * 86_400_000);
    try {
      const expired = await said(`${origin}/plain?sq-quote=${encodeURIComponent(token)}`);
      assert.equal(expired.code, 'quote_link_expired');
      assert.match(
        expired.text,
        /^This quote link expired on \d{4}-\d{2}-\d{2}\. Upload your part again for today's price\./,
      );
    } finally {
      env.server.deps.now = realNow;
    }
  });

  test(`${size.name}: a bar is "Turned to fit the printer"; thin walls are warned; a speck goes to the shop; a part too big is scaled by percent and priced`, {
    skip,
  }, async () => {
    const page = await open(`${origin}/plain`, size);
    try {
      await page.locator('slice-quote #file').setInputFiles({
        name: 'bar.obj',
        mimeType: 'model/obj',
        buffer: Buffer.from(bar),
      });
      await widget(page, 'amount').waitFor();
      assert.equal(await widget(page, 'placement-note').innerText(), 'Turned to fit the printer');
      assert.equal(await widget(page, 'thin-walls-warning').count(), 0);

      await page.locator('slice-quote #file').setInputFiles(SMALL);
      await widget(page, 'thin-walls-warning').waitFor();
      assert.match(await widget(page, 'thin-walls-warning').innerText(), /thinner than the printer’s nozzle/);

      // A speck is not sold at the minimum price behind a warning: it says why and goes to the shop.
      await page.locator('slice-quote #file').setInputFiles(TINY);
      const speck = page.locator('slice-quote [part~=error][data-code=part_too_small]');
      await speck.waitFor();
      assert.match(await speck.innerText(), /too small for the printer to draw its shape/);
      assert.equal(await widget(page, 'amount').count(), 0, 'no price');
      await widget(page, 'request-button').waitFor();

      await page.locator('slice-quote #file').setInputFiles(TOO_BIG);
      const control = widget(page, 'scale-control');
      await control.waitFor();
      const input = control.getByLabel('Scale the model to');
      const suggested = Number(await input.inputValue());
      assert.ok(suggested >= 1 && suggested < 100, `a percent that fits is offered: ${suggested}`);
      assert.match(await control.innerText(), new RegExp(`At ${suggested} % it fits the printer`));
      await page.screenshot({ path: path.join(ARTIFACTS, `scale-control-${size.name}.png`) });
      await input.fill('10');
      await control.getByRole('button', { name: 'Scale and price' }).click();
      await widget(page, 'amount').waitFor();
      assert.match(await widget(page, 'dimensions').innerText(), /40(\.0)? × 40(\.0)? × 40(\.0)?/);
      const quote = await page
        .locator('slice-quote')
        .evaluate((el) => (el as unknown as { quote: { placement: { scale: number } } }).quote);
      assert.equal(quote.placement.scale, 0.1, 'priced at 10 % through the rescale path');
      assert.equal(await control.count(), 0, 'the control goes once the part fits');
    } finally {
      await page.context().close();
    }
  });
}

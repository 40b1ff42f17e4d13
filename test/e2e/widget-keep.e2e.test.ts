// Quotes shoppers can keep, and parts that must be turned or scaled to fit, in Debian's Chromium at 1280 and 390 px,
// on the demo shop and on a plain page of another origin holding only the copied snippet: a priced part is saved as
// a link (the shop page's address with sq-quote=…) and a PDF; the link opens the part with its price in another
// browser; an altered, expired or other shop's link says so in plain words. A bar too long for the plate is told
// "Turned to fit the printer"; a part too big gets a scale control whose percent prices it through the rescale path.
// Screenshots in test-artifacts/widget/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { corpusPath } from '../helpers/corpus.ts';
import { freePort } from '../helpers/process.ts';
import { merchantShop } from '../helpers/server.ts';
import { prismZObj } from '../helpers/solids.ts';
import { embedSnippet } from '../../dashboard/src/lib/snippet.ts';
import { chromiumMissing, launchChromium, startWidgetEnv, type WidgetEnv, plainShopPage } from './widget-env.ts';

const skip = chromiumMissing() ?? false;
const ARTIFACTS = path.resolve('test-artifacts', 'widget');
const SLICE_TIMEOUT = 120_000;
const CUBE = corpusPath('stl', 'cube20_ascii.stl');
const TOO_BIG = corpusPath('stl', 'too_big_400mm_cube.stl');
const TINY = corpusPath('stl', 'tiny_0.5mm_cube.stl');
const SIZES = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];

let env: WidgetEnv;
let browser: Browser;
let pages: http.Server;
let origin: string;
/** Another shop's widget key, allowed on the same plain page's origin. */
let strangerKey: string;
/** A bar longer than the plate's shorter side, which fits only turned on the plate. */
let bar: string;

before(
  async () => {
    if (skip) return;
    mkdirSync(ARTIFACTS, { recursive: true });
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    env = await startWidgetEnv({ extraOrigins: [origin], env: { RATE_LIMIT_ANON_PLAN: 'business' } });
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
    pages = http.createServer((req, res) => {
      const url = new URL(req.url!, origin);
      if (url.pathname === '/bar.obj') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(bar);
      }
      const key = url.pathname === '/stranger' ? strangerKey : env.widgetKey;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(plainShopPage(embedSnippet(env.server.url, key)));
    });
    await new Promise<void>((resolve) => pages.listen(port, '127.0.0.1', resolve));
    browser = await launchChromium();
  },
  { timeout: 120_000 },
);

after(async () => {
  await browser?.close();
  pages?.close();
  await env?.stop();
});

const widget = (page: Page, part: string) => page.locator(`slice-quote [part~=${part}]`);

async function open(url: string, size: (typeof SIZES)[number]): Promise<Page> {
  // A context of its own: another browser, without the first shopper's session.
  const context = await browser.newContext({
    viewport: { width: size.width, height: size.height },
    acceptDownloads: true,
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

for (const size of SIZES) {
  for (const where of ['demo shop', 'plain page'] as const) {
    test(`${size.name}, ${where}: a priced part is kept as a link and a PDF; the link reopens it with its price`, {
      skip,
      timeout: SLICE_TIMEOUT * 2,
    }, async () => {
      const shopUrl = where === 'demo shop' ? env.shop.url : `${origin}/plain`;
      const page = await open(shopUrl, size);
      try {
        await page.locator('slice-quote #file').setInputFiles(CUBE);
        await widget(page, 'amount').waitFor({ timeout: SLICE_TIMEOUT });
        const price = await widget(page, 'amount').innerText();
        await widget(page, 'keep-button').click();
        const linkField = widget(page, 'kept-link');
        await linkField.waitFor();
        const link = await linkField.inputValue();
        assert.ok(link.startsWith(shopUrl.replace(/\/$/, '')), `the link is the shop page's own address: ${link}`);
        const token = new URL(link).searchParams.get('sq-quote')!;
        assert.match(token, /^(qt|job)_\w+\.\d+\.[\w-]{43}$/);
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

  test(`${size.name}: an altered, expired or other shop's link says so in plain words`, {
    skip,
    timeout: SLICE_TIMEOUT,
  }, async () => {
    const page = await open(`${origin}/plain`, size);
    let token: string;
    try {
      await page.locator('slice-quote #file').setInputFiles(CUBE);
      await widget(page, 'amount').waitFor({ timeout: SLICE_TIMEOUT });
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

  test(`${size.name}: a bar is "Turned to fit the printer"; thin walls are warned; a part too big is scaled by percent and priced`, {
    skip,
    timeout: SLICE_TIMEOUT * 2,
  }, async () => {
    const page = await open(`${origin}/plain`, size);
    try {
      await page.locator('slice-quote #file').setInputFiles({
        name: 'bar.obj',
        mimeType: 'model/obj',
        buffer: Buffer.from(bar),
      });
      await widget(page, 'amount').waitFor({ timeout: SLICE_TIMEOUT });
      assert.equal(await widget(page, 'placement-note').innerText(), 'Turned to fit the printer');
      assert.equal(await widget(page, 'thin-walls-warning').count(), 0);

      await page.locator('slice-quote #file').setInputFiles(TINY);
      await widget(page, 'thin-walls-warning').waitFor({ timeout: SLICE_TIMEOUT });
      assert.match(await widget(page, 'thin-walls-warning').innerText(), /thinner than the printer’s nozzle/);

      await page.locator('slice-quote #file').setInputFiles(TOO_BIG);
      const control = widget(page, 'scale-control');
      await control.waitFor({ timeout: 30_000 });
      const input = control.getByLabel('Scale the model to');
      const suggested = Number(await input.inputValue());
      assert.ok(suggested >= 1 && suggested < 100, `a percent that fits is offered: ${suggested}`);
      assert.match(await control.innerText(), new RegExp(`At ${suggested} % it fits the printer`));
      await page.screenshot({ path: path.join(ARTIFACTS, `scale-control-${size.name}.png`) });
      await input.fill('10');
      await control.getByRole('button', { name: 'Scale and price' }).click();
      await widget(page, 'amount').waitFor({ timeout: SLICE_TIMEOUT });
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

// Several parts in one widget, end to end: the demo shop's /parts page (<slice-quote multiple>) in Debian's
// Chromium against a real server. A shopper drops three files; the broken one fails with shopper wording and is
// removed by keyboard (focus never falls to the body); a material change re-prices its row from a real slice;
// "Add all to cart" makes one cart call with both lines and fires one sq-add-to-cart with them, whose signed
// quotes the shop's backend verifies.
// At 390 × 844 nothing overflows sideways and "Add all to cart" stays on screen. Screenshots go to
// test-artifacts/widget/ and, with SLICEQUOTE_UPDATE_SCREENSHOTS=1, to docs/screenshots/widget-multipart-*.png.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { corpusPath } from '../helpers/corpus.ts';
import { assertNoAxeViolations } from './axe.ts';
import { eventually } from '../helpers/poll.ts';
import { chromiumMissing, launchChromium, painted, startWidgetEnv, type WidgetEnv } from './widget-env.ts';

const skip = chromiumMissing() ?? false;
const ARTIFACTS = path.resolve('test-artifacts', 'widget');
const DOC_SHOTS = path.resolve('docs', 'screenshots');
const SLICE_TIMEOUT = 150_000;

const CUBE = { name: 'cube20.stl', path: corpusPath('stl', 'cube20_ascii.stl') };
const TWO_CUBES = { name: 'two-cubes.stl', path: corpusPath('stl', 'two_cubes_10mm.stl') };
const BROKEN = { name: 'broken.stl', path: corpusPath('broken', 'stl_truncated.stl') };

let env: WidgetEnv;
let browser: Browser;

before(
  async () => {
    if (skip) return;
    mkdirSync(ARTIFACTS, { recursive: true });
    env = await startWidgetEnv();
    browser = await launchChromium();
  },
  { timeout: 120_000 },
);

after(async () => {
  await browser?.close();
  await env?.stop();
});

interface Opened {
  page: Page;
  pageErrors: string[];
  cspViolations: string[];
}

/** The shop's several-parts page, recording the widget's events in window.sqEvents. */
async function openParts(width: number, height: number, opts: { bypassCSP?: boolean } = {}): Promise<Opened> {
  // bypassCSP only where axe-core is injected (an inline script the shop's policy rightly refuses).
  const page = await browser.newPage({ viewport: { width, height }, bypassCSP: opts.bypassCSP ?? false });
  const opened = { page, pageErrors: [] as string[], cspViolations: [] as string[] };
  page.on('pageerror', (e) => opened.pageErrors.push(e.message));
  page.on('console', (m) => /Content Security Policy/.test(m.text()) && opened.cspViolations.push(m.text()));
  await page.addInitScript(() => {
    const w = window as unknown as { sqEvents: { type: string; detail: any }[] };
    w.sqEvents = [];
    for (const type of ['sq-quote', 'sq-add-to-cart', 'sq-error'])
      document.addEventListener(type, (e) => w.sqEvents.push({ type, detail: (e as CustomEvent).detail }));
  });
  await page.goto(`${env.shop.url}/parts`);
  await page.locator('slice-quote[multiple] [part~=dropzone]').waitFor({ timeout: 30_000 });
  await page.waitForFunction(() => (document.querySelector('slice-quote') as unknown as { config: unknown }).config);
  return opened;
}

const events = (page: Page, type: string): Promise<any[]> =>
  page.evaluate(
    (t) =>
      (window as unknown as { sqEvents: { type: string; detail: unknown }[] }).sqEvents
        .filter((e) => e.type === t)
        .map((e) => e.detail),
    type,
  );

/** Drops the files on the widget as a shopper's drag and drop does (a DataTransfer holding Files). */
async function drop(page: Page, files: { name: string; path: string }[]): Promise<void> {
  const payload = files.map((f) => ({ name: f.name, base64: readFileSync(f.path).toString('base64') }));
  await page.evaluate((list) => {
    const data = new DataTransfer();
    for (const f of list) {
      const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
      data.items.add(new File([bytes], f.name));
    }
    const el = document.querySelector('slice-quote')!;
    el.dispatchEvent(new DragEvent('dragenter', { dataTransfer: data, bubbles: true, cancelable: true }));
    el.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
  }, payload);
}

/** The rows' statuses once every row is priced or failed. */
async function settled(page: Page, count: number): Promise<string[]> {
  await page.waitForFunction(
    (n) => {
      const rows = [...document.querySelector('slice-quote')!.shadowRoot!.querySelectorAll<HTMLElement>('[part~=row]')];
      return rows.length === n && rows.every((r) => r.dataset.status === 'priced' || r.dataset.status === 'failed');
    },
    count,
    { timeout: SLICE_TIMEOUT },
  );
  return page
    .locator('slice-quote [part~=row]')
    .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.status!));
}

/** The `part` attribute of the focused element inside the widget; 'BODY' when focus fell to the page. */
const focusedPart = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const active = document.activeElement;
    if (active?.tagName !== 'SLICE-QUOTE') return active?.tagName ?? 'none';
    return active.shadowRoot!.activeElement?.getAttribute('part') ?? 'the element itself';
  });

async function shot(page: Page, name: string, docName: string): Promise<void> {
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  if (process.env.SLICEQUOTE_UPDATE_SCREENSHOTS === '1') {
    mkdirSync(DOC_SHOTS, { recursive: true });
    copyFileSync(file, path.join(DOC_SHOTS, docName));
  }
}

test('three files dropped: a broken one removed, a material changed, each row priced by a real slice, one add-all event with two signed lines', {
  skip,
  timeout: SLICE_TIMEOUT * 2,
}, async () => {
  const { page, pageErrors, cspViolations } = await openParts(1280, 800);
  try {
    await drop(page, [CUBE, BROKEN, TWO_CUBES]);
    assert.deepEqual(await settled(page, 3), ['priced', 'failed', 'priced']);
    const rows = page.locator('slice-quote [part~=row]');

    // The broken file: shopper wording in the row, the code for the page, and Remove as the way forward.
    const [broken] = await events(page, 'sq-error');
    assert.match(broken.code, /truncat/);
    const alert = rows.nth(1).locator('[role=alert]');
    assert.equal(await alert.getAttribute('data-code'), broken.code);
    assert.match(await alert.innerText(), /damaged or incomplete.*export it again/s);
    assert.ok(!(await alert.innerText()).includes(broken.message), 'not the technical message');

    // Each priced row was sliced: time and weight from the slicer, in the row and in its sq-quote.
    const quotes = await events(page, 'sq-quote');
    assert.equal(quotes.length, 2, 'one price per good file');
    for (const q of quotes) assert.ok(q.estimated_time_seconds > 0 && q.filament_weight > 0, 'a real slice');
    assert.match(await rows.nth(0).innerText(), /20\.0 × 20\.0 × 20\.0 mm[\s\S]*Priced/);

    // Remove the broken row with the keyboard; focus goes to the next row, never the body.
    await rows.nth(1).locator('[part~=remove-button]').focus();
    await page.evaluate(() => {
      const w = window as unknown as { bodyFocus: number };
      w.bodyFocus = 0;
      setInterval(() => {
        if (document.activeElement === document.body) w.bodyFocus++;
      }, 10);
    });
    await page.keyboard.press('Enter');
    await page.waitForFunction(
      () => document.querySelector('slice-quote')!.shadowRoot!.querySelectorAll('[part~=row]').length === 2,
    );
    assert.match(await focusedPart(page), /remove-button/, 'focus on the Remove of the row that took its place');
    const focusedName = await page.evaluate(() =>
      document.querySelector('slice-quote')!.shadowRoot!.activeElement!.textContent!.replace(/\s+/g, ' ').trim(),
    );
    assert.equal(focusedName, 'Remove part 2: two-cubes.stl');

    // A material change on the first row re-prices it from a new slice.
    const material = rows.nth(0).locator('select[id$="-material"]');
    assert.equal(await material.getAttribute('aria-label'), null);
    assert.equal(
      await page.locator('slice-quote').evaluate(
        (el, id) => {
          return el.shadowRoot!.querySelector(`label[for="${id}"]`)!.textContent!.replace(/\s+/g, ' ').trim();
        },
        (await material.getAttribute('id'))!,
      ),
      'Material for part 1: cube20.stl',
    );
    const options = await material.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    const other = options.find((o) => o !== quotes[0].material)!;
    await material.selectOption(other);
    await page.waitForFunction(
      (m) =>
        (window as unknown as { sqEvents: { type: string; detail: any }[] }).sqEvents.some(
          (e) => e.type === 'sq-quote' && e.detail.material === m,
        ),
      other,
      { timeout: SLICE_TIMEOUT },
    );
    assert.deepEqual(await settled(page, 2), ['priced', 'priced']);
    const requote = (await events(page, 'sq-quote')).at(-1);
    assert.equal(requote.material, other);
    assert.notEqual(requote.quote_id, quotes[0].quote_id, 'a new quote for the new material');
    assert.ok(requote.estimated_time_seconds > 0 && requote.filament_weight > 0, 'from a slice');

    // By keyboard: focus stays on the button through "Adding…".
    const cartCalls: { method: string; body: any }[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/v2/widget/cart' && r.method() !== 'OPTIONS')
        cartCalls.push({ method: r.method(), body: r.postDataJSON() });
    });
    // The widget's last step of an add: it acknowledges the lines the page took from its event.
    const acknowledged = page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/v2/widget/cart/acknowledge' && r.request().method() === 'POST',
    );
    await page.locator('slice-quote [part~=add-all-button]').focus();
    await page.keyboard.press('Enter');
    await page.locator('slice-quote [part~=added]').waitFor({ timeout: 30_000 });
    assert.match(await focusedPart(page), /add-all-button/, 'focus stayed on Add all to cart');
    assert.equal(
      await page.evaluate(() => (window as unknown as { bodyFocus: number }).bodyFocus),
      0,
      'focus never sat on the body',
    );
    await acknowledged;
    const added = await events(page, 'sq-add-to-cart');
    assert.equal(added.length, 1, 'one event');
    const { lines } = added[0];
    assert.equal(lines.length, 2, 'with both priced parts');
    assert.deepEqual(
      cartCalls,
      [
        {
          method: 'POST',
          body: { lines: lines.map((l: any) => ({ quote_id: l.quote_id, quantity: l.quantity })) },
        },
      ],
      'both lines in one cart call, all or nothing',
    );
    assert.deepEqual(
      lines.map((l: any) => l.file_name),
      ['cube20.stl', 'two-cubes.stl'],
    );
    assert.equal(lines[0].material, other, "the first line in the row's material");
    assert.equal(lines[0].quote_id, requote.quote_id, 'priced by its latest quote');
    for (const line of lines) {
      assert.ok(
        line.signature.payload.startsWith(`v3:${line.quote_id}:${line.file_id}:`) &&
          /^[0-9a-f]{64}$/.test(line.signature.hmac_sha256),
        'a signed quote per line',
      );
      assert.ok(line.summary.startsWith(`${line.material}, ${line.color} · `), `a summary: ${line.summary}`);
      assert.match(line.thumbnail, /^data:image\/png;base64,/);
    }

    // The shop's cart shows both lines; its backend verified both quote signatures from the webhooks.
    await page.waitForFunction(() => document.querySelectorAll('#cart .cart-line').length === 2);
    await eventually(async () => env.shop.orders().length >= 2, 20_000, "both orders at the shop's backend");
    const orders = env.shop.orders();
    assert.deepEqual(orders.map((o) => o.data.quoteId).sort(), lines.map((l: any) => l.quote_id).sort());
    assert.ok(
      orders.every((o) => o.quote.status === 'verified'),
      'each line is its own signed quote, verified by the shop',
    );
    await page.locator('slice-quote').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await painted(page);
    await shot(page, 'multipart-desktop-1280', 'widget-multipart-desktop.png');
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(cspViolations, [], 'thumbnails are data: images, allowed by the strict CSP');
  } finally {
    await page.close();
  }
});

test('phone (390 × 844): rows fit the width, "Add all to cart" stays on screen; axe finds nothing at either size', {
  skip,
  timeout: SLICE_TIMEOUT,
}, async () => {
  const { page } = await openParts(390, 844, { bypassCSP: true });
  try {
    await drop(page, [CUBE, TWO_CUBES]);
    assert.deepEqual(await settled(page, 2), ['priced', 'priced']);
    const overflow = await page.evaluate(() => {
      const root = document.documentElement;
      const widget = document.querySelector('slice-quote')!;
      const right = widget.getBoundingClientRect().right;
      const sticking = [...widget.shadowRoot!.querySelectorAll('*')]
        .filter((n) => n.getBoundingClientRect().right > right + 0.5)
        .map((n) => n.getAttribute('part') ?? n.tagName);
      return { page: root.scrollWidth - root.clientWidth, sticking };
    });
    assert.equal(overflow.page, 0, 'no horizontal scroll');
    assert.deepEqual(overflow.sticking, [], 'nothing in the widget reaches past its edge');

    await page.locator('slice-quote').evaluate((el) => window.scrollBy(0, el.getBoundingClientRect().top - 150));
    await painted(page);
    const widgetBottom = await page.locator('slice-quote').evaluate((el) => el.getBoundingClientRect().bottom);
    assert.ok(widgetBottom > 844, `the list runs below the fold (${widgetBottom} px)`);
    const box = (await page.locator('slice-quote [part~=add-all-button]').boundingBox())!;
    assert.ok(box.y >= 0 && box.y + box.height <= 844, `Add all to cart is on screen (${JSON.stringify(box)})`);
    assert.ok(await page.locator('slice-quote [part~=add-all-button]').isEnabled());
    assert.ok(box.height >= 44, 'a thumb-sized button');
    const remove = (await page.locator('slice-quote [part~=remove-button]').first().boundingBox())!;
    assert.ok(remove.height >= 44, 'Remove is thumb-sized too');
    await shot(page, 'multipart-phone-390', 'widget-multipart-phone.png');
    await assertNoAxeViolations(page, 'at 390 × 844');
    await page.setViewportSize({ width: 1280, height: 800 });
    await painted(page);
    await assertNoAxeViolations(page, 'at 1280 × 800');
  } finally {
    await page.close();
  }
});

// Several parts in one widget, end to end: the demo shop's /parts page (<slice-quote multiple>) in Debian's
// Chromium against a real server. A shopper drops three files; the broken one fails with shopper wording and is
// removed by keyboard (focus never falls to the body); a material change re-prices its row from a real slice;
// "Add all to cart" makes one cart call with both lines and fires one sq-add-to-cart with them, whose signed
// quotes the shop's backend verifies.
// At 390 × 844 nothing overflows sideways and "Add all to cart" stays on screen. Each row has what a single part has:
// a part too big for the printer is scaled down in its row and priced, a part drawn in inches is not "Priced" until
// its size question is answered, a row compares every material and saves its quote as a link, which opens on the
// /parts page and orders from there; the note under "Add all to cart" names every row that holds it back, and why.
// Screenshots go to test-artifacts/widget/ and, with SLICEQUOTE_UPDATE_SCREENSHOTS=1, to
// docs/screenshots/widget-multipart-*.png.

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { corpusPath } from '../helpers/corpus.ts';
import { eventually } from '../helpers/poll.ts';
import { boxObj } from '../helpers/solids.ts';
import { assertNoAxeViolations } from './axe.ts';
import { chromiumMissing, painted, widgetSuite } from './widget-env.ts';

const skip = chromiumMissing() ?? false;
const ARTIFACTS = path.resolve('test-artifacts', 'widget');
const DOC_SHOTS = path.resolve('docs', 'screenshots');

const CUBE = { name: 'cube20.stl', path: corpusPath('stl', 'cube20_ascii.stl') };
const TWO_CUBES = { name: 'two-cubes.stl', path: corpusPath('stl', 'two_cubes_10mm.stl') };
const BROKEN = { name: 'broken.stl', path: corpusPath('broken', 'stl_truncated.stl') };
/** A rod longer than the printer's diagonal: refused before upload, whichever way it is turned. */
const ROD = { name: 'rod.obj', bytes: Buffer.from(boxObj(0, 0, 0, 20, 20, 400)) };
/** A 1-unit cube: a part drawn in inches and exported without a unit. */
const INCH = { name: 'inch-cube.obj', bytes: Buffer.from(boxObj(0, 0, 0, 1, 1, 1)) };

type Dropped = { name: string; path: string } | { name: string; bytes: Buffer };

const suite = widgetSuite(skip, { artifacts: ARTIFACTS });

interface Opened {
  page: Page;
  pageErrors: string[];
  cspViolations: string[];
}

/** The shop's several-parts page, recording the widget's events in window.sqEvents. */
async function openParts(width: number, height: number, opts: { bypassCSP?: boolean } = {}): Promise<Opened> {
  // bypassCSP only where axe-core is injected (an inline script the shop's policy rightly refuses).
  const page = await suite.browser.newPage({ viewport: { width, height }, bypassCSP: opts.bypassCSP ?? false });
  const opened = { page, pageErrors: [] as string[], cspViolations: [] as string[] };
  page.on('pageerror', (e) => opened.pageErrors.push(e.message));
  page.on('console', (m) => /Content Security Policy/.test(m.text()) && opened.cspViolations.push(m.text()));
  await page.addInitScript(() => {
    const w = window as unknown as { sqEvents: { type: string; detail: any }[] };
    w.sqEvents = [];
    for (const type of ['sq-quote', 'sq-add-to-cart', 'sq-error'])
      document.addEventListener(type, (e) => w.sqEvents.push({ type, detail: (e as CustomEvent).detail }));
  });
  await page.goto(`${suite.env.shop.url}/parts`);
  await page.locator('slice-quote[multiple] [part~=dropzone]').waitFor();
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
async function drop(page: Page, files: Dropped[]): Promise<void> {
  const payload = files.map((f) => ({
    name: f.name,
    base64: ('bytes' in f ? f.bytes : readFileSync(f.path)).toString('base64'),
  }));
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

/** The rows' statuses once every row is priced, failed or waits for the shopper to confirm its size. */
async function settled(page: Page, count: number): Promise<string[]> {
  await page.waitForFunction((n) => {
    const rows = [...document.querySelector('slice-quote')!.shadowRoot!.querySelectorAll<HTMLElement>('[part~=row]')];
    return rows.length === n && rows.every((r) => ['priced', 'failed', 'confirm-size'].includes(r.dataset.status!));
  }, count);
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
    await page.locator('slice-quote [part~=added]').waitFor();
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
    await eventually(async () => suite.env.shop.orders().length >= 2, 20_000, "both orders at the shop's backend");
    const orders = suite.env.shop.orders();
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

/** The note about what holds "Add all to cart" back (under the list, above the bar), as one line of text. */
const addAllNote = (page: Page) =>
  page.locator('slice-quote #add-all-blockers').evaluate((el) => el.textContent!.replace(/\s+/g, ' ').trim());

test('each row as good as one part: scaled down, its size confirmed, its materials compared, its quote saved and ordered from the link; the note names each row that holds Add all back', {
  skip,
}, async () => {
  const { page, pageErrors, cspViolations } = await openParts(1280, 800);
  let linkPage: Page | null = null;
  try {
    await drop(page, [ROD, INCH, CUBE]);
    assert.deepEqual(await settled(page, 3), ['failed', 'confirm-size', 'priced']);
    const rows = page.locator('slice-quote [part~=row]');
    const [rod, inch, cube] = [rows.nth(0), rows.nth(1), rows.nth(2)];
    const addAll = page.locator('slice-quote [part~=add-all-button]');

    // Nothing can be added yet, and the note says which rows and why.
    assert.equal(await inch.locator('[part~=row-status]').innerText(), 'Size to confirm', 'not "Priced"');
    assert.ok(await addAll.isDisabled());
    assert.equal(
      await addAllNote(page),
      'Answer the size question of part 2 (inch-cube.obj) to add your parts to the cart. ' +
        'Part 1 (rod.obj) could not be priced and is not added: its row says why.',
    );
    assert.match(await page.locator('slice-quote [part~=summary-text]').innerText(), /1 size to confirm/);

    // The part drawn in inches: the single part's choice, in its row.
    await inch.getByRole('button', { name: 'Use inches for part 2: inch-cube.obj' }).click();
    await page.waitForFunction(
      () =>
        document
          .querySelector('slice-quote')!
          .shadowRoot!.querySelectorAll('[part~=row]')[1]!
          .getAttribute('data-status') === 'priced',
    );
    assert.match(await inch.innerText(), /25\.4 × 25\.4 × 25\.4 mm/);

    // The part too big: the single part's scale control, in its row; priced at the size chosen.
    assert.equal(await rod.locator('[role=alert]').getAttribute('data-code'), 'does_not_fit');
    const percent = rod.getByLabel('Scale the model to (part 1: rod.obj)');
    assert.equal(await percent.inputValue(), '62', 'prefilled with the largest size that fits');
    await percent.fill('25');
    await rod.locator('[part~=scale-button]').click();
    assert.deepEqual(await settled(page, 3), ['priced', 'priced', 'priced']);
    assert.match(await rod.innerText(), /5\.0 × 5\.0 × 100\.0 mm/);
    assert.ok(await addAll.isEnabled(), 'every row can go to the cart now');
    assert.equal(await addAllNote(page), '', 'and the note has nothing to say');

    // Compare all materials in the cube's row; picking one re-prices that row from a slice.
    await cube.getByRole('button', { name: 'Compare all materials for part 3: cube20.stl' }).click();
    const prices = cube.locator('[part~=material-prices][aria-busy=false]');
    await prices.waitFor();
    const other = prices.locator('[part~=material-price][aria-pressed=false]').first();
    const material = await other.locator('.material-name').innerText();
    await other.click();
    await page.waitForFunction(
      (m) =>
        (window as unknown as { sqEvents: { type: string; detail: any }[] }).sqEvents.some(
          (e) => e.type === 'sq-quote' && e.detail.material === m && e.detail.estimated_time_seconds > 0,
        ),
      material,
    );
    assert.equal(await cube.locator('select[id$="-material"]').inputValue(), material);
    await settled(page, 3);

    // Save or share the cube's quote: a link to this shop page, which opens the saved quote and orders it.
    await cube.getByRole('button', { name: 'Save or share this quote for part 3: cube20.stl' }).click();
    const link = cube.locator('[part~=kept-link]');
    await link.waitFor();
    const url = await link.inputValue();
    assert.ok(url.startsWith(`${suite.env.shop.url}/parts?sq-quote=`), url);
    await cube.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, 'multipart-row-compared-and-saved-1280.png') });
    const savedQuote = (await events(page, 'sq-quote')).at(-1).quote_id as string;
    assert.ok(new URL(url).searchParams.get('sq-quote')!.startsWith(`${savedQuote}.`), 'the link keeps its quote');
    linkPage = await suite.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await linkPage.goto(url);
    await linkPage.locator('slice-quote [part~=kept-title]').waitFor();
    assert.match(await linkPage.locator('slice-quote [part~=file-name]').innerText(), /cube20\.stl/);
    await linkPage.locator('slice-quote [part~=add-button]').click();
    await linkPage.locator('slice-quote [part~=added]').waitFor();
    assert.match(await linkPage.locator('slice-quote [part~=added]').innerText(), /Added 1 × cube20\.stl/);
    await linkPage.waitForFunction(() => document.querySelectorAll('#cart .cart-line').length === 1);

    // Add all: one event, three lines, each with the minimum price per part of its cart line.
    await addAll.click();
    await page.locator('slice-quote [part~=added]').waitFor();
    const [added] = await events(page, 'sq-add-to-cart');
    assert.deepEqual(
      added.lines.map((l: any) => l.file_name),
      ['rod.obj', 'inch-cube.obj', 'cube20.stl'],
    );
    for (const line of added.lines)
      assert.ok(typeof line.minimum_unit_price === 'number', `${line.file_name}: minimum_unit_price`);
    assert.equal(added.lines[2].material, material, "the cube's line in the material picked from the list");
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(cspViolations, []);
  } finally {
    await linkPage?.close();
    await page.close();
  }
});

test('phone (390 × 844): a too-big row and a size to confirm fit the width; the note naming both stands above a short bar', {
  skip,
}, async () => {
  const { page } = await openParts(390, 844, { bypassCSP: true });
  try {
    await drop(page, [ROD, { ...INCH, name: 'inch-bracket.obj' }]);
    assert.deepEqual(await settled(page, 2), ['failed', 'confirm-size']);
    const sticking = await page.locator('slice-quote').evaluate((el) => {
      const right = el.getBoundingClientRect().right;
      return [...el.shadowRoot!.querySelectorAll('*')]
        .filter((n) => n.getBoundingClientRect().right > right + 0.5)
        .map((n) => n.getAttribute('part') ?? n.tagName);
    });
    assert.deepEqual(sticking, [], 'the scale control and the unit offer fit the row');
    assert.equal(
      await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      0,
      'no sideways scroll',
    );
    const note = await addAllNote(page);
    assert.match(note, /part 2 \(inch-bracket\.obj\)/);
    assert.match(note, /Part 1 \(rod\.obj\)/);
    await page.locator('slice-quote [part~=scale-control]').scrollIntoViewIfNeeded();
    await painted(page);
    const bar = (await page.locator('slice-quote [part~=buy-bar]').boundingBox())!;
    assert.ok(bar.height < 0.15 * 844, `the sticky bar stays under 15 % of the screen (${bar.height} px)`);
    assert.ok(bar.y + bar.height <= 844 && bar.y >= 0, 'and on screen');
    // At the end of the list the note stands whole above the bar, never under it.
    await page.locator('slice-quote').evaluate((el) => el.scrollIntoView({ block: 'end' }));
    await painted(page);
    const [noteBox, barBox] = await Promise.all(
      ['#add-all-blockers', '[part~=buy-bar]'].map(
        async (sel) => (await page.locator(`slice-quote ${sel}`).boundingBox())!,
      ),
    );
    assert.ok(
      noteBox!.y >= 0 && noteBox!.y + noteBox!.height <= barBox!.y,
      `the note is above the bar (${JSON.stringify({ noteBox, barBox })})`,
    );
    await shot(page, 'multipart-blocked-phone-390', 'widget-multipart-blocked-phone.png');
    await assertNoAxeViolations(page, 'rows to mend, at 390 × 844');
  } finally {
    await page.close();
  }
});

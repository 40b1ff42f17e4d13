// A choice over the shop's slicer limit, as a shopper meets it in Debian's Chromium against a real server, on the
// demo shop and on a plain page holding only the copied snippet, at 1280 and 390 px, one part and a row of several: the shop's limit lies between what a small part's
// Standard and Fine qualities are predicted to take; the shopper chooses Fine, reads that it needs more slicing time
// than the shop prices online, sees Fine marked "— over the limit" in the Quality select (its label not cut off on a
// phone), and presses "Price it with Standard", which prices the part from a real slice. Fine stays marked, and
// selectable.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { SPEED_TTL_MS } from '../../server/quotes/slice-cost.ts';
import { widgetShopper } from '../helpers/shopper.ts';
import { prismZObj, regularPolygon } from '../helpers/solids.ts';
import { assertNoAxeViolations } from './axe.ts';
import { chromiumMissing, launchChromium, painted, startWidgetEnvWithPlainPage, type WidgetEnv } from './widget-env.ts';

const skip = chromiumMissing() ?? false;
const ARTIFACTS = path.resolve('test-artifacts', 'widget');
const OVER = ' — over the limit';

/**
 * A cylinder 20 mm across and 20 mm tall of `facets` sides: a small part whose many tall side triangles make its
 * slice cost grow with the number of layers, so Fine (0.1 mm) is predicted to take about twice Standard's (0.2 mm)
 * time. Each test slices its own (another number of facets), so no slice of one is in the cache for the next.
 */
const cylinder = (facets: number) => ({
  name: `pin-${facets}.obj`,
  mimeType: 'text/plain',
  buffer: Buffer.from(prismZObj(regularPolygon(facets, 10), 0, 20)),
});

let env: WidgetEnv;
let browser: Browser;
let shopOrigin: string;
/** A page of another origin holding only the copied snippet (under a heading: axe judges the whole page). */
let plainUrl: string;
/** The offer as the shop saved it: Draft, Standard and Fine, Draft first. */
let offer: Record<string, unknown>;

before(async () => {
  if (skip) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  // No prefetches (as on every test server): the only slices are those the shopper asks for, so the limit set
  // between two predictions holds.
  ({ env, plainUrl } = await startWidgetEnvWithPlainPage());
  shopOrigin = new URL(env.shop.url).origin;
  const api = env.server.client(env.apiToken);
  const { source: _source, ...current } = (await api.get('/v2/offer')).body;
  assert.deepEqual(
    current.qualities.map((q: { id: string }) => q.id),
    ['draft', 'standard', 'fine'],
    'the shipped printer offers three qualities',
  );
  offer = { ...current, default_quality: 'draft' };
  await putOffer(null);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await env?.stop();
});

async function putOffer(maxSliceSeconds: number | null): Promise<void> {
  const put = await env.server.client(env.apiToken).put('/v2/offer', { ...offer, max_slice_seconds: maxSliceSeconds });
  assert.equal(put.status, 200, JSON.stringify(put.body));
}

/**
 * Sets the shop's limit between the part's Standard and Fine predictions, as they stand now: the prediction is the
 * cost model's times this server's measured speed, which the slices made so far have set. Learnt from the shop's own
 * refusals (at the lowest limit a shop may set), so nothing is sliced.
 */
async function limitBetweenStandardAndFine(model: ReturnType<typeof cylinder>): Promise<number> {
  // The speed is read again once its last reading is older than SPEED_TTL_MS: moved on past that, the server reads
  // it now, with every slice so far, and keeps it through the shopper's choice (nothing is sliced in between). Else
  // a reading taken before the last slice would set the limit, and a later one judge the choice against it.
  env.server.clock.advance(SPEED_TTL_MS + 1);
  const shopper = widgetShopper(env.server, env.widgetKey, shopOrigin);
  const fileId = await shopper.upload(model.buffer, model.name);
  await putOffer(5);
  const quote = (quality: string) => shopper.post(`/v2/file/quote/${fileId}`, { choices: { quality } });
  const fine = await quote('fine');
  assert.equal(fine.status, 422, JSON.stringify(fine.body));
  const refused = fine.body.error.details;
  const fineS: number = refused.predicted_seconds;
  let standardS: number | undefined = refused.within_limit.find(
    (q: { quality: string }) => q.quality === 'standard',
  )?.predicted_seconds;
  if (standardS === undefined) {
    const standard = await quote('standard'); // over 5 s too: refused, with its prediction
    assert.equal(standard.status, 422, JSON.stringify(standard.body));
    standardS = standard.body.error.details.predicted_seconds as number;
  }
  const limit = Math.max(5, Math.round((standardS + fineS) / 2));
  assert.ok(standardS < limit && limit < fineS, `Standard ${standardS} s < limit ${limit} s < Fine ${fineS} s`);
  await putOffer(limit);
  return limit;
}

const quoteOf = (page: Page) =>
  page
    .locator('slice-quote')
    .evaluate(
      (el) =>
        (el as unknown as { quote: { quote_id: string; cached: boolean; choices: { quality: string } } | null }).quote,
    );

/**
 * What the widget answers a choice with, once it has: the refusal shown (its code and words), or a price for that
 * quality. Waits for either, so a choice priced instead of refused fails here, saying so, not on a timeout.
 */
async function answerTo(page: Page, quality: string): Promise<{ code: string | null; text: string; priced: boolean }> {
  const handle = await page.waitForFunction((q) => {
    const el = document.querySelector('slice-quote') as unknown as HTMLElement & {
      quote: { choices: { quality: string } } | null;
      parts?: { quote: { choices: { quality: string } } | null }[];
    };
    const error = el.shadowRoot!.querySelector('[part~=error]');
    if (error) return { code: error.getAttribute('data-code'), text: error.textContent!.trim(), priced: false };
    const priced = el.shadowRoot!.querySelector(
      `[part~=row][data-status=priced] select[id$="-quality"]`,
    ) as HTMLSelectElement | null;
    if (el.quote?.choices.quality === q || priced?.value === q) return { code: null, text: '', priced: true };
    return null;
  }, quality);
  return (await handle.jsonValue()) as { code: string | null; text: string; priced: boolean };
}

/** The options of a Quality select: value, text, whether it is disabled and chosen. */
const qualityOptions = (page: Page, select: string) =>
  page.locator(`slice-quote ${select} option`).evaluateAll((os) =>
    os.map((o) => ({
      value: (o as HTMLOptionElement).value,
      text: o.textContent!,
      disabled: (o as HTMLOptionElement).disabled,
    })),
  );

/**
 * The width the chosen option's label takes in the select's font, and the width the closed select shows it in (its
 * box less its padding and the arrow, which Chromium draws in about 20 px).
 */
const chosenLabelRoom = (page: Page, select: string) =>
  page.locator(`slice-quote ${select}`).evaluate((el) => {
    const s = el as HTMLSelectElement;
    const style = getComputedStyle(s);
    const ctx = document.createElement('canvas').getContext('2d')!;
    ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const text = Math.ceil(ctx.measureText(s.selectedOptions[0]!.textContent!).width);
    const inside = s.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight) - 20;
    return { text, inside: Math.floor(inside), label: s.selectedOptions[0]!.textContent };
  });

/** Whatever of the widget reaches past its right edge, and the page's sideways scroll. */
const overflow = (page: Page) =>
  page.locator('slice-quote').evaluate((el) => {
    const right = el.getBoundingClientRect().right;
    const sticking = [...el.shadowRoot!.querySelectorAll('*')]
      .filter((n) => n.getBoundingClientRect().right > right + 0.5)
      .map((n) => n.getAttribute('part') ?? n.tagName);
    return { page: document.documentElement.scrollWidth - document.documentElement.clientWidth, sticking };
  });

const SIZES = [
  { name: 'desktop', width: 1280, height: 800, facets: { 'demo shop': 700, 'plain page': 760 } },
  { name: 'phone', width: 390, height: 844, facets: { 'demo shop': 720, 'plain page': 780 } },
];

for (const size of SIZES)
  for (const where of ['demo shop', 'plain page'] as const)
    test(`${size.name}, ${where}: Fine over the shop's slicer limit is marked in its select; "Price it with Standard" prices a real slice`, {
      skip,
    }, async () => {
      const model = cylinder(size.facets[where]);
      const page = await browser.newPage({ viewport: { width: size.width, height: size.height }, bypassCSP: true });
      const pageErrors: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(e.message));
      try {
        await page.goto(where === 'demo shop' ? env.shop.url : plainUrl);
        await page.waitForFunction(
          () => (document.querySelector('slice-quote') as unknown as { config: unknown }).config,
        );
        await page.locator('slice-quote #file').setInputFiles(model);
        await page.locator('slice-quote [part~=amount]').waitFor();
        assert.equal((await quoteOf(page))!.choices.quality, 'draft', 'priced at the shop default, Draft');
        const limit = await limitBetweenStandardAndFine(model);

        // The shopper chooses Fine: refused before any slice, in words that name the choice and the way forward.
        await page.locator('slice-quote select#quality').selectOption('fine');
        const answer = await answerTo(page, 'fine');
        assert.equal(answer.code, 'model_too_complex', `refused for the shop's limit: ${JSON.stringify(answer)}`);
        const alert = page.locator('slice-quote [part~=error][data-code=model_too_complex]');
        assert.match(
          await alert.innerText(),
          /Fine · 0\.1 mm needs more slicing time than this shop prices online\.\s+Standard · 0\.2 mm is within it\./,
        );
        const options = await qualityOptions(page, 'select#quality');
        assert.deepEqual(
          options.map((o) => o.text),
          ['Draft · 0.3 mm', 'Standard · 0.2 mm', `Fine · 0.1 mm${OVER}`],
          `Fine is marked over the limit of ${limit} s, the others are not`,
        );
        assert.ok(
          options.every((o) => !o.disabled),
          'every quality can still be chosen',
        );
        assert.equal(await page.locator('slice-quote select#quality').inputValue(), 'fine', 'Fine stays chosen');
        assert.deepEqual(await overflow(page), { page: 0, sticking: [] }, 'the longer label fits the widget');
        const room = await chosenLabelRoom(page, 'select#quality');
        assert.ok(room.text <= room.inside, `the chosen label is not cut off: ${JSON.stringify(room)}`);
        await assertNoAxeViolations(page, `${size.name}, ${where}: a choice over the slicer limit`);
        const shot = where === 'demo shop' ? size.name : `${size.name}-plain`;
        await page.screenshot({ path: path.join(ARTIFACTS, `slicer-limit-${shot}.png`), fullPage: true });

        // "Price it with Standard": that quality is chosen and priced by a slice made now.
        const instead = page.locator('slice-quote [part~=instead-button]');
        assert.equal((await instead.innerText()).trim(), 'Price it with Standard · 0.2 mm');
        const box = (await instead.boundingBox())!;
        assert.ok(
          box.x >= 0 && box.x + box.width <= size.width,
          `the button is within the screen (${JSON.stringify(box)})`,
        );
        await instead.click();
        await page.waitForFunction(
          () =>
            (document.querySelector('slice-quote') as unknown as { quote: any }).quote?.choices.quality === 'standard',
        );
        const priced = (await quoteOf(page))!;
        assert.equal(priced.cached, false, 'from a slice made for this choice, not the cache');
        await page.locator('slice-quote [part~=amount]').waitFor();
        assert.equal(await alert.count(), 0, 'the refusal is gone');
        assert.equal(await page.locator('slice-quote select#quality').inputValue(), 'standard');
        assert.equal(
          (await qualityOptions(page, 'select#quality')).at(-1)!.text,
          `Fine · 0.1 mm${OVER}`,
          'Fine stays marked while the part and its other choices are the same',
        );
        assert.ok(
          await page.locator('slice-quote [part~=add-button]').isEnabled(),
          'the part can be added to the cart',
        );
        await painted(page);
        await page.screenshot({ path: path.join(ARTIFACTS, `slicer-limit-priced-${shot}.png`), fullPage: true });
        assert.deepEqual(pageErrors, []);
      } finally {
        await page.close();
      }
    });

test('several parts, 1280 px: a row over the limit is marked in its own select and priced with its way forward', {
  skip,
}, async () => {
  const model = cylinder(740);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await page.goto(`${env.shop.url}/parts`);
    await page.waitForFunction(() => (document.querySelector('slice-quote') as unknown as { config: unknown }).config);
    await page.locator('slice-quote #file').setInputFiles(model);
    const row = page.locator('slice-quote [part~=row]');
    await page.locator('slice-quote [part~=row][data-status=priced]').waitFor();
    await limitBetweenStandardAndFine(model);

    const quality = row.locator('select[id$="-quality"]');
    await quality.selectOption('fine');
    const answer = await answerTo(page, 'fine');
    assert.equal(answer.code, 'model_too_complex', `refused for the shop's limit: ${JSON.stringify(answer)}`);
    await row.locator('[part~=error][data-code=model_too_complex]').waitFor();
    assert.equal(await row.getAttribute('data-status'), 'failed');
    const marked = await quality
      .locator('option')
      .evaluateAll((os) => os.map((o) => `${(o as HTMLOptionElement).value}: ${o.textContent}`));
    assert.deepEqual(marked, ['draft: Draft · 0.3 mm', 'standard: Standard · 0.2 mm', `fine: Fine · 0.1 mm${OVER}`]);
    const instead = row.locator('[part~=instead-button]');
    assert.equal(
      (await instead.textContent())!.replace(/\s+/g, ' ').trim(),
      `Price it with Standard · 0.2 mm for part 1: ${model.name}`,
      'the button names its part for screen readers',
    );
    await instead.click();
    await page.locator('slice-quote [part~=row][data-status=priced]').waitFor();
    assert.equal(await quality.inputValue(), 'standard');
    assert.match(await row.locator('[part~=row-facts]').innerText(), /Print time/, 'priced from a slice');
    assert.ok(await page.locator('slice-quote [part~=add-all-button]').isEnabled(), 'and it can be added');
  } finally {
    await page.close();
  }
});

// The offer's extras as a shopper meets them on the demo shop and on a plain page of another origin holding only the
// copied snippet, in Debian's Chromium against a real server, at 1280 and 390 px: the material's description and the colour's swatch, the Delivery choice with the date it ships
// (and a re-quote carrying the lead time), no quantity-break price below the minimum price per part, and every
// material side by side (exact from a slice, ≈ otherwise), where picking a row selects and quotes that material.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { embedSnippet } from '../../dashboard/src/lib/snippet.ts';
import { corpusPath } from '../helpers/corpus.ts';
import { boxObj } from '../helpers/solids.ts';
import {
  chromiumMissing,
  launchChromium,
  plainShopPage,
  startWidgetEnvWithPage,
  type WidgetEnv,
} from './widget-env.ts';

const skip = chromiumMissing() ?? false;
const ARTIFACTS = path.resolve('test-artifacts', 'widget');
const block = (side: number, height: number) => ({
  name: `block-${side}.obj`,
  mimeType: 'text/plain',
  buffer: Buffer.from(boxObj(0, 0, 0, side, side, height)),
});
// A model of its own per page and size: the slices one makes would turn the others' estimates exact.
const SIZES = [
  { name: 'desktop', width: 1280, height: 900, model: corpusPath('stl', 'cube20_ascii.stl'), plain: block(15, 12) },
  { name: 'phone', width: 390, height: 844, model: corpusPath('stl', 'two_cubes_10mm.stl'), plain: block(12, 9) },
];
const PAGES = ['demo shop', 'plain page'] as const;

const OFFER = {
  materials: [
    {
      material: 'PLA',
      colors: ['Galaxy Purple', 'White'],
      description: 'Stiff and matte, for display parts',
      swatches: { 'Galaxy Purple': '#5b2a86' },
    },
    { material: 'Retracto', colors: [], description: 'Its own slicing key' },
  ],
  default_material: 'PLA',
  qualities: [{ id: 'standard', label: 'Standard', printer_config: {} }],
  default_quality: 'standard',
  infill_options: [15],
  default_infill: 15,
  quantity: { min: 1, max: 100 },
  minimum_price: 1,
  minimum_line_price: null,
  lead_time: null,
  quantity_breaks: [{ min_quantity: 10, discount_percent: 5 }],
  lead_times: [
    { id: 'standard', label: 'Standard', business_days: 5 },
    { id: 'express', label: 'Express', business_days: 2, surcharge_percent: 20 },
  ],
  default_lead_time: 'standard',
};

let env: WidgetEnv;
let browser: Browser;
let plainUrl: string;

before(async () => {
  if (skip) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  // No prefetches: the other material must still be unsliced when the list opens, so it shows its ≈ estimate
  // (with prefetching on, whether its slice has landed by then is a race).
  let origin: string;
  ({ env, origin } = await startWidgetEnvWithPage(
    (_req, res, { server, widgetKey }) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(plainShopPage(embedSnippet(server.url, widgetKey)));
    },
    { PREFETCH_MAX_SECONDS: '0' },
  ));
  plainUrl = `${origin}/plain`;
  const api = env.server.client(env.apiToken);
  const profile = await api.post('/v2/profiles/material', {
    name: 'Retracto',
    settings: { price_per_kg: 31, retraction_distance: 3.5 },
  });
  assert.equal(profile.status, 201, JSON.stringify(profile.body));
  const saved = await api.put('/v2/offer', OFFER);
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await env?.stop();
});

const widget = (page: Page, part: string) => page.locator(`slice-quote [part~=${part}]`);
const quoteOf = (page: Page) =>
  page
    .locator('slice-quote')
    .evaluate((el) => (el as unknown as { quote: { quote_id: string; choices: any } | null }).quote);

/** Waits until the shown quote is another one than `before`, made with this material or lead time. */
async function nextQuote(page: Page, before: string, choice: 'material' | 'lead_time', value: string) {
  await page.waitForFunction(
    ([id, field, wanted]) => {
      const q = (document.querySelector('slice-quote') as unknown as { quote: any }).quote;
      const made = field === 'material' ? q?.choices.material : q?.choices.lead_time?.id;
      return q && q.quote_id !== id && made === wanted;
    },
    [before, choice, value],
  );
  return (await quoteOf(page))!;
}

/** Nothing of the widget sticks out sideways (a phone would scroll the page). */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

for (const size of SIZES) {
  for (const where of PAGES)
    test(`${where}, ${size.name}: description, swatch, delivery date, breaks, and every material side by side`, {
      skip,
    }, async () => {
      const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
      try {
        await page.goto(where === 'demo shop' ? env.shop.url : plainUrl);
        await page.locator('slice-quote #file').setInputFiles(where === 'demo shop' ? size.model : size.plain);
        await widget(page, 'amount').waitFor();

        assert.equal(await widget(page, 'material-description').innerText(), 'Stiff and matte, for display parts');
        const swatch = await widget(page, 'swatch').evaluate((el) => getComputedStyle(el).backgroundColor);
        assert.equal(swatch, 'rgb(91, 42, 134)', 'Galaxy Purple is drawn in its swatch, not guessed from its name');
        assert.match(await widget(page, 'ships-by').innerText(), /^Ships by \w{3}/);
        // These small parts cost less than the $1.00 minimum per part at the shipped prices: they sell at it, and
        // the 10+ break cannot take a piece below it, so no break price is offered beside the minimum.
        const first = (await quoteOf(page))! as unknown as { total_price: number; minimum_unit_price: number };
        assert.deepEqual([first.total_price, first.minimum_unit_price], [1, 1], 'the part sells at the minimum');
        assert.match(await widget(page, 'unit-price').innerText(), /^\$1\.00 each \(minimum price per part\)/);
        assert.equal(await widget(page, 'quantity-breaks').count(), 0, 'no "10+: $0.95 each" under a $1.00 minimum');

        // Express re-quotes with the lead time in the quote (and its signature).
        const standard = (await quoteOf(page))!;
        assert.equal(standard.choices.lead_time.id, 'standard');
        const standardDate = await widget(page, 'ships-by').innerText();
        await widget(page, 'lead-time-select').selectOption('express');
        const express = await nextQuote(page, standard.quote_id, 'lead_time', 'express');
        assert.match((express as any).signature.payload, /^v3:.*:express:2:\d+$/);
        assert.notEqual(await widget(page, 'ships-by').innerText(), standardDate, 'express ships sooner');
        await widget(page, 'amount').waitFor();
        assert.match(await widget(page, 'unit-price').innerText(), /Express \+/);

        // Every material side by side: PLA exact (its slice), Retracto ≈; picking Retracto quotes it.
        await widget(page, 'compare-button').click();
        const rows = widget(page, 'material-price');
        await page.waitForFunction(
          () =>
            document.querySelector('slice-quote')!.shadowRoot!.querySelectorAll('[part~=material-price]').length === 2,
        );
        const basis = await rows.evaluateAll((els) =>
          els.map((e) => [e.querySelector('.material-name')!.textContent, (e as HTMLElement).dataset.basis]),
        );
        assert.deepEqual(Object.fromEntries(basis), { PLA: 'exact', Retracto: 'estimate' });
        const retracto = rows.filter({ hasText: 'Retracto' });
        assert.match(await retracto.innerText(), /≈ /);
        assert.equal(await rows.filter({ hasText: 'PLA' }).getAttribute('aria-pressed'), 'true');
        assert.ok((await overflow(page)) <= 0, 'the list fits the screen');
        await page.screenshot({
          path: path.join(ARTIFACTS, `offer-compare-${where.replace(' ', '-')}-${size.name}.png`),
        });
        await retracto.click();
        const picked = await nextQuote(page, express.quote_id, 'material', 'Retracto');
        assert.equal(picked.choices.lead_time.id, 'express', 'the other choices stay');
        assert.equal(await page.locator('slice-quote select#material').inputValue(), 'Retracto');
        await page.waitForFunction(() => {
          const row = [
            ...document
              .querySelector('slice-quote')!
              .shadowRoot!.querySelectorAll<HTMLElement>('[part~=material-price]'),
          ].find((r) => r.textContent!.includes('Retracto'));
          return row?.dataset.basis === 'exact' && row.getAttribute('aria-pressed') === 'true';
        });
      } finally {
        await page.close();
      }
    });
}

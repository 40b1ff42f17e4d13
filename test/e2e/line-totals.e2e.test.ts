// Every number agrees, in Debian's Chromium against a real server: a shopper on the demo shop prices a part at
// quantity 12 with a 10+ quantity break and the Express delivery (+20 % and $2.50), and the line total the widget
// shows is the one the cart charged and the merchant's quote history, Orders and analytics (order value) show, with
// the whole formula. With the break taken whole, then with the shop's minimum price per part stopping it (the
// widget's break list then shows the minimum, never a piece below it), each at 1280 and 390 px; and on a plain page
// holding only the copied snippet, whose line no cart takes ("Not in a cart" in Orders and analytics, the shopper
// asked for a request). The dashboard is read at both widths too (axe on analytics).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { corpusPath } from '../helpers/corpus.ts';
import { assertAccessible, loggedInPage, shoot } from './dashboard-browser.ts';
import { type DashboardHost, dashboardHost } from './dashboard-serve.ts';
import { buildDashboardIfMissing } from './dashboard-suite.ts';
import { chromiumMissing, launchChromium, startWidgetEnvWithPlainPage, type WidgetEnv } from './widget-env.ts';

const skip = chromiumMissing() ?? false;
const CUBE = corpusPath('stl', 'cube20_ascii.stl');

const OFFER = {
  materials: [{ material: 'PLA', colors: ['White'] }],
  default_material: 'PLA',
  qualities: [{ id: 'standard', label: 'Standard', printer_config: {} }],
  default_quality: 'standard',
  infill_options: [15],
  default_infill: 15,
  quantity: { min: 1, max: 100 },
  minimum_price: 0.01,
  minimum_line_price: null,
  lead_time: null,
  quantity_breaks: [{ min_quantity: 10, discount_percent: 5 }],
  lead_times: [
    { id: 'standard', label: 'Standard', business_days: 5 },
    { id: 'express', label: 'Express', business_days: 2, surcharge_percent: 20, surcharge_amount: 2.5 },
  ],
  default_lead_time: 'standard',
};

let env: WidgetEnv;
let host: DashboardHost;
let browser: Browser;
/** What the widget showed for each scenario, checked against the dashboard at the end. */
const shown: { quoteId: string; amount: string; scenario: 'break' | 'minimum'; where: 'demo shop' | 'plain page' }[] =
  [];
/** A page of another origin holding only the copied snippet, whose listener takes nothing: no cart takes a line. */
let plainUrl: string;
/** The part's own price in cents, from the first scenarios. */
let unitCents = 0;

before(async () => {
  if (skip) return;
  buildDashboardIfMissing();
  ({ env, plainUrl } = await startWidgetEnvWithPlainPage());
  host = await dashboardHost(env.server.url);
  const saved = await env.server.client(env.apiToken).put('/v2/offer', OFFER);
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await host?.close();
  await env?.stop();
});

const widget = (page: Page, part: string) => page.locator(`slice-quote [part~=${part}]`);
type ShownQuote = { quote_id: string; total_price: number; minimum_unit_price: number | null; choices: any };
const quoteOf = (page: Page) =>
  page.locator('slice-quote').evaluate((el) => (el as unknown as { quote: ShownQuote | null }).quote);
/** Half-up percent of whole cents, as a merchant's spreadsheet computes it. */
const pct = (cents: number, percent: number) => Math.floor((cents * percent) / 100 + 0.5);
/** "$1,234.56" in cents. */
const centsOf = (text: string) => Math.round(Number(text.replace(/[^\d.]/g, '')) * 100);
const dollars = (c: number) => `$${(c / 100).toFixed(2)}`;

/** The shopper uploads the cube, picks 12 pieces and Express, and sees the price settle. */
async function priceTwelveExpress(page: Page, url = env.shop.url): Promise<ShownQuote> {
  await page.goto(url);
  await page.locator('slice-quote #file').setInputFiles(CUBE);
  await widget(page, 'amount').waitFor();
  const standard = (await quoteOf(page))!;
  await page.locator('slice-quote input#quantity, slice-quote select#quantity').fill('12');
  await widget(page, 'lead-time-select').selectOption('express');
  await page.waitForFunction((before) => {
    const q = (document.querySelector('slice-quote') as unknown as { quote: ShownQuote | null }).quote;
    return q && q.quote_id !== before && q.choices.lead_time?.id === 'express';
  }, standard.quote_id);
  await page.waitForFunction(() =>
    /12 pieces/.test(
      document.querySelector('slice-quote')!.shadowRoot!.querySelector('[part~=unit-price]')?.textContent ?? '',
    ),
  );
  return (await quoteOf(page))!;
}

async function addToCart(
  page: Page,
  quote: ShownQuote,
  scenario: 'break' | 'minimum',
  where: 'demo shop' | 'plain page' = 'demo shop',
) {
  const amount = await widget(page, 'amount').innerText();
  await widget(page, 'add-button').click();
  await widget(page, 'added').waitFor();
  shown.push({ quoteId: quote.quote_id, amount, scenario, where });
  return amount;
}

const SIZES = [
  { name: '1280 px', width: 1280, height: 900 },
  { name: '390 px', width: 390, height: 844 },
];

for (const size of SIZES)
  test(`${size.name}: 12 pieces, 5 % off for 10+, Express: the widget shows the line the cart charges`, {
    skip,
  }, async () => {
    const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
    try {
      const q = await priceTwelveExpress(page);
      const cents = Math.round(q.total_price * 100);
      if (unitCents) assert.equal(cents, unitCents, 'the same part at the same choices: the same price');
      unitCents = cents;
      assert.ok(unitCents >= 21, `a part whose 5 % is more than a cent (${unitCents} cents)`);
      assert.match(await widget(page, 'quantity-breaks').innerText(), /^10\+: \$[\d.]+ each$/);
      const subtotal = 12 * unitCents;
      const discount = pct(subtotal, 5);
      const surcharge = pct(subtotal - discount, 20) + 250;
      const words = await widget(page, 'unit-price').innerText();
      assert.match(words, new RegExp(`· 12 pieces · 5 % off for 10\\+ · Express \\+\\${dollars(surcharge)}$`));
      const amount = await addToCart(page, q, 'break');
      assert.equal(centsOf(amount), subtotal - discount + surcharge, `the widget's ${amount}`);
    } finally {
      await page.close();
    }
  });

for (const size of SIZES)
  test(`${size.name}: the minimum price per part stops the break; the break list shows the minimum, never below it`, {
    skip,
  }, async () => {
    assert.ok(unitCents > 0, 'the first scenarios found the part’s price');
    // A minimum a cent under the part's price: 5 % off would take a piece below it.
    const minimum = unitCents - 1;
    assert.ok(minimum > unitCents * 0.95);
    const api = env.server.client(env.apiToken);
    assert.equal((await api.put('/v2/offer', { ...OFFER, minimum_price: minimum / 100 })).status, 200);
    const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
    try {
      const q = await priceTwelveExpress(page);
      assert.deepEqual([Math.round(q.total_price * 100), q.minimum_unit_price], [unitCents, minimum / 100]);
      assert.equal(
        await widget(page, 'quantity-breaks').innerText(),
        `10+: ${dollars(minimum)} each (minimum price per part)`,
      );
      const subtotal = 12 * minimum;
      const surcharge = pct(subtotal, 20) + 250;
      assert.match(
        await widget(page, 'unit-price').innerText(),
        /· 12 pieces · 5 % off for 10\+, down to the minimum price per part · Express \+/,
      );
      const amount = await addToCart(page, q, 'minimum');
      assert.equal(centsOf(amount), subtotal + surcharge, `the widget's ${amount}: every piece at the minimum`);
    } finally {
      await page.close();
    }
  });

for (const size of SIZES)
  test(`${size.name}, plain page: the copied snippet's line, which no cart took, has the same total; the shopper is asked for a request`, {
    skip,
  }, async () => {
    const minimum = unitCents - 1; // as the scenario above left the offer
    const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
    try {
      const q = await priceTwelveExpress(page, plainUrl);
      assert.equal(q.minimum_unit_price, minimum / 100);
      const amount = await addToCart(page, q, 'minimum', 'plain page');
      assert.equal(centsOf(amount), 12 * minimum + pct(12 * minimum, 20) + 250, `the widget's ${amount}`);
      assert.match(await widget(page, 'reserved').innerText(), /^No cart took your part yet: request a quote above/);
      await widget(page, 'request-form').waitFor();
    } finally {
      await page.close();
    }
  });

for (const size of SIZES)
  test(`${size.name}: the quote history, Orders and analytics show the widget’s line totals, with the whole formula`, {
    skip,
  }, async () => {
    assert.equal(shown.length, 6, 'every scenario added its line');
    const page = await loggedInPage(browser, host.origin, env.merchant);
    const suffix = size.width === 1280 ? '' : `-${size.width}`;
    try {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.goto(`${host.origin}/dashboard/#/quotes`);
      const historyRow = (quote: string) =>
        page.locator('tbody tr', { has: page.locator(`a[href="#/quotes/${quote}"]`) });
      await historyRow(shown[0]!.quoteId).waitFor();
      const formulas: string[] = [];
      for (const { quoteId, amount } of shown) {
        const formula = await historyRow(quoteId).getByTestId('line-total').innerText();
        assert.ok(formula.endsWith(`= ${amount}`), `history: ${formula} ends with the widget's ${amount}`);
        formulas.push(formula);
      }
      const unit = dollars(unitCents);
      for (const [i, { scenario }] of shown.entries())
        assert.match(
          formulas[i]!,
          scenario === 'break'
            ? new RegExp(`^12 × \\${unit} = \\$[\\d.,]+ − \\$[\\d.,]+ \\(5 % off\\) \\+ \\$[\\d.,]+ \\(Express\\) = `)
            : new RegExp(
                `^12 × \\${unit} = .+ \\(5 % off, down to the minimum price per part, \\$[\\d.]+\\) \\+ .+ \\(Express\\) = `,
              ),
        );
      await shoot(page, `quote-history-formula${suffix}`);

      await page.goto(`${host.origin}/dashboard/#/orders`);
      const orderRow = (quote: string) =>
        page.getByTestId('orders').locator('tr', { has: page.locator(`a[href="#/quotes/${quote}"]`) });
      await orderRow(shown[0]!.quoteId).waitFor();
      for (const [i, { quoteId, amount, where }] of shown.entries()) {
        const row = orderRow(quoteId);
        assert.equal(await row.locator('td.num strong').innerText(), amount, "Orders' total is the widget's");
        assert.equal(await row.getByTestId('line-total').innerText(), formulas[i], 'the same formula as the history');
        if (where === 'demo shop')
          assert.match(await row.innerText(), /In a cart/, "the demo shop's cart took the line");
        else assert.match(await row.innerText(), /Not in a cart/, 'no cart on the plain page took it');
      }
      await shoot(page, `orders-formula${suffix}`, size.width === 1280);

      // Analytics: the order value is the sum of the widget's line totals, the lines a cart took apart from those
      // no cart took.
      await page.goto(`${host.origin}/dashboard/#/analytics`);
      const usd = page.getByTestId('analytics-orders').locator('tr[data-currency="USD"]');
      await usd.waitFor();
      const sum = (where: string | null) =>
        shown.filter((l) => where === null || l.where === where).reduce((s, l) => s + centsOf(l.amount), 0);
      const cell = (name: string) => usd.locator(`[data-cell="${name}"]`).innerText();
      assert.equal(
        centsOf(await usd.locator('td').nth(1).innerText()),
        sum(null),
        'order value = the sum of the lines',
      );
      assert.equal(centsOf((await cell('in-cart')).split(' · ')[0]!), sum('demo shop'));
      assert.match(await cell('in-cart'), / · 4 lines$/);
      assert.equal(centsOf((await cell('not-in-cart')).split(' · ')[0]!), sum('plain page'));
      assert.match(await cell('not-in-cart'), / · 2 lines$/);
      await assertAccessible(page, `analytics at ${size.width} px`);
    } finally {
      await page.context().close();
    }
  });

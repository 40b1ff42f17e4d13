// End-to-end in Debian's Chromium at 1280 and 390 px: the Prices page prices the 20 mm calibration cube as the
// merchant types, names a wrong price on its row, saves to the profiles, and the figure it showed is what a real
// quote of the cube then costs; the offer editor's quantity breaks and delivery options are rows whose problems
// name the row and the field, and what it saves is what GET /v2/offer answers.

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, shoot } from './dashboard-browser.ts';
import { chromiumSkip, dashboardSuite } from './dashboard-suite.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CUBE = path.join(ROOT, 'demo', 'models', 'calibration-cube.stl');
const skip = chromiumSkip();
const suite = dashboardSuite(skip);

/** A new account's dashboard at this width, logged in, on the page of `hash`. */
async function openAs(width: number, hash: string) {
  const account = await suite.server.newAccount();
  const page = await (await suite.browser.newContext({ viewport: { width, height: 844 } })).newPage();
  page.on('pageerror', (err) => console.error('page error:', err.message));
  await page.goto(`${suite.host.origin}/dashboard/#/login`);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await page.goto(`${suite.host.origin}/dashboard/#/${hash}`);
  return { account, page, api: suite.server.client(account.token) };
}

/** Whether nothing inside the element is cut off or scrolls sideways. */
const fits = (page: Page, selector: string) =>
  page
    .locator(selector)
    .evaluate((el) => el.scrollWidth <= el.clientWidth + 1 && el.getBoundingClientRect().right <= innerWidth);

const row = (page: Page, material: string) => page.locator(`li.price-row[data-material="${material}"]`);
const sample = async (page: Page, material: string) =>
  (await row(page, material).getByTestId('sample-price').locator('.price-total').innerText()).trim();

for (const width of [1280, 390]) {
  test(`${width} px: Prices shows each material's price per kg and prices the sample cube as the merchant types`, {
    skip,
  }, async () => {
    const { page, api } = await openAs(width, 'prices');
    await page.getByRole('heading', { level: 1, name: 'Prices' }).waitFor();
    await row(page, 'PLA').waitFor();
    assert.match(await page.locator('main').innerText(), /Amounts are in USD, your shop currency/);
    assert.match(await row(page, 'PLA').innerText(), /Shipped example price/);
    assert.equal(await page.getByLabel('PLA: Price per kg (USD)').inputValue(), '25');
    assert.equal(await sample(page, 'PLA'), '$1.00', 'the shipped cube sells at the minimum price per part');
    assert.match(await row(page, 'PLA').innerText(), /raised to your minimum price per part/);

    // Live, before any save: a dearer material and machine hour and a lower minimum reprice the cube.
    await page.getByLabel('PLA: Price per kg (USD)').fill('400');
    const live = await sample(page, 'PLA');
    assert.notEqual(live, '$1.00', 'the sample follows the price as it is typed');
    await page.getByLabel(/^Machine time per hour/).fill('3');
    await page.getByLabel(/^Minimum price per part/).fill('0.5');
    const typed = await sample(page, 'PLA');
    assert.notEqual(typed, live, 'and the machine hour');
    assert.match(await row(page, 'PLA').innerText(), /Changed, not saved/);

    // A wrong price is named on its row, and its sample waits for it.
    await page.getByLabel('PETG: Price per kg (USD)').fill('-3');
    await row(page, 'PETG').getByText('PETG: price per kg must be at least 0').waitFor();
    assert.match(await row(page, 'PETG').getByTestId('sample-price').innerText(), /Type a valid price to see it/);
    await page.getByLabel('PETG: Price per kg (USD)').fill('28');
    if (width === 1280) await assertAccessible(page, 'prices');
    else assert.ok(await fits(page, 'sq-price-sheet'), 'the Prices page fits a phone');
    await page.evaluate(() => scrollTo(0, 0));
    await shoot(page, `prices-${width}`, width === 1280, false);

    await page.getByRole('button', { name: 'Save prices' }).click();
    await page.getByTestId('prices-notice').getByText('Prices saved.').waitFor();
    assert.match(await row(page, 'PLA').innerText(), /Your price/);
    assert.equal(await sample(page, 'PLA'), typed, 'the saved prices give the figure typed');

    // The figure shown is what a real quote of the cube costs now.
    const upload = await api.upload('/v2/file', CUBE);
    assert.equal(upload.status, 201, JSON.stringify(upload.body));
    const quote = await api.post(`/v2/file/quote/${upload.body.file_id}`, {
      material_config: { filament_type: 'PLA' },
    });
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    assert.equal(`$${quote.body.total_price.toFixed(2)}`, typed, 'the page priced the cube as the quote does');
    assert.equal(quote.body.price_breakdown.price_per_gram, 0.4);
    assert.equal(quote.body.price_breakdown.minimum_price_adjustment, 0);
    const printers = (await api.get('/v2/profiles/printer')).body.data;
    const mine = printers.find((p: { scope: string; is_default: boolean }) => p.scope === 'account' && p.is_default);
    assert.deepEqual([mine?.name, mine?.settings.hourly_cost], ['My printer', 3]);
    await page.context().close();
  });
}

for (const width of [1280, 390]) {
  test(`${width} px: quantity breaks and delivery options are rows, each problem naming its row and field`, {
    skip,
  }, async () => {
    const { page, api } = await openAs(width, 'offer');
    await page.getByRole('heading', { level: 1, name: 'Offer' }).waitFor();
    const breaks = page.locator('#of-quantity_breaks');
    assert.match(await breaks.innerText(), /never takes a part below your minimum price per part \(\$1\.00\)/);
    await breaks.getByRole('button', { name: 'Add quantity break' }).click();
    await page.locator('#of-quantity_breaks-0-min_quantity').fill('10');
    await page.locator('#of-quantity_breaks-0-discount_percent').fill('5');
    await breaks.getByRole('button', { name: 'Add quantity break' }).click();
    await page.locator('#of-quantity_breaks-1-min_quantity').fill('5');
    await page.locator('#of-quantity_breaks-1-discount_percent').fill('10 %');
    assert.equal(
      await page.locator('#of-quantity_breaks-1-min_quantity-error').innerText(),
      'Break 2: quantity must be larger than the break before it',
    );
    await page.locator('#of-quantity_breaks-1-min_quantity').fill('50');

    const delivery = page.locator('#of-lead_times');
    await delivery.getByRole('button', { name: 'Add delivery option' }).click();
    await page.locator('#of-lead_times-0-label').fill('Standard');
    await page.locator('#of-lead_times-0-business_days').fill('5');
    await delivery.getByRole('button', { name: 'Add delivery option' }).click();
    await page.locator('#of-lead_times-1-label').fill('Express');
    await page.locator('#of-lead_times-1-business_days').fill('soon');
    assert.equal(
      await page.locator('#of-lead_times-1-business_days-error').innerText(),
      'Delivery option 2 “Express”: business days must be a whole number from 0 to 365',
    );
    await page.locator('#of-lead_times-1-business_days').fill('2');
    await page.locator('#of-lead_times-1-surcharge_percent').fill('20');
    await page.locator('#of-lead_times-1-surcharge_amount').fill('2.50');
    assert.equal(await page.locator('#of-lead_times-1-id').inputValue(), 'express', 'the id follows the label');
    await page.getByLabel('Preselected delivery option').selectOption({ label: 'Express' });
    // A third break, then removed: the rows keep their numbers.
    await breaks.getByRole('button', { name: 'Add quantity break' }).click();
    await breaks.getByRole('button', { name: 'Remove break 3' }).click();
    if (width === 1280) await assertAccessible(page, 'offer with breaks and delivery options');
    else {
      assert.ok(await fits(page, '#of-quantity_breaks'), 'the breaks fit a phone');
      assert.ok(await fits(page, '#of-lead_times'), 'the delivery options fit a phone');
    }
    await shoot(page, `offer-term-rows-${width}`);

    await page.getByRole('button', { name: 'Save offer' }).click();
    await page.getByText('Offer saved.').waitFor();
    const saved = (await api.get('/v2/offer')).body;
    assert.deepEqual(saved.quantity_breaks, [
      { min_quantity: 10, discount_percent: 5 },
      { min_quantity: 50, discount_percent: 10 },
    ]);
    assert.deepEqual(saved.lead_times, [
      { id: 'standard', label: 'Standard', business_days: 5, surcharge_percent: 0, surcharge_amount: 0 },
      { id: 'express', label: 'Express', business_days: 2, surcharge_percent: 20, surcharge_amount: 2.5 },
    ]);
    assert.equal(saved.default_lead_time, 'express');
    await page.context().close();
  });
}

// End-to-end in Debian's Chromium: on the Overview, a merchant picks their printer from PrusaSlicer's library
// (vendor, then printer and nozzle) and sees only the print settings and filaments compatible with it, imports it
// with or without its custom G-code (and reads which blocks were kept or left out); then checks
// the imported printer against a binary G-code of the reference part made by the server's own PrusaSlicer.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { readCheck, signedPercent } from '../../dashboard/src/lib/printer-check.ts';
import { shopGcode } from '../helpers/shop-gcode.ts';
import { vendorFlatOptions } from '../helpers/vendor-preset.ts';
import { assertAccessible, loggedInPage, shoot } from './dashboard-browser.ts';
import { chromiumSkip, dashboardSuite } from './dashboard-suite.ts';

const skip = chromiumSkip();
const suite = dashboardSuite(skip);

/** The MK3S with a 0.4 mm nozzle chosen in the Overview's printer picker; its preset lists then show. */
async function pickMk3s(page: Page) {
  const picker = page.getByTestId('printer-picker');
  await picker.getByLabel('Vendor').selectOption({ label: 'Prusa Research' });
  await picker
    .getByLabel('Printer and nozzle')
    .selectOption({ label: 'Original Prusa i3 MK3S & MK3S+ (0.4 mm nozzle)' });
  return { picker, presets: page.getByTestId('printer-presets') };
}

test('Your printer: Prusa Research → MK3S 0.4 mm lists its own prints and Prusament PLA', {
  skip,
}, async () => {
  const account = await suite.server.newAccount();
  const page = await loggedInPage(suite.browser, suite.host.origin, account);
  const { picker, presets } = await pickMk3s(page);
  await presets.getByLabel('0.20mm QUALITY @MK3').check();
  await presets.getByLabel('Prusament PLA', { exact: true }).check();
  assert.equal(await presets.getByLabel('0.20mm QUALITY @MINI').count(), 0, 'a MINI print is not offered');
  assert.match(await presets.innerText(), /Print settings \(1 of \d+ chosen\)/);
  await assertAccessible(page, 'overview with the printer picker');
  await shoot(page, 'printer-picker');
  // Used for quotes: the shop's default printer is now the vendor's, with the vendor's names.
  await picker.getByRole('button', { name: 'Use this printer for my quotes' }).click();
  const imported = page.getByTestId('printer-imported');
  await imported.waitFor();
  // The offer derived from the profiles offers the imported print preset at once.
  await imported.getByTestId('preset-qualities').getByText('Shoppers choose between 0.20mm QUALITY.').waitFor();
  await shoot(page, 'printer-imported', true);
  assert.match(
    await imported.innerText(),
    /default printer is now Original Prusa i3 MK3S & MK3S\+ — 0\.20mm QUALITY @MK3/,
  );
  const leftOut = await imported.getByTestId('gcode-kept').innerText();
  assert.match(leftOut, /^Custom G-code left out: .*tick “Keep my custom G-code” and import again/);
  assert.ok(leftOut.includes('Start G-code') && leftOut.includes('End G-code'), leftOut);
  const printers = await suite.server.client(account.token).get('/v2/profiles/printer');
  const own = printers.body.data.find(
    (p: { scope: string; is_default: boolean }) => p.is_default && p.scope === 'account',
  );
  assert.equal(own?.name, 'Original Prusa i3 MK3S & MK3S+ — 0.20mm QUALITY @MK3');
});

test('Keep my custom G-code: the import keeps the vendor’s blocks and says which', {
  skip,
}, async () => {
  const account = await suite.server.newAccount();
  const page = await loggedInPage(suite.browser, suite.host.origin, account);
  const { picker, presets } = await pickMk3s(page);
  await presets.getByLabel('0.20mm QUALITY @MK3').check();
  const keep = picker.getByLabel('Keep my custom G-code');
  assert.match((await keep.getAttribute('aria-describedby'))!, /printer-keep-gcode-hint/);
  assert.match(await picker.locator('#printer-keep-gcode-hint').innerText(), /add print time/);
  await keep.check();
  await picker.getByRole('button', { name: 'Use this printer for my quotes' }).click();
  const kept = page.getByTestId('printer-imported').getByTestId('gcode-kept');
  await kept.waitFor();
  const keptText = await kept.innerText();
  assert.match(keptText, /^Kept your custom G-code: .*Quotes count the time it adds/);
  assert.ok(keptText.includes('Start G-code') && keptText.includes('End G-code'), keptText);
  await assertAccessible(page, 'an import with its custom G-code kept');
  const printers = (await suite.server.client(account.token).get('/v2/profiles/printer')).body.data;
  const own = printers.find((p: { scope: string; is_default: boolean }) => p.scope === 'account' && p.is_default);
  assert.ok(own.slicer_options.start_gcode, 'the start G-code is in the printer profile the quotes slice with');
  assert.ok(own.slicer_options.end_gcode);
});

const PICK = { printer: 'Original Prusa i3 MK3S & MK3S+', print: '0.20mm QUALITY @MK3', filament: 'Prusament PLA' };

test('a saved offer keeps its qualities until the merchant offers the imported print presets instead', {
  skip,
}, async () => {
  const account = await suite.server.newAccount();
  const api = suite.server.client(account.token);
  const { source: _source, ...derived } = (await api.get('/v2/offer')).body;
  assert.equal((await api.put('/v2/offer', derived)).status, 200, 'an offer of its own, with Draft/Standard/Fine');
  const page = await loggedInPage(suite.browser, suite.host.origin, account);
  const { picker, presets } = await pickMk3s(page);
  await presets.getByLabel('0.20mm QUALITY @MK3').check();
  await presets.getByLabel('0.30mm DRAFT @MK3').check();
  await picker.getByRole('button', { name: 'Use this printer for my quotes' }).click();
  const offer = page.getByTestId('preset-qualities');
  await offer.getByText(/^Your saved offer keeps its own qualities/).waitFor();
  await assertAccessible(page, 'an import beside a saved offer');
  await offer
    .getByRole('button', { name: /^Offer these print presets instead: 0\.30mm DRAFT, 0\.20mm QUALITY$/ })
    .click();
  await offer.getByText('Your offer now offers these print presets.').waitFor();
  const saved = (await api.get('/v2/offer')).body;
  assert.deepEqual(
    saved.qualities.map((q: { label: string }) => q.label),
    ['0.30mm DRAFT', '0.20mm QUALITY'],
  );
  assert.equal(saved.default_quality, '0-20mm-quality', 'the default printer profile’s preset is preselected');
  const names = (o: { materials: { material: string }[] }) => o.materials.map((m) => m.material);
  assert.deepEqual(names(saved), names(derived), 'the rest of the offer is kept');
});

test('Check against your slicer: a .bgcode of the reference part shows the grams, time and difference the API answers', {
  skip,
}, async (t) => {
  const account = await suite.server.newAccount();
  const api = suite.server.client(account.token);
  // Imported as the dashboard imports a library pick: without the vendor's custom G-code.
  const library = { vendor: 'PrusaResearch', printer: PICK.printer, prints: [PICK.print], filaments: [PICK.filament] };
  const imported = await api.post('/v2/profiles/import', { library, default: true });
  assert.equal(imported.status, 201, JSON.stringify(imported.body));
  const printerId: string = imported.body.profiles.find((p: { kind: string }) => p.kind === 'printer').id;
  const slicer = suite.server.deps.config.slicerBinary;
  const bgcode = Buffer.from(shopGcode({ slicer, options: vendorFlatOptions(PICK, slicer), format: 'binary' }));
  assert.equal(bgcode.toString('latin1', 0, 4), 'GCDE');

  const page = await loggedInPage(suite.browser, suite.host.origin, account);
  const check = page.getByTestId('printer-check');
  await check.waitFor();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    check.getByRole('link', { name: 'Download the reference part' }).click(),
  ]);
  assert.equal(download.suggestedFilename(), 'slicequote-reference-cube-20mm.stl');
  assert.equal(await check.getByLabel('Printer profile').inputValue(), printerId);
  await check.getByLabel('Material (the filament preset you sliced with)').selectOption({ label: PICK.filament });
  const compare = check.getByRole('button', { name: 'Compare with my G-code' });
  assert.equal(await compare.isDisabled(), true, 'nothing to compare before a G-code is chosen');
  const gcodeInput = check.getByLabel('Your G-code of the reference part (.gcode or .bgcode)');
  await gcodeInput.setInputFiles({ name: 'cube.bgcode', mimeType: 'application/octet-stream', buffer: bgcode });
  await compare.click();
  const result = check.getByTestId('printer-check-result');
  await result.waitFor();

  // The same G-code through the API: the shown figures are its answer (the slice is deterministic).
  const form = new FormData();
  form.append('gcode', new Blob([bgcode]), 'cube.bgcode');
  form.append('material', PICK.filament);
  const answer = await api.request('POST', `/v2/profiles/printer/${printerId}/check`, { form });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  const { difference, shop_gcode: shop } = answer.body;
  t.diagnostic(`shop ${JSON.stringify(shop)}; difference ${JSON.stringify(difference)}`);
  assert.equal(await result.getByTestId('check-weight-diff').innerText(), signedPercent(difference.weight_percent));
  assert.equal(await result.getByTestId('check-time-diff').innerText(), signedPercent(difference.time_percent));
  const table = await result.innerText();
  assert.ok(table.includes(`${shop.filament_weight_g} g`), `the shop's grams in ${table}`);
  const status = await check.getByTestId('printer-check-status').innerText();
  const reading = readCheck(answer.body)!;
  if (reading.agrees) assert.match(status, /^Agrees/);
  else assert.ok(status.startsWith('Differs') && status.includes(reading.hints[0]!), status);
  await assertAccessible(page, 'the printer check with its result');
  await shoot(page, 'printer-check', true);

  // A file that is no G-code: the server's own words, in an alert.
  await gcodeInput.setInputFiles({
    name: 'cut.bgcode',
    mimeType: 'application/octet-stream',
    buffer: bgcode.subarray(0, 120),
  });
  await compare.click();
  const alert = check.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.innerText(), /The binary G-code is cut short/);
  assert.equal(await result.count(), 0, 'no result is left beside the error');
});

// End-to-end: the merchant's offer in the dashboard, in Debian's Chromium against a real server. The offer
// editor (a mistake named on its field, a refusal of the server on its field, save), what the widget then
// offers (GET /v2/widget/config with a widget key), a key's own offer, the quote signing secret (a real quote's
// signature verified with it, and no longer after rotation) and cancelled requests on the usage page. Each
// step builds on the previous one; each page is checked with axe-core.

import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { corpusPath } from '../helpers/corpus.ts';
import { until } from '../helpers/poll.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { assertAccessible, CHROMIUM, chromiumMissing, launch, loggedInPage, shoot } from './dashboard-browser.ts';
import { type DashboardHost, dashboardHost } from './dashboard-serve.ts';
import { buildDashboardIfMissing } from './dashboard-suite.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CUBE = path.join(ROOT, 'demo', 'models', 'calibration-cube.stl');
const SHOP = 'https://shop.example.com';
const LEAD_TIME = 'Ships in 3–5 business days';
const skip = chromiumMissing()
  ? `Debian's Chromium is missing at ${CHROMIUM}: install it with "apt-get install -y chromium"`
  : false;

type Named = { name: string };
const names = (list: Named[]) => list.map((m) => m.name);
/** What a shopper is offered of a quality. Its slice settings serve the estimate measured in the browser; the
 *  dashboard's preview prices nothing and carries none. */
type Quality = { slice_settings: unknown };
const offered = ({ slice_settings: _, ...quality }: Quality) => quality;
const asOffered = <C extends { qualities: Quality[] }>(config: C) => ({
  ...config,
  qualities: config.qualities.map(offered),
});

describe('the offer in the merchant dashboard', { skip }, () => {
  let server: TestServer;
  let host: DashboardHost;
  let browser: Browser;
  let page: Page;
  let token = '';
  let widgetKey = '';
  /** The widget config before the offer was saved: the default offer. */
  let defaults: { materials: (Named & { colors: string[] })[] };
  const at = (hash: string) => `${host.origin}/dashboard/#/${hash}`;
  const h1 = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  const button = (name: string | RegExp) => page.getByRole('button', { name });
  const focusedId = () => page.evaluate(() => document.activeElement?.id);
  const preview = () => page.locator('sq-offer-preview');
  const optionsOf = (label: string) => preview().getByLabel(label, { exact: true }).locator('option').allInnerTexts();
  const auth = () => ({ authorization: `Bearer ${token}` });
  /** What the storefront widget is offered, asked as the widget asks: with its key, from an allowed origin. */
  const widgetConfig = async () => {
    const res = await fetch(`${server.url}/v2/widget/config`, { headers: { 'x-widget-key': widgetKey, origin: SHOP } });
    return res.json();
  };

  before(async () => {
    buildDashboardIfMissing();
    server = await startTestServer();
    host = await dashboardHost(server.url);
    const account = await server.newAccount();
    token = account.token;
    browser = await launch();
    page = await loggedInPage(browser, host.origin, account);
  });

  after(async () => {
    await browser?.close();
    await host?.close();
    await server?.stop();
  });

  it('creates a widget key, which uses the account offer', async () => {
    await page.goto(at('widget-keys'));
    await page.getByLabel('Name').fill('main shop');
    await page.getByLabel('Allowed origins').fill(SHOP);
    await button('Create widget key').click();
    await page.getByText('Widget key "main shop" created.').waitFor();
    widgetKey = (await page.getByRole('cell', { name: /^pk_/ }).innerText()).trim();
    assert.match(await page.getByTestId('key-offer').innerText(), /Uses the account offer/);
    defaults = await widgetConfig();
    assert.ok(names(defaults.materials).includes('ABS'), 'the default offer has every priced material');
  });

  it('edits materials and colours, by keyboard too; the preview follows', async () => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Offer' }).click();
    await h1('Offer').waitFor();
    assert.match(await page.getByTestId('offer-source').innerText(), /Default offer/);
    await button('Remove material ABS').click();
    assert.ok(!(await optionsOf('Material')).includes('ABS'), 'the preview drops the removed material');

    const newColour = page.getByLabel('New colour for PLA');
    await newColour.fill('Signal red');
    await newColour.press('Enter');
    assert.equal(await focusedId(), await newColour.getAttribute('id'), 'focus stays, to add another');
    const count = (await optionsOf('Colour')).length;
    await button('Move colour Signal red of PLA earlier').click();
    const focused = await page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    assert.equal(focused, 'Move colour Signal red of PLA earlier', 'focus moves with the colour');
    assert.equal((await optionsOf('Colour')).indexOf('Signal red'), count - 2, 'the preview lists the new order');
  });

  it('names a mistake on its field as you type, and in a summary that leads to it on save', async () => {
    const draftId = page.getByLabel('Id').first();
    await draftId.fill('Draft!');
    const error = await page.locator('#of-qualities-0-id-error').innerText();
    assert.equal(error, 'Quality “Draft · 0.3 mm”, id must be 1 to 40 lower-case letters, digits, - or _');
    assert.equal(await draftId.getAttribute('aria-invalid'), 'true');
    assert.match((await draftId.getAttribute('aria-describedby')) ?? '', /of-qualities-0-id-error/);
    await page.getByLabel('Maximum quantity per line').fill('500');
    await page.getByLabel('Lead time').fill(LEAD_TIME);
    await button('Save offer').click();
    const summary = page.locator('#of-summary');
    await summary.getByText('One field needs attention before saving').waitFor();
    await page.waitForFunction(() => document.activeElement?.id === 'of-summary');
    await assertAccessible(page, 'offer with a validation error');
    await summary.getByRole('link', { name: /id must be/ }).click();
    assert.equal(await focusedId(), 'of-qualities-0-id', 'the summary link leads to the field');
    assert.equal((await widgetConfig()).lead_time, null, 'nothing was saved');
    await draftId.fill('draft');
  });

  it("puts the server's refusal of a preset (beyond what the printer can print) on that preset", async () => {
    await page
      .getByText(/^Slicing settings:/)
      .first()
      .click();
    const layerHeight = page.locator('#of-qualities-0-printer_config-layer_height');
    await layerHeight.fill('0.6');
    await button('Save offer').click();
    await page.locator('#of-summary').getByText('the server refused the offer').waitFor();
    const error = await page.locator('#of-qualities-0-printer_config-error').innerText();
    assert.match(
      error,
      /^Quality “Draft · 0\.3 mm”, slicing settings cannot be quoted with your profiles: .*layer_height/,
    );
    await layerHeight.fill('0.28');
  });

  it('adds a preset whose id follows its label, saves, and the widget is offered exactly what was previewed', async () => {
    await button('Add quality preset').click();
    assert.equal(await focusedId(), 'of-qualities-3-label', 'focus goes to the new preset');
    await page.locator('#of-qualities-3-label').fill('Extra fine · 0.08 mm');
    assert.equal(await page.locator('#of-qualities-3-id').inputValue(), 'extra-fine-0-08-mm');
    await page.locator('#of-qualities-3-printer_config-layer_height').fill('0.08');
    await page.getByLabel(/^Minimum price per line/).fill('10');
    await page.getByLabel('Quotes per day, all shoppers').fill('250');
    await page.getByLabel(/^Storage for shopper uploads/).fill('100');
    await preview().getByText(LEAD_TIME).waitFor();
    await button('Save offer').click();
    await page.getByText('Offer saved. The widget offers it from now on.').waitFor();
    const saved = await (await fetch(`${server.url}/v2/offer`, { headers: auth() })).json();
    assert.deepEqual(saved.widget_budget, {
      quotes_per_shopper_hour: 60,
      quotes_per_day: 250,
      monthly_quote_share_percent: 80,
      upload_storage_bytes: 100 * 1024 * 1024,
    });
    assert.match(await page.getByTestId('offer-source').innerText(), /Your offer/);
    await assertAccessible(page, 'offer saved');
    await page.evaluate(() => window.scrollTo(0, 0));
    await shoot(page, 'offer', true, false);

    const config = await widgetConfig();
    assert.deepEqual(names(config.materials), ['PLA', 'ASA', 'Nylon', 'PETG', 'TPU']);
    const colors = (list: (Named & { colors: string[] })[]) => list.find((m) => m.name === 'PLA')!.colors;
    assert.deepEqual(colors(config.materials).slice(-2), ['Signal red', colors(defaults.materials).at(-1)]);
    assert.deepEqual(
      [config.quantity, config.minimum_line_price, config.lead_time],
      [{ min: 1, max: 500 }, 10, LEAD_TIME],
    );
    assert.deepEqual(offered(config.qualities[0]), { id: 'draft', label: 'Draft · 0.3 mm', layer_height: 0.28 });
    assert.deepEqual(offered(config.qualities[3]), {
      id: 'extra-fine-0-08-mm',
      label: 'Extra fine · 0.08 mm',
      layer_height: 0.08,
    });
    assert.equal(config.qualities[3].slice_settings.printer.layer_height, 0.08, "the new preset's own settings");
    const previewed = await preview().evaluate((el) => (el as unknown as { config: typeof config }).config);
    assert.deepEqual(
      asOffered(previewed),
      asOffered(config),
      'the preview was built from exactly what the widget now offers',
    );
  });

  it('asks before leaving with unsaved changes, and keeps them when the merchant stays', async () => {
    await page.getByLabel('Lead time').fill('Ships tomorrow');
    const asked = new Promise<string>((resolve) => {
      page.once('dialog', (d) => void d.dismiss().then(() => resolve(d.message())));
    });
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Widget keys' }).click();
    assert.match(await asked, /unsaved changes/);
    await h1('Offer').waitFor();
    assert.ok(page.url().endsWith('#/offer'));
    assert.equal(await page.getByLabel('Lead time').inputValue(), 'Ships tomorrow');
    await button('Discard changes').click();
    assert.equal(await page.getByLabel('Lead time').inputValue(), LEAD_TIME);
  });

  it('lets a quality slice with an imported print preset, and the widget shows its layer height', async () => {
    const library = {
      vendor: 'PrusaResearch',
      printer: 'Original Prusa i3 MK3S & MK3S+',
      prints: ['0.15mm QUALITY @MK3'],
      filaments: [],
    };
    const imported = await fetch(`${server.url}/v2/profiles/import`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ library }),
    });
    assert.equal(imported.status, 201);
    const presetId = (await imported.json()).qualities[0].printer_profile as string;
    await page.reload();
    await h1('Offer').waitFor();
    const slicesWith = page.locator('#of-qualities-1-printer_profile');
    const layerBefore = (await widgetConfig()).qualities[1].layer_height;
    assert.equal(await slicesWith.inputValue(), '', 'the default printer profile until chosen');
    await slicesWith.selectOption({ label: 'Original Prusa i3 MK3S & MK3S+ — 0.15mm QUALITY @MK3' });
    await page.locator('#of-qualities-1-printer_config').getByText('as Original Prusa i3 MK3S').waitFor();
    await assertAccessible(page, 'a quality slicing with an imported print preset');
    await button('Save offer').click();
    await page.getByText('Offer saved. The widget offers it from now on.').waitFor();
    const saved = await (await fetch(`${server.url}/v2/offer`, { headers: auth() })).json();
    assert.equal(saved.qualities[1].printer_profile, presetId);
    const config = await widgetConfig();
    assert.equal(config.qualities[1].layer_height, 0.15, "the preset's layer height, not the printer profile's");
    const previewed = await preview().evaluate((el) => (el as unknown as { config: { qualities: Quality[] } }).config);
    assert.deepEqual(
      previewed.qualities.map(offered),
      config.qualities.map(offered),
      "the preview offers the widget's qualities",
    );

    const refused = await fetch(`${server.url}/v2/profiles/printer/${presetId}`, { method: 'DELETE', headers: auth() });
    assert.equal(refused.status, 409, 'a profile the offer slices with is not deleted');
    await slicesWith.selectOption({ label: 'Your default printer profile' });
    await button('Save offer').click();
    const back = await until('the offer saved with the default printer profile again', 30_000, async () => {
      const offer = await (await fetch(`${server.url}/v2/offer`, { headers: auth() })).json();
      return offer.qualities[1].printer_profile === undefined ? offer : undefined;
    });
    assert.equal(back.qualities[1].id, saved.qualities[1].id);
    assert.equal((await widgetConfig()).qualities[1].layer_height, layerBefore);
  });

  it('gives the widget key its own offer, then removes it', async () => {
    await page.goto(at('widget-keys'));
    await assertAccessible(page, 'widget keys with the offer column', ['iframe.widget-preview']);
    await page.getByRole('link', { name: 'Give own offer to main shop' }).click();
    await h1('Offer of widget key “main shop”').waitFor();
    assert.match(await page.getByTestId('offer-source').innerText(), /Uses the account offer/);
    for (const m of ['PLA', 'ASA', 'Nylon', 'TPU']) await button(`Remove material ${m}`).click();
    await page.getByLabel('Minimum quantity per line').fill('10');
    await button('Give this key its own offer').click();
    await page.getByText('Own offer of “main shop” saved.').waitFor();
    assert.match(await page.getByTestId('offer-source').innerText(), /Has its own offer/);
    await assertAccessible(page, "a widget key's own offer");
    await page.evaluate(() => window.scrollTo(0, 0));
    await shoot(page, 'offer-widget-key', true, false);

    const own = await widgetConfig();
    assert.deepEqual([names(own.materials), own.quantity.min], [['PETG'], 10]);
    const account = await (await fetch(`${server.url}/v2/offer`, { headers: auth() })).json();
    assert.equal(account.materials.length, 5, 'the account offer is unchanged');

    await page.goto(at('widget-keys'));
    await page.getByTestId('key-offer').getByText('Has its own offer').waitFor();
    await assertAccessible(page, "widget keys with a key's own offer", ['iframe.widget-preview']);
    await button('Remove the own offer of main shop').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove own offer' }).click();
    await page.getByText('"main shop" uses the account offer again.').waitFor();
    await page.getByTestId('key-offer').getByText('Uses the account offer').waitFor();
    assert.equal((await widgetConfig()).materials.length, 5);
  });

  it('reveals the quote signing secret, which verifies a real quote, and rotates it', async () => {
    const quote = await quoteViaApi(server.url, token);
    await page.goto(at('offer'));
    await page.getByRole('heading', { name: 'Quote signatures' }).waitFor();
    await button('Quote signing secret').click();
    assert.equal(await focusedId(), 'sig-h', 'the header button leads to the panel below the editor');
    assert.equal(await page.getByTestId('signing-secret').count(), 0, 'hidden until asked for');
    await button('Reveal secret').click();
    const secret = (await page.getByTestId('signing-secret').innerText()).trim();
    assert.match(secret, /^qss_/);
    assert.equal(
      hmac(secret, quote.signature.payload),
      quote.signature.hmac_sha256,
      'the secret shown verifies the quote',
    );
    const guide = await page.getByRole('link', { name: /docs\/quote-signatures\.md/ }).getAttribute('href');
    const doc = await fetch(new URL(guide!, host.origin));
    assert.match(doc.headers.get('content-type') ?? '', /^text\/markdown; charset=utf-8/);
    assert.match(await doc.text(), /^# Signed, expiring quotes/);
    await page.getByText('Node.js example').click();
    await page.locator('#sig-h').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await assertAccessible(page, 'quote signatures');
    await shoot(page, 'offer-signatures', true, false);

    await button('Rotate secret').click();
    const dialog = page.getByRole('dialog');
    assert.match(await dialog.innerText(), /stop verifying/);
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText('Secret rotated').waitFor();
    const rotated = (await page.getByTestId('signing-secret').innerText()).trim();
    assert.notEqual(rotated, secret);
    assert.notEqual(
      hmac(rotated, quote.signature.payload),
      quote.signature.hmac_sha256,
      'older signatures stop verifying',
    );
    const fresh = await quoteViaApi(server.url, token, 30);
    assert.equal(hmac(rotated, fresh.signature.payload), fresh.signature.hmac_sha256, 'new quotes use the new secret');
  });

  it('shows requests the client abandoned as cancelled, apart from errors', async () => {
    const file = await upload(server.url, token, corpusPath('stl', '3DBenchy.stl'));
    const gone = new AbortController();
    const abandoned = fetch(`${server.url}/v2/file/quote/${file}`, {
      method: 'POST',
      signal: gone.signal,
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ printer_config: { fill_density: 35 } }),
    });
    // Slicing 3DBenchy takes seconds: once it runs, the caller gives up.
    await until('the slice to start', 60_000, async () => {
      const rows = await server.deps.db.query(`SELECT 1 FROM quotes WHERE file_id = $1 AND status = 'processing'`, [
        file,
      ]);
      return rows.length ? true : undefined;
    });
    gone.abort();
    await assert.rejects(abandoned);
    assert.equal((await fetch(`${server.url}/v2/quotes/qt_none`, { headers: auth() })).status, 404);
    await page.goto(at('analytics'));
    await h1('Usage & analytics').waitFor();
    const totals = page.getByTestId('usage-totals');
    await totals.waitFor();
    // The totals count every request of the account a client left, the dashboard's own page loads cut short by a
    // navigation too; the abandoned quote is told apart in its endpoint's row below.
    assert.match(await totals.innerText(), /Cancelled\s+[1-9]\d*\b/);
    /** Calls, errors and cancelled of one endpoint's row. */
    const counts = async (route: RegExp) => {
      const row = page.getByTestId('endpoint-usage').getByRole('row', { name: route });
      return (await row.getByRole('cell').allInnerTexts()).slice(0, 3);
    };
    const quotes = await counts(/POST \/v2\/file\/quote\/:file_id/);
    assert.deepEqual(quotes.slice(1), ['0', '1'], 'the abandoned quote: no error, one cancelled');
    assert.deepEqual(
      await counts(/GET \/v2\/quotes\/:quote_id/),
      ['1', '1', '0'],
      'the 404 is an error, not cancelled',
    );
    await assertAccessible(page, 'usage with cancelled requests');
    const budget = page.getByTestId('widget-budget');
    assert.match(await budget.innerText(), /main shop[\s\S]*Quotes today\s+0 of 250[\s\S]*100 MB/);
  });
});

const hmac = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('hex');

async function upload(base: string, token: string, model = CUBE): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(model)]), path.basename(model));
  const res = await fetch(`${base}/v2/file`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return (await res.json()).file_id;
}

async function quoteViaApi(base: string, token: string, infill = 20) {
  const res = await fetch(`${base}/v2/file/quote/${await upload(base, token)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ printer_config: { fill_density: infill } }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as { signature: { payload: string; hmac_sha256: string } };
}

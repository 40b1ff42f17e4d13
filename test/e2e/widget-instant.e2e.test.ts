// The first price before the upload ends (docs/instant-price.md), in Debian's Chromium on the demo shop against a
// real server: the upload starts beside the browser's parse (the upload id is asked for before the estimate, which
// needs the parse); while the upload is held back, the estimate from the browser's measurements shows, marked and
// not for sale, the coarse stage's first and then the fine stage's; once the upload is let through the exact price replaces it and only then may the part be added to
// the cart. A model the parse refuses after its upload started is not kept by the server. A shopper who changes the
// infill of a small part sees the new choice's estimate, marked, before its exact price, and a time left that never
// goes up without its reason.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page, Request, Route } from 'playwright-core';
import { corpusPath } from '../helpers/corpus.ts';
import { until } from '../helpers/poll.ts';
import { holdEverySlicer, runningSlicers } from '../helpers/slicer-hold.ts';
import { chromiumMissing, widgetSuite } from './widget-env.ts';

const skip = chromiumMissing() ?? false;
const SLICE_TIMEOUT = 180_000;

const suite = widgetSuite(skip, { env: { RATE_LIMIT_ANON_PLAN: 'business' } });

/** The shop page with the widget's events and the API requests it sends, in the order the browser sends them. */
async function shopPage(): Promise<{ page: Page; requests: string[] }> {
  const page = await suite.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const requests: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/v2/')) requests.push(`${r.method()} ${url.pathname}`);
  });
  await page.goto(suite.env.shop.url);
  await page.evaluate(() => {
    const w = window as unknown as { sqEvents: { type: string; detail: any }[] };
    w.sqEvents = [];
    for (const type of ['sq-quote', 'sq-estimate', 'sq-error'])
      document.addEventListener(type, (e) => w.sqEvents.push({ type, detail: (e as CustomEvent).detail }));
  });
  await page.locator('slice-quote select#material').waitFor();
  return { page, requests };
}

const events = (page: Page, type: string): Promise<any[]> =>
  page.evaluate(
    (t) =>
      (window as unknown as { sqEvents: { type: string; detail: unknown }[] }).sqEvents
        .filter((e) => e.type === t)
        .map((e) => e.detail),
    type,
  );

test('an estimate before the upload ends, marked and not for sale; the exact price replaces it', {
  skip,
}, async () => {
  const { page, requests } = await shopPage();
  // The upload is held at the browser until the estimate has shown: the estimate cannot have come from it.
  let held: Route | null = null;
  await page.route('**/v2/file/public/**', (route) => {
    held = route;
  });
  try {
    await page.locator('slice-quote #file').setInputFiles(corpusPath('stl', '3DBenchy.stl'));
    const estimate = page.locator('slice-quote [part~=estimate]');
    await estimate.waitFor();
    assert.ok(held, 'the upload was sent before the estimate showed');
    const upload = requests.indexOf('GET /v2/file/upload-id');
    const estimated = requests.indexOf('POST /v2/widget/estimate');
    assert.ok(upload >= 0 && estimated > upload, `the upload starts before the parse ends: ${requests.join(', ')}`);
    assert.ok(!requests.some((r) => r.startsWith('POST /v2/file/quote')), 'no quote before the file has arrived');
    assert.equal(await estimate.getAttribute('data-estimate'), '', 'marked as an estimate in the markup');
    assert.equal(await page.locator('slice-quote [part~=add-button]').isDisabled(), true, 'an estimate is never sold');
    const [first] = await events(page, 'sq-estimate');
    assert.equal(first.file_id, null, 'told to the page before the file has arrived');
    assert.equal(first.estimate.method, 'coarse', "the first figure is the coarse stage's (one pass over the mesh)");
    // Then the fine stage's (the layers' polygons) replaces it, the upload still held.
    await until('the fine estimate', 120_000, async () =>
      (await events(page, 'sq-estimate')).length > 1 ? true : undefined,
    );
    const [, fine] = await events(page, 'sq-estimate');
    assert.notEqual(fine.estimate.method, 'coarse');
    assert.equal(fine.file_id, null, 'before the file has arrived too');
    const posted = requests.filter((r) => r === 'POST /v2/widget/estimate').length;
    assert.equal(posted, 2, 'one request per stage');
    assert.ok(first.estimate.price_range[0] <= first.estimate.total_price);
    // Its range shows only while at most ±15 % wide (a wider one would tell the shopper nothing).
    const [lo, hi] = fine.estimate.price_range;
    const narrow = (hi - lo) / 2 / fine.estimate.total_price <= 0.15;
    const words = narrow ? /≈[\s\S]*each[\s\S]*Estimate .+–.+ ·/ : /≈[\s\S]*each[\s\S]*Estimate · /;
    await until('the fine estimate shown', 30_000, async () =>
      words.test(await estimate.innerText()) ? true : undefined,
    );
    assert.equal((await events(page, 'sq-quote')).length, 0);
  } finally {
    await (held as Route | null)?.continue();
  }
  await page.locator('slice-quote .amount:not(.approx)').waitFor();
  assert.equal(await page.locator('slice-quote [part~=estimate]').count(), 0, 'the exact price replaced the estimate');
  const [quote] = await events(page, 'sq-quote');
  assert.ok(quote.total_price > 0 && quote.signature, 'the exact price, signed');
  assert.equal(await page.locator('slice-quote [part~=add-button]').isDisabled(), false, 'now it may be added');
  await page.close();
});

test('a model the parse refuses after its upload started is not kept', { skip }, async () => {
  const { page } = await shopPage();
  // The upload is stopped before it is sent, cut short on its way, or arrives and is deleted by the widget: the
  // widget's requests for it are followed until none is in flight and an upload that arrived was deleted.
  const inFlight = new Set<Request>();
  let arrived = false;
  let deleted = false;
  // Each of those requests and how it ended, named if the wait gives up.
  const seen: string[] = [];
  const ours = (r: Request) => new URL(r.url()).pathname.startsWith('/v2/file');
  const name = (r: Request) => `${r.method()} ${new URL(r.url()).pathname.split('/').slice(0, 4).join('/')}`;
  // The first deletion meets a busy server (503 with Retry-After, as a full queue answers): the widget asks again.
  let deletions = 0;
  await page.route('**/v2/file/*', (route) => {
    const request = route.request();
    if (request.method() !== 'DELETE' || deletions++ > 0) return route.fallback();
    return route.fulfill({
      status: 503,
      headers: {
        'content-type': 'application/json',
        'retry-after': '1',
        'access-control-allow-origin': request.headers().origin ?? '*',
        'access-control-expose-headers': 'Retry-After',
      },
      body: JSON.stringify({ error: { code: 'queue_full', message: 'Too busy; retry shortly.' } }),
    });
  });
  page.on('request', (r) => ours(r) && inFlight.add(r));
  page.on('requestfailed', (r) => {
    if (ours(r)) seen.push(`${name(r)}: failed (${r.failure()?.errorText})`);
    inFlight.delete(r);
  });
  page.on('requestfinished', async (r) => {
    if (!ours(r)) return;
    const status = (await r.response())?.status();
    seen.push(`${name(r)}: ${status}`);
    if (r.method() === 'POST' && new URL(r.url()).pathname.startsWith('/v2/file/public/') && status === 201)
      arrived = true;
    if (r.method() === 'DELETE' && status === 200) deleted = true;
    inFlight.delete(r);
  });
  await page.locator('slice-quote #file').setInputFiles(corpusPath('stl', 'too_big_400mm_cube.stl'));
  await page.waitForFunction(() =>
    (window as unknown as { sqEvents: { type: string; detail: any }[] }).sqEvents.some(
      (e) => e.type === 'sq-error' && e.detail.code === 'does_not_fit',
    ),
  );
  // A long wait names the requests that ended and those still in flight.
  const standing = () =>
    `the upload stopped or deleted; requests ended: ${seen.join(', ') || 'none'}; in flight: ${[...inFlight].map(name).join(', ') || 'none'}`;
  await until(standing, 60_000, () => (inFlight.size === 0 && (!arrived || deleted) ? true : undefined));
  if (arrived) assert.equal(deletions, 2, 'the deletion refused once was asked again, and done');
  const uploads = async () => {
    const res = await fetch(`${suite.env.server.url}/v2/user/uploads?limit=100`, {
      headers: { authorization: `Bearer ${suite.env.apiToken}` },
    });
    return ((await res.json()) as { data: { name: string }[] }).data.map((f) => f.name);
  };
  assert.ok(!(await uploads()).includes('too_big_400mm_cube.stl'), 'the server keeps nothing of it');
  await page.close();
});

test('a changed infill shows its estimate before its exact price; the time left never goes up without its reason', {
  skip,
}, async (t) => {
  const { page } = await shopPage();
  await page.locator('slice-quote #file').setInputFiles(corpusPath('stl', 'cube20_ascii.stl'));
  await page.locator('slice-quote .amount:not(.approx)').waitFor();
  const [first] = await events(page, 'sq-quote');
  // Prefetches (this upload's, an earlier test's 3DBenchy's) are dropped, and stop: the one slicer that runs next
  // is the new choice's.
  await until('prefetch planning done', 60_000, async () =>
    (await suite.env.server.deps.metrics.prefetchPlanning.get()).values[0]?.value === 0 ? true : undefined,
  );
  await suite.env.server.deps.db.query('DELETE FROM prefetches');
  await until('no slicer running', 120_000, () => (runningSlicers().length === 0 ? true : undefined));
  // Every time left the shopper is shown, in order.
  await page.evaluate(() => {
    const w = window as unknown as { timeLeft: string[] };
    w.timeLeft = [];
    const root = document.querySelector('slice-quote')!.shadowRoot!;
    new MutationObserver(() => {
      const words = root.querySelector('[part~=estimate-range]')?.textContent?.replace(/\s+/g, ' ').trim();
      const when = words?.split(' · ').at(-1);
      // A time left ("exact price soon" says there is none yet).
      if (when && /~\d|almost done|\d s/.test(when) && when !== w.timeLeft.at(-1)) w.timeLeft.push(when);
    }).observe(root, { subtree: true, childList: true, characterData: true });
  });
  const options = await page
    .locator('slice-quote select#infill option')
    .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
  // The densest first, then the others: each one a slice of its own.
  const choices = options.filter((v) => Number(v) !== first.fill_density).reverse();
  assert.ok(choices.length > 0);
  const timeLeft = () => page.evaluate(() => (window as unknown as { timeLeft: string[] }).timeLeft);
  const seconds = (w: string) => (/almost done/.test(w) ? 0 : Number(/~(\d+) s/.exec(w)?.[1] ?? Number.NaN));
  const wentUp = (shown: string[]) => shown.some((w, i) => i > 0 && seconds(w) > seconds(shown[i - 1]!));
  let chosen: string | undefined;
  for (const [attempt, choice] of choices.slice(0, 3).entries()) {
    const quotes = (await events(page, 'sq-quote')).length;
    if (await watchTimeLeftGoUp(choice, quotes)) {
      chosen = choice;
      break;
    }
    // The slice ended before it was held (a loaded host, a slice that came from one already running): its price
    // came as usual; the next choice is asked.
    t.diagnostic(`attempt ${attempt + 1}: the slice of infill ${choice} ended before it was held`);
    await until(`the exact price of infill ${choice}`, SLICE_TIMEOUT, async () =>
      (await events(page, 'sq-quote')).length > quotes ? true : undefined,
    );
  }
  assert.ok(chosen, 'a slice was held long enough for the time left to go up');
  const exact = (await events(page, 'sq-quote')).at(-1);
  assert.equal(exact.fill_density, Number(chosen));
  await page.locator('slice-quote .amount:not(.approx)').waitFor();
  const estimate = page.locator('slice-quote [part~=estimate]');
  assert.equal(await estimate.count(), 0, 'the exact price replaced the estimate');
  // What was shown counted down, said "almost done" rather than 0 s, and went up only with its reason in words.
  const shown = await timeLeft();
  assert.ok(
    shown.every((w) => Number.isFinite(seconds(w))),
    shown.join(' | '),
  );
  assert.ok(!shown.some((w) => /\b0 s|-\d/.test(w)), `never 0 s nor negative: ${shown.join(' | ')}`);
  for (let i = 1; i < shown.length; i++)
    if (seconds(shown[i]!) > seconds(shown[i - 1]!))
      assert.ok(
        shown[i]!.includes(' — slower than predicted'),
        `up from "${shown[i - 1]}" to "${shown[i]}" without its reason`,
      );
  await page.close();

  /**
   * Chooses `choice`: its estimate shows, marked and not sold, before its exact price (the quote is held at the
   * browser until then). Its slicer, and any other the server starts meanwhile, is held from the moment it runs, so
   * that it outruns its prediction on any machine (a prefetch claimed before its row was deleted starts its slicer
   * late; held in its place, the new choice's slice would run to its end in the other slot). True once the time left
   * went up; false when its price came first (the slice ended before it was held).
   */
  async function watchTimeLeftGoUp(choice: string, quotesBefore: number): Promise<boolean> {
    await page.evaluate(() => {
      (window as unknown as { timeLeft: string[] }).timeLeft.length = 0;
    });
    let held: Route | null = null;
    await page.route('**/v2/file/quote/**', (route) => {
      held = route;
    });
    await page.locator('slice-quote select#infill').selectOption(choice);
    const estimate = page.locator('slice-quote [part~=estimate]');
    await estimate.waitFor();
    assert.equal(await estimate.getAttribute('data-estimate'), '', 'marked as an estimate in the markup');
    assert.match(await estimate.innerText(), /≈[\s\S]*each[\s\S]*Estimate/);
    assert.equal(
      await page.locator('slice-quote [part~=amount]').count(),
      0,
      'the last price is not shown as this one',
    );
    const add = page.locator('slice-quote [part~=add-button]');
    assert.ok(
      (await add.isDisabled()) || (await add.getAttribute('aria-disabled')) === 'true',
      'an estimate is not sold',
    );
    assert.equal((await events(page, 'sq-quote')).length, quotesBefore, 'no exact price yet');
    const slicers = holdEverySlicer();
    t.after(() => slicers.release());
    await until('the quote request', 30_000, () => held ?? undefined);
    await (held as Route | null)!.continue();
    await page.unroute('**/v2/file/quote/**');
    const priced = async () => (await events(page, 'sq-quote')).length > quotesBefore;
    await until('the new choice slicing, or its price', 60_000, async () =>
      slicers.held().length || (await priced()) ? true : undefined,
    );
    // Held, the slice outruns its prediction again and again: the time left counts down, then goes up, saying why.
    let seen: string[] = [];
    const standing = () => `the time left going up (shown: ${seen.join(' | ') || 'none'}; held: ${slicers.held()})`;
    const up = await until(standing, 60_000, async () => {
      seen = await timeLeft();
      if (wentUp(seen)) return true;
      const errors = await events(page, 'sq-error');
      if (errors.length) throw new Error(`the widget showed an error: ${JSON.stringify(errors)}`);
      // Priced already, the estimate and its time left are gone: this choice's chance has passed.
      return (await priced()) ? false : undefined;
    });
    await slicers.release();
    if (up)
      await until('the exact price of the new choice', SLICE_TIMEOUT, async () =>
        (await priced()) ? true : undefined,
      );
    return up;
  }
});

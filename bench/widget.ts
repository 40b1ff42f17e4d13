// The storefront widget's numbers: bundle size (raw and gzip, target ≤ 200 KB gzip with three.js),
// and in headless Chromium, on the demo shop against a real server, the time from dropping 3DBenchy
// on the widget to its 3D preview, to the first price shown (the instant estimate, or the exact price
// when it comes first) and to the exact price, beside the bare PrusaSlicer CLI's time for the same
// mesh and settings in the same run (docs/instant-price.md: the exact price with pre-slicing should
// come within a second of the bare slicer). Each run gets a fresh server, so no slice is cached.
// Also the shop page's first paint and first contentful paint, the time until <slice-quote> has drawn
// its drop zone, and the widget script's bytes on the wire, each load in a fresh browser context (an
// empty cache), as a shopper's first visit.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { corpusPath } from '../test/helpers/corpus.ts';
import { bareSliceMs } from './slicer.ts';
import {
  chromiumMissing,
  ensureWidgetBuilt,
  launchChromium,
  startWidgetEnv,
  WIDGET_BUNDLE,
} from '../test/e2e/widget-env.ts';

const TARGET_GZIP_BYTES = 200 * 1024;

export async function benchWidget(opts: { runs?: number; loads?: number } = {}) {
  await ensureWidgetBuilt();
  const raw = readFileSync(WIDGET_BUNDLE);
  const gzip = gzipSync(raw, { level: 9 }).length;
  const bundle = {
    raw_bytes: raw.length,
    gzip_bytes: gzip,
    gzip_target_bytes: TARGET_GZIP_BYTES,
    within_target: gzip <= TARGET_GZIP_BYTES,
  };
  const missing = chromiumMissing();
  if (missing) return { bundle, browser: missing };

  const model = readFileSync(corpusPath('stl', '3DBenchy.stl'));
  const browser = await launchChromium();
  let pageLoads: Awaited<ReturnType<typeof pageLoad>>;
  const preview: number[] = [];
  const shown: number[] = [];
  const price: number[] = [];
  const bare: number[] = [];
  try {
    pageLoads = await pageLoad(browser, opts.loads ?? 5);
    for (let i = 0; i < (opts.runs ?? 3); i++) {
      const run = await dropAndTime(browser, model);
      preview.push(run.preview);
      shown.push(run.shown);
      price.push(run.price);
      bare.push(await bareSliceMs(corpusPath('stl', '3DBenchy.stl')));
    }
  } finally {
    await browser.close();
  }
  const ms = (xs: number[]) => ({ median: median(xs), runs: xs.map(Math.round) });
  return {
    bundle,
    page_load: pageLoads,
    model: { name: '3DBenchy.stl', bytes: model.length },
    drop_to_preview_ms: ms(preview),
    drop_to_first_price_shown_ms: ms(shown),
    drop_to_exact_price_ms: ms(price),
    bare_prusaslicer_ms: ms(bare),
    exact_price_minus_bare_slicer_ms: median(price) - median(bare),
  };
}

// Runs before the page's own scripts: notes when <slice-quote> is defined and when its shadow root holds the
// drop zone, on the clock of the paint entries (ms since navigation start). A string, so that no compiler
// helper is needed in the page.
const WATCH_DROPZONE = `
window.__sqTimes = new Promise(function (resolve) {
  customElements.whenDefined('slice-quote').then(function () {
    var defined = performance.now();
    var el = document.querySelector('slice-quote');
    var done = function () {
      if (!el.shadowRoot || !el.shadowRoot.querySelector('[part~=dropzone]')) return false;
      resolve({ defined: defined, dropzone: performance.now() });
      return true;
    };
    if (done()) return;
    var watch = new MutationObserver(function () { if (done()) watch.disconnect(); });
    watch.observe(el.shadowRoot, { childList: true, subtree: true });
  });
});`;

/** The demo shop's page loaded `loads` times, each in a fresh context: paints, the widget's drop zone, its bytes. */
async function pageLoad(browser: Browser, loads: number) {
  const env = await startWidgetEnv();
  const runs: { fp: number; fcp: number; defined: number; dropzone: number; bytes: number; encoding: string }[] = [];
  try {
    for (let i = 0; i < loads; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      try {
        const page = await context.newPage();
        await page.addInitScript({ content: WATCH_DROPZONE });
        const script = page.waitForResponse((r) => new URL(r.url()).pathname === '/widget/slice-quote.js');
        await page.goto(env.shop.url);
        const response = await script;
        const sizes = await response.request().sizes();
        const times = await page.evaluate(async () => {
          const w = window as unknown as { __sqTimes: Promise<{ defined: number; dropzone: number }> };
          const widget = await w.__sqTimes;
          while (performance.getEntriesByType('paint').length < 2) await new Promise((r) => setTimeout(r, 20));
          const paint = Object.fromEntries(performance.getEntriesByType('paint').map((e) => [e.name, e.startTime]));
          return { fp: paint['first-paint']!, fcp: paint['first-contentful-paint']!, ...widget };
        });
        runs.push({
          ...times,
          bytes: sizes.responseBodySize + sizes.responseHeadersSize,
          encoding: (await response.headerValue('content-encoding')) ?? 'identity',
        });
      } finally {
        await context.close();
      }
    }
  } finally {
    await env.stop();
  }
  const ms = (xs: number[]) => ({ median: median(xs), runs: xs.map(Math.round) });
  return {
    loads,
    first_paint_ms: ms(runs.map((r) => r.fp)),
    first_contentful_paint_ms: ms(runs.map((r) => r.fcp)),
    widget_defined_ms: ms(runs.map((r) => r.defined)),
    widget_dropzone_rendered_ms: ms(runs.map((r) => r.dropzone)),
    widget_script_transferred_bytes: median(runs.map((r) => r.bytes)),
    widget_script_encoding: runs[0]!.encoding,
  };
}

/** One shopper: open the shop, drop the model on the widget, time the preview and the price. */
async function dropAndTime(
  browser: Browser,
  model: Buffer,
): Promise<{ preview: number; shown: number; price: number }> {
  const env = await startWidgetEnv();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    // The model is handed to the page from memory, so file serving is not part of the measurement.
    await page.route('**/__bench/model.stl', (route) => route.fulfill({ body: model, contentType: 'model/stl' }));
    await page.goto(env.shop.url);
    await page.locator('slice-quote select#material').waitFor({ timeout: 30_000 });
    return await page.evaluate(async () => {
      const file = new File([await (await fetch('/__bench/model.stl')).arrayBuffer()], '3DBenchy.stl');
      const el = document.querySelector('slice-quote')!;
      const priced = new Promise((resolve) => el.addEventListener('sq-quote', resolve, { once: true }));
      const firstShown = Promise.race([
        priced,
        new Promise((resolve) => el.addEventListener('sq-estimate', resolve, { once: true })),
      ]);
      const drop = new DataTransfer();
      drop.items.add(file);
      const t0 = performance.now();
      el.dispatchEvent(new DragEvent('drop', { dataTransfer: drop, bubbles: true, composed: true, cancelable: true }));
      // Preview: the canvas is in place and one frame has been drawn into it.
      // (No named inner functions here: tsx would wrap them in a helper the page does not have.)
      while (!el.shadowRoot!.querySelector('canvas')) await new Promise((r) => requestAnimationFrame(r));
      await new Promise((r) => requestAnimationFrame(r));
      const preview = performance.now() - t0;
      await firstShown;
      const shown = performance.now() - t0;
      await priced;
      return { preview, shown, price: performance.now() - t0 };
    });
  } finally {
    await page.close();
    await env.stop();
  }
}

function median(values: number[]): number {
  if (values.length === 0) throw new Error('median of no samples');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return Math.round(sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2);
}

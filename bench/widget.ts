// The storefront widget's numbers: bundle size (raw and gzip, target ≤ 200 KB gzip with three.js),
// and in headless Chromium, on the demo shop against a real server, the time from dropping 3DBenchy
// on the widget to its 3D preview, to the first price shown (the instant estimate, or the exact price
// when it comes first) and to the exact price, beside the bare PrusaSlicer CLI's time for the same
// mesh and settings in the same run (docs/instant-price.md: the exact price with pre-slicing should
// come within a second of the bare slicer). Each run gets a fresh server, so no slice is cached.
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

export async function benchWidget(opts: { runs?: number } = {}) {
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
  const preview: number[] = [];
  const shown: number[] = [];
  const price: number[] = [];
  const bare: number[] = [];
  try {
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
    model: { name: '3DBenchy.stl', bytes: model.length },
    drop_to_preview_ms: ms(preview),
    drop_to_first_price_shown_ms: ms(shown),
    drop_to_exact_price_ms: ms(price),
    bare_prusaslicer_ms: ms(bare),
    exact_price_minus_bare_slicer_ms: median(price) - median(bare),
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

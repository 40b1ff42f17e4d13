// The storefront widget's numbers: bundle size (raw and gzip: the script a page loads at first visit, target
// ≤ 200 KB gzip with three.js, and beside it the parse worker's file, fetched once the page is idle),
// and in headless Chromium, on the demo shop against a real server, the time from dropping 3DBenchy
// on the widget to its 3D preview, the worker's own time measuring the estimate's coarse and fine features
// (target ≤ 400 ms for the fine ones), to the first price shown (the coarse stage's estimate, or the exact price
// when it comes first, target ≤ 1 s), to the fine stage's estimate and to the exact price, beside the bare PrusaSlicer CLI's time for the same
// mesh and settings in the same run (docs/instant-price.md: the exact price with pre-slicing should
// come within a second of the bare slicer). Each run gets a fresh server, so no slice is cached.
// The way from drop to exact price is split into its stages (upload, what is left of the server's parse after the
// last byte, queue, PrusaSlicer's run, G-code reading, answer; the upload's end → PrusaSlicer started, target
// ≤ 200 ms, and how long the server took to answer each estimate); after the first price, each of the offer's other
// choices is picked in turn and timed to its new exact price; and every time left the widget was told
// is compared with the wait that followed.
// Also the shop page's first paint and first contentful paint, the time until <slice-quote> has drawn
// its drop zone, and the widget script's bytes on the wire, each load in a fresh browser context (an
// empty cache), as a shopper's first visit.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import {
  chromiumMissing,
  ensureWidgetBuilt,
  launchChromium,
  startWidgetEnv,
  WIDGET_BUNDLE,
  WIDGET_WORKER,
} from '../test/e2e/widget-env.ts';
import { corpusPath } from '../test/helpers/corpus.ts';
import { AS_SHIPPED } from '../test/helpers/server.ts';
import { bareSliceMs } from './slicer.ts';

const TARGET_GZIP_BYTES = 200 * 1024;
const TARGET_FEATURES_MS = 400;
/** Drop → first price shown (issue 36). */
const TARGET_FIRST_PRICE_MS = 1000;
/** The upload's last byte → PrusaSlicer started on the default choices (issue 36). */
const TARGET_UPLOAD_END_TO_SLICER_MS = 200;

/** Raw and gzip (level 9) bytes of one built file. */
function fileSizes(file: string) {
  const raw = readFileSync(file);
  return { raw_bytes: raw.length, gzip_bytes: gzipSync(raw, { level: 9 }).length };
}

/**
 * The script a shop's page loads (held to the target: it is what the first visit waits for) and the worker's file
 * the script fetches once the page is idle; their sum is what a page fetches in all.
 */
function bundleSizes() {
  const script = fileSizes(WIDGET_BUNDLE);
  const worker = fileSizes(WIDGET_WORKER);
  return {
    script,
    worker,
    sum: { raw_bytes: script.raw_bytes + worker.raw_bytes, gzip_bytes: script.gzip_bytes + worker.gzip_bytes },
    gzip_target_bytes: TARGET_GZIP_BYTES,
    /** The script a page loads at first visit, without the worker's file fetched after it. */
    within_target: script.gzip_bytes <= TARGET_GZIP_BYTES,
  };
}

/** The upload speed of the throttled runs, Mbit/s. */
const THROTTLED_UPLOAD_MBPS = 20;

export async function benchWidget(opts: { runs?: number; loads?: number; throttledRuns?: number } = {}) {
  await ensureWidgetBuilt();
  const bundle = bundleSizes();
  printBundle(bundle);
  const missing = chromiumMissing();
  if (missing) return { bundle, browser: missing };

  const model = readFileSync(corpusPath('stl', '3DBenchy.stl'));
  const browser = await launchChromium();
  let pageLoads: Awaited<ReturnType<typeof pageLoad>>;
  const preview: number[] = [];
  const pauses: number[] = [];
  const features: number[] = [];
  const coarse: number[] = [];
  const shown: number[] = [];
  const fineShown: number[] = [];
  const price: number[] = [];
  const bare: number[] = [];
  const stages: Stages[] = [];
  const changes: Change[] = [];
  const timeLeft: TimeLeft[] = [];
  const throttled: { shown: number; uploaded: number }[] = [];
  const estimates: number[] = [];
  try {
    pageLoads = await pageLoad(browser, opts.loads ?? 5);
    for (let i = 0; i < (opts.runs ?? 3); i++) {
      // The option changes are timed in the first run only: each cold one is a whole slice.
      const run = await dropAndTime(browser, model, i === 0);
      preview.push(run.preview);
      pauses.push(run.pause);
      features.push(run.features);
      coarse.push(run.coarse);
      shown.push(run.shown);
      fineShown.push(run.fineShown);
      price.push(run.price);
      stages.push(run.stages);
      changes.push(...run.changes);
      timeLeft.push(...run.timeLeft);
      estimates.push(...run.estimates);
      bare.push(await bareSliceMs(corpusPath('stl', '3DBenchy.stl')));
    }
    // The same drop with the upload throttled as on a 20 Mbit/s line (Chromium's network emulation): the first
    // price should still come long before the 11 MB have arrived.
    for (let i = 0; i < (opts.throttledRuns ?? 2); i++) {
      const run = await dropAndTime(browser, model, false, THROTTLED_UPLOAD_MBPS);
      throttled.push({ shown: run.shown, uploaded: run.stages.upload });
    }
  } finally {
    await browser.close();
  }
  const ms = (xs: number[]) => ({ median: median(xs), runs: xs.map(Math.round) });
  const stageNames = Object.keys(stages[0]!) as (keyof Stages)[];
  const report = {
    bundle,
    page_load: pageLoads,
    model: { name: '3DBenchy.stl', bytes: model.length },
    drop_to_preview_ms: ms(preview),
    main_thread_longest_pause_while_parsing_ms: ms(pauses),
    worker_estimate_features_ms: {
      ...ms(features),
      target_ms: TARGET_FEATURES_MS,
      within_target: median(features) <= TARGET_FEATURES_MS,
    },
    worker_coarse_features_ms: ms(coarse),
    drop_to_first_price_shown_ms: {
      ...ms(shown),
      target_ms: TARGET_FIRST_PRICE_MS,
      within_target: median(shown) <= TARGET_FIRST_PRICE_MS,
    },
    drop_to_fine_estimate_shown_ms: ms(fineShown),
    drop_to_exact_price_ms: ms(price),
    bare_prusaslicer_ms: ms(bare),
    exact_price_minus_bare_slicer_ms: median(price) - median(bare),
    drop_to_exact_price_stages_ms: Object.fromEntries(stageNames.map((k) => [k, ms(stages.map((s) => s[k]))])),
    upload_end_to_slicer_start_ms: {
      ...ms(stages.map((s) => s.parse_measure + s.queue)),
      target_ms: TARGET_UPLOAD_END_TO_SLICER_MS,
      within_target: median(stages.map((s) => s.parse_measure + s.queue)) <= TARGET_UPLOAD_END_TO_SLICER_MS,
    },
    /** Request in → answer out, as the server saw each POST /v2/widget/estimate of the drops (most during the upload). */
    estimate_answered_by_server_ms: { ...ms(estimates), max: Math.round(Math.max(...estimates)) },
    option_change_to_exact_price_ms: changes.some((c) => !c.refused)
      ? {
          median: median(changes.filter((c) => !c.refused).map((c) => c.ms)),
          changes: changes.map((c) => ({ ...c, ms: Math.round(c.ms) })),
        }
      : null,
    time_left_error: timeLeftError(timeLeft),
    throttled_upload: {
      upload_mbps: THROTTLED_UPLOAD_MBPS,
      drop_to_first_price_shown_ms: ms(throttled.map((t) => t.shown)),
      drop_to_upload_received_ms: ms(throttled.map((t) => t.uploaded)),
    },
  };
  printTable(report);
  return report;
}

/** Where the time from drop to exact price went, in ms (see dropAndTime). */
interface Stages {
  /** Drop → the server has the upload's last byte (the upload id, the bytes). */
  upload: number;
  /** What is left of the server's parse after the last byte: the measurements, the canonical mesh (all of it, when the file was not read as it arrived). */
  parse_measure: number;
  /** The file stored → PrusaSlicer started on the default choices (the prefetch planned, queued, claimed). */
  queue: number;
  /** PrusaSlicer's run. */
  slice: number;
  /** Reading the G-code it wrote. */
  gcode_reading: number;
  /** The slice stored → the exact price shown (the quote answered from the slice, the widget told, drawn). */
  answer: number;
}

/** One option changed after the first price: ms to its exact price, or the code it was refused with. */
interface Change {
  choice: string;
  ms: number;
  cached: boolean;
  refused: string | null;
}

/** One time left the widget was told (s), and the wait that followed until the exact price (s). */
interface TimeLeft {
  announced: number;
  actual: number;
}

/** Median absolute error of the announced time left, in seconds and relative to the actual wait. */
function timeLeftError(samples: TimeLeft[]) {
  if (!samples.length) return null;
  const abs = samples.map((t) => Math.abs(t.announced - t.actual));
  const rel = samples.map((t) => Math.abs(t.announced - t.actual) / Math.max(t.actual, 0.5));
  return {
    announcements: samples.length,
    median_abs_error_s: Math.round(medianOf(abs) * 10) / 10,
    median_abs_error_relative: Math.round(medianOf(rel) * 1000) / 1000,
    samples: samples.map((t) => ({ announced_s: t.announced, actual_s: Math.round(t.actual * 10) / 10 })),
  };
}

function printBundle(b: ReturnType<typeof bundleSizes>) {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.error('\nwidget bundle (gzip level 9; raw)');
  console.error(
    `${'script a page loads (slice-quote.js)'.padEnd(60)} ${kb(b.script.gzip_bytes)}; ${kb(b.script.raw_bytes)}` +
      ` — target ${kb(b.gzip_target_bytes)}: ${b.within_target ? 'met' : 'MISSED'}`,
  );
  console.error(
    `${'worker, fetched at idle (slice-quote-worker.js)'.padEnd(60)} ${kb(b.worker.gzip_bytes)}; ${kb(b.worker.raw_bytes)}`,
  );
  console.error(`${'both'.padEnd(60)} ${kb(b.sum.gzip_bytes)}; ${kb(b.sum.raw_bytes)}`);
}

function printTable(r: {
  main_thread_longest_pause_while_parsing_ms: { median: number };
  worker_estimate_features_ms: { median: number; target_ms: number };
  worker_coarse_features_ms: { median: number };
  drop_to_exact_price_stages_ms: Record<string, { median: number }>;
  upload_end_to_slicer_start_ms: { median: number; target_ms: number };
  estimate_answered_by_server_ms: { median: number; max: number };
  drop_to_first_price_shown_ms: { median: number; target_ms: number };
  drop_to_fine_estimate_shown_ms: { median: number };
  drop_to_exact_price_ms: { median: number };
  bare_prusaslicer_ms: { median: number };
  exact_price_minus_bare_slicer_ms: number;
  option_change_to_exact_price_ms: { median: number; changes: { refused: string | null }[] } | null;
  time_left_error: ReturnType<typeof timeLeftError>;
  throttled_upload: { upload_mbps: number; drop_to_first_price_shown_ms: { median: number } };
}) {
  const rows: [string, string][] = [
    [
      "page's longest pause while the file is read and parsed",
      `${r.main_thread_longest_pause_while_parsing_ms.median} ms`,
    ],
    ["estimate's coarse features in the widget's worker", `${r.worker_coarse_features_ms.median} ms`],
    [
      "estimate's fine features in the widget's worker",
      `${r.worker_estimate_features_ms.median} ms (target ${r.worker_estimate_features_ms.target_ms} ms)`,
    ],
    ...Object.entries(r.drop_to_exact_price_stages_ms).map(([k, v]): [string, string] => [`  ${k}`, `${v.median} ms`]),
    [
      "upload's last byte → PrusaSlicer started",
      `${r.upload_end_to_slicer_start_ms.median} ms (target ${r.upload_end_to_slicer_start_ms.target_ms} ms)`,
    ],
    [
      'estimate answered by the server (median; longest)',
      `${r.estimate_answered_by_server_ms.median} ms; ${r.estimate_answered_by_server_ms.max} ms`,
    ],
    [
      'drop → first price shown (coarse estimate)',
      `${r.drop_to_first_price_shown_ms.median} ms (target ${r.drop_to_first_price_shown_ms.target_ms} ms)`,
    ],
    ['drop → fine estimate shown', `${r.drop_to_fine_estimate_shown_ms.median} ms`],
    ['drop → exact price', `${r.drop_to_exact_price_ms.median} ms`],
    ['bare PrusaSlicer CLI', `${r.bare_prusaslicer_ms.median} ms`],
    ['exact price − bare slicer', `${r.exact_price_minus_bare_slicer_ms} ms`],
  ];
  if (r.option_change_to_exact_price_ms)
    rows.push([
      `option change → exact price (median of ${r.option_change_to_exact_price_ms.changes.filter((c) => !c.refused).length} priced)`,
      `${r.option_change_to_exact_price_ms.median} ms`,
    ]);
  if (r.time_left_error)
    rows.push([
      `time left vs actual wait (${r.time_left_error.announcements} announced)`,
      `median |error| ${r.time_left_error.median_abs_error_s} s, ${Math.round(r.time_left_error.median_abs_error_relative * 100)} %`,
    ]);
  rows.push([
    `drop → first price shown, upload at ${r.throttled_upload.upload_mbps} Mbit/s`,
    `${r.throttled_upload.drop_to_first_price_shown_ms.median} ms`,
  ]);
  console.error('\nwidget, 3DBenchy (medians; stages of drop → exact price indented)');
  for (const [k, v] of rows) console.error(`${k.padEnd(60)} ${v}`);
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
  const env = await startWidgetEnv({ env: AS_SHIPPED });
  const runs: {
    fp: number;
    fcp: number;
    defined: number;
    dropzone: number;
    bytes: number;
    workerBytes: number;
    encoding: string;
  }[] = [];
  try {
    for (let i = 0; i < loads; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      try {
        const page = await context.newPage();
        await page.addInitScript({ content: WATCH_DROPZONE });
        const script = page.waitForResponse((r) => new URL(r.url()).pathname === '/widget/slice-quote.js');
        // The worker's code follows once the page is idle: not in the paints, but in what the first visit fetches.
        const worker = page.waitForResponse((r) => new URL(r.url()).pathname === '/widget/slice-quote-worker.js');
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
        const workerSizes = await (await worker).request().sizes();
        runs.push({
          ...times,
          bytes: sizes.responseBodySize + sizes.responseHeadersSize,
          workerBytes: workerSizes.responseBodySize + workerSizes.responseHeadersSize,
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
    widget_worker_transferred_bytes_at_idle: median(runs.map((r) => r.workerBytes)),
    widget_script_encoding: runs[0]!.encoding,
  };
}

/** What the server saw of a drop, in wall-clock ms (the browser's clock is the same machine's). */
interface ServerView {
  /** When each upload's last byte arrived. */
  lastBytes: number[];
  /** When each parse answered (read as the file arrived, or after). */
  parsed: number[];
  /** How long the server took to answer each estimate, request in → answer out. */
  estimates: number[];
}

function watchServer(env: Awaited<ReturnType<typeof startWidgetEnv>>): ServerView {
  const seen: ServerView = { lastBytes: [], parsed: [], estimates: [] };
  env.server.server.on('request', (req, res) => {
    const start = Date.now();
    if (req.method !== 'POST') return;
    if (req.url?.startsWith('/v2/file/public/')) req.once('end', () => seen.lastBytes.push(Date.now()));
    if (req.url?.startsWith('/v2/widget/estimate')) res.once('finish', () => seen.estimates.push(Date.now() - start));
  });
  const parser = env.server.deps.parser;
  const timed = async <T>(parse: Promise<T>) => {
    try {
      return await parse;
    } finally {
      seen.parsed.push(Date.now());
    }
  };
  const parse = parser.parse.bind(parser);
  parser.parse = (job, caller) => timed(parse(job, caller));
  const stream = parser.stream.bind(parser);
  parser.stream = (caller, preamble, body) => {
    const opened = stream(caller, preamble, body);
    return opened && { ...opened, parse: (job) => timed(opened.parse(job)) };
  };
  return seen;
}

/**
 * One shopper: open the shop, drop the model on the widget, time the preview and the price and the stages between;
 * then, if asked, pick each of the offer's other choices in turn and time each new exact price.
 */
async function dropAndTime(
  browser: Browser,
  model: Buffer,
  withChanges: boolean,
  uploadMbps?: number,
): Promise<{
  preview: number;
  features: number;
  coarse: number;
  /** The main thread's longest pause while the dropped file was read and parsed, ms. */
  pause: number;
  shown: number;
  /** The fine stage's estimate (or the quote's own, or the exact price, whichever came first). */
  fineShown: number;
  price: number;
  stages: Stages;
  changes: Change[];
  timeLeft: TimeLeft[];
  estimates: number[];
}> {
  const env = await startWidgetEnv({ env: AS_SHIPPED });
  const seen = watchServer(env);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  if (uploadMbps) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 20,
      downloadThroughput: -1,
      uploadThroughput: (uploadMbps * 1e6) / 8,
    });
  }
  // Every time left the widget is told, with when (wall clock, ms); matched with the exact price's arrival.
  const told: { at: number; remaining: number }[] = [];
  page.on('response', async (r) => {
    if (!/\/v2\/jobs\//.test(r.url())) return;
    const at = Date.now();
    const job = await r.json().catch(() => null);
    if (job?.expected_remaining_seconds) told.push({ at, remaining: job.expected_remaining_seconds });
  });
  try {
    // The model is handed to the page from memory, so file serving is not part of the measurement.
    await page.route('**/__bench/model.stl', (route) => route.fulfill({ body: model, contentType: 'model/stl' }));
    await page.goto(env.shop.url);
    await page.locator('slice-quote select#material').waitFor({ timeout: 30_000 });
    const times = await page.evaluate(async () => {
      const file = new File([await (await fetch('/__bench/model.stl')).arrayBuffer()], '3DBenchy.stl');
      const el = document.querySelector('slice-quote')!;
      const priced = new Promise<CustomEvent>((resolve) =>
        el.addEventListener('sq-quote', (e) => resolve(e as CustomEvent), { once: true }),
      );
      const firstShown = Promise.race([
        priced,
        new Promise((resolve) => el.addEventListener('sq-estimate', resolve, { once: true })),
      ]);
      // When the first figure and the first estimate that is not the coarse stage's (the fine stage's, or the
      // quote's own) were told, read when they happen: the preview, awaited first below, may come after them.
      let firstAt = 0;
      let fineAt = 0;
      el.addEventListener('sq-quote', () => {
        firstAt ||= performance.now();
      });
      el.addEventListener('sq-estimate', (e) => {
        firstAt ||= performance.now();
        if (!fineAt && (e as CustomEvent).detail.estimate.method !== 'coarse') fineAt = performance.now();
      });
      // The main thread's longest pause from the drop until the size badge is shown (the file read and parsed,
      // which the parse worker does off the page): the largest gap between a 10 ms timer's ticks.
      let lastTick = performance.now();
      let longestPause = 0;
      const ticker = setInterval(() => {
        const now = performance.now();
        longestPause = Math.max(longestPause, now - lastTick);
        lastTick = now;
      }, 10);
      const parsed = new Promise<number>((resolve) => {
        const watch = new MutationObserver(() => {
          if (!el.shadowRoot!.querySelector('[part~=dimensions]')) return;
          watch.disconnect();
          clearInterval(ticker);
          resolve(Math.max(longestPause, performance.now() - lastTick));
        });
        watch.observe(el.shadowRoot!, { childList: true, subtree: true });
      });
      const drop = new DataTransfer();
      drop.items.add(file);
      const wall0 = Date.now();
      const t0 = performance.now();
      el.dispatchEvent(new DragEvent('drop', { dataTransfer: drop, bubbles: true, composed: true, cancelable: true }));
      // Preview: the canvas is in place and one frame has been drawn into it.
      // (No named inner functions here: tsx would wrap them in a helper the page does not have.)
      while (!el.shadowRoot!.querySelector('canvas')) await new Promise((r) => requestAnimationFrame(r));
      await new Promise((r) => requestAnimationFrame(r));
      const preview = performance.now() - t0;
      await firstShown;
      const shown = firstAt - t0;
      const quote = (await priced).detail;
      const price = performance.now() - t0;
      const fineShown = (fineAt || performance.now()) - t0;
      // The worker's own time in each stage's features, recorded by the element as User Timing entries.
      const measured = performance.getEntriesByName('slice-quote:features');
      const features = measured.length === 1 ? measured[0]!.duration : null;
      const coarseMeasured = performance.getEntriesByName('slice-quote:coarse-features');
      const coarse = coarseMeasured.length === 1 ? coarseMeasured[0]!.duration : null;
      const pause = await parsed;
      return { wall0, preview, shown, fineShown, price, features, coarse, pause, quoteId: quote.quote_id as string };
    });
    if (times.features === null || times.coarse === null)
      throw new Error("the widget's worker measured no features for the estimate");
    const priceAt = times.wall0 + times.price;
    const stages = await stagesOf(env, seen, times.wall0, priceAt, times.quoteId);
    const timeLeft = told.splice(0).map((t) => ({ announced: t.remaining, actual: (priceAt - t.at) / 1000 }));
    const changes = withChanges ? await timeChanges(page, told, timeLeft) : [];
    return {
      preview: times.preview,
      features: times.features,
      coarse: times.coarse,
      pause: times.pause,
      shown: times.shown,
      fineShown: Math.min(times.fineShown, times.price),
      price: times.price,
      stages,
      changes,
      timeLeft,
      estimates: seen.estimates,
    };
  } finally {
    await page.close();
    await env.stop();
  }
}

/** The stages of drop → exact price, from what the server saw, the stored slice and the browser's clock. */
async function stagesOf(
  env: Awaited<ReturnType<typeof startWidgetEnv>>,
  seen: ServerView,
  dropAt: number,
  priceAt: number,
  quoteId: string,
): Promise<Stages> {
  const [slice] = await env.server.deps.db.query<{ stored: Date; duration_ms: number; gcode_read_ms: number | null }>(
    `SELECT s.created_at AS stored, s.duration_ms, s.gcode_read_ms FROM quotes q JOIN slices s ON s.key = q.slicing_key
     WHERE q.id = $1`,
    [quoteId],
  );
  const [lastByte] = seen.lastBytes;
  const [parsed] = seen.parsed;
  if (!slice || lastByte === undefined || parsed === undefined)
    throw new Error('the first price has no stored slice, upload or parse to split into stages');
  const stored = slice.stored.getTime();
  const sliceStart = stored - slice.duration_ms;
  const reading = slice.gcode_read_ms ?? 0;
  return {
    upload: lastByte - dropAt,
    parse_measure: parsed - lastByte,
    queue: sliceStart - parsed,
    slice: slice.duration_ms - reading,
    gcode_reading: reading,
    answer: priceAt - stored,
  };
}

/**
 * After the first price, each of the offer's other materials, qualities and infills in turn (the others at their
 * defaults): the time from the change to its exact price. Going back to the default between two is not timed.
 */
async function timeChanges(
  page: Page,
  told: { at: number; remaining: number }[],
  timeLeft: TimeLeft[],
): Promise<Change[]> {
  const selects = ['material', 'quality', 'infill'];
  const options = await page.evaluate((ids) => {
    const root = document.querySelector('slice-quote')!.shadowRoot!;
    return ids.map((id) => {
      const select = root.querySelector<HTMLSelectElement>(`select#${id}`)!;
      return { id, current: select.value, values: [...select.options].map((o) => o.value) };
    });
  }, selects);
  const out: Change[] = [];
  for (const { id, current, values } of options) {
    for (const value of values.filter((v) => v !== current)) {
      const changed = await choose(page, id, value);
      // A choice the shop refuses (e.g. model_too_complex: fine layers predicted past max_slice_seconds) has no price.
      out.push({ choice: `${id}=${value}`, ms: changed.ms, cached: changed.cached, refused: changed.error });
      const at = changed.wallAt;
      timeLeft.push(...told.splice(0).map((t) => ({ announced: t.remaining, actual: (at - t.at) / 1000 })));
      await choose(page, id, current);
      told.splice(0);
    }
  }
  return out;
}

/** Picks `value` in the widget's select `id` and waits for the price of it: ms from the change, cached or not. */
function choose(page: Page, id: string, value: string) {
  return page.evaluate(
    async ([id, value]) => {
      const el = document.querySelector('slice-quote')!;
      const select = el.shadowRoot!.querySelector<HTMLSelectElement>(`select#${id}`)!;
      // (Inline listeners only: tsx would wrap a named inner function in a helper the page does not have.)
      const done = new AbortController();
      const priced = new Promise<CustomEvent>((resolve) => {
        el.addEventListener(
          'sq-quote',
          (e) => {
            const d = (e as CustomEvent).detail;
            if ((id === 'infill' ? String(d.fill_density) : d[id]) !== value) return;
            done.abort();
            resolve(e as CustomEvent);
          },
          { signal: done.signal },
        );
        // A refused change (a budget, a slice that failed) ends the wait too, and says so.
        el.addEventListener('sq-error', (e) => resolve(e as CustomEvent), { signal: done.signal });
      });
      const t0 = performance.now();
      select.value = value;
      select.dispatchEvent(new Event('change'));
      const detail = (await priced).detail;
      const error = 'code' in detail && !('quote_id' in detail) ? (detail.code as string) : null;
      return { ms: performance.now() - t0, cached: detail.cached === true, wallAt: Date.now(), error };
    },
    [id, value] as const,
  );
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function median(values: number[]): number {
  if (values.length === 0) throw new Error('median of no samples');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return Math.round(sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2);
}

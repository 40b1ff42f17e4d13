// The first price before the upload ends, and the exact one right behind the slicer (docs/instant-price.md): the
// widget configuration publishes the slice settings of the offer's default choices (never its cost model); the
// estimate endpoint prices features a browser measured with them, for widget keys only, within bounds that name
// the field; materials are prefetched as well as qualities and infills; a job read with `Prefer: wait` answers the
// moment the job finishes and says its step in plain words and its time left; a shopper may delete their own
// upload, not once it is in a cart. Real slices, real parse workers.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { PREFETCH_PER_UPLOAD } from '../../server/quotes/prefetch.ts';
import {
  type CoarseFeatures,
  type EstimateSettings,
  extractCoarseFeatures,
  extractFeatures,
  type Features,
} from '../../shared/estimate/index.ts';
import { parseModel } from '../../shared/model/index.ts';
import { boxesObj } from '../helpers/meshes.ts';
import { until } from '../helpers/poll.ts';
import { type ApiClient, merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';
import { widgetShopper } from '../helpers/shopper.ts';
import { holdSlicers, someSlicers } from '../helpers/slicer-hold.ts';

const SHOP = 'https://first-price.example';
const METRICS_TOKEN = 'scrape-secret';
const BENCHY = readFileSync(new URL('../fixtures/models/stl/3DBenchy.stl', import.meta.url));
// PLA and ABS differ only in what never changes a slice (one slice for both); PETG retracts further (its own).
const OFFER = {
  materials: [
    { material: 'PLA', colors: ['White'] },
    { material: 'ABS', colors: ['Black'] },
    { material: 'PETG', colors: ['Clear'] },
  ],
  default_material: 'PLA',
  qualities: [
    { id: 'standard', label: 'Standard 0.2 mm', printer_config: {} },
    { id: 'draft', label: 'Draft 0.3 mm', printer_config: { layer_height: 0.3 } },
  ],
  default_quality: 'standard',
  infill_options: [15, 25],
  default_infill: 15,
  quantity: { min: 1, max: 20 },
  // Far below the small parts' prices (null would take the shipped 1.00), so materials are told apart by price.
  minimum_price: 0.01,
  minimum_line_price: null,
  lead_time: null,
};

let server: TestServer;
let api: ApiClient;
let key: string;

before(async () => {
  // One slicer and no short lane, so that a quote waits behind another and its time left counts the one ahead.
  server = await startTestServer({
    RATE_LIMIT_ANON_PLAN: 'business',
    SLICER_CONCURRENCY: '1',
    SLICER_SHORT_LANE: '0',
    PREFETCH_MAX_SECONDS: '20', // the product's default: a shopper's likely choices are sliced before they ask
    METRICS_TOKEN,
  });
  ({ api, key } = await merchantShop(server, 'first-price@example.test', SHOP));
  assert.equal((await api.put('/v2/offer', OFFER)).status, 200);
});
after(() => server.stop());

const shopper = () => widgetShopper(server, key, SHOP);
const prefetchesSliced = async () => {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  return Number(/slicequote_prefetches_total\{outcome="sliced"\} (\d+)/.exec(await res.text())?.[1] ?? 0);
};
const part = (x: number, y: number, z: number) => new TextEncoder().encode(boxesObj([[0, 0, 0, x, y, z]]));

/** What the widget's worker does: the estimator's features of the parsed mesh, with the published settings. */
function browserFeatures(bytes: Uint8Array, settings: EstimateSettings): Features {
  return extractFeatures(parseModel(bytes, 'obj').mesh, settings);
}

/** The coarse stage's features, what the worker sends first (one pass over the triangles). */
function browserCoarse(bytes: Uint8Array, settings: EstimateSettings): CoarseFeatures {
  return extractCoarseFeatures(parseModel(bytes, 'obj').mesh, settings);
}

async function publishedSettings(): Promise<EstimateSettings> {
  const config = await shopper().get('/v2/widget/config');
  assert.equal(config.status, 200, JSON.stringify(config.body));
  return config.body.slice_settings;
}

test('the configuration publishes what the default choices slice with, and none of the cost model', async () => {
  const settings = (await publishedSettings()) as unknown as { printer: Record<string, unknown>; material: object };
  assert.equal(settings.printer.layer_height, 0.2);
  assert.equal(settings.printer.fill_density, 15, "the offer's default infill");
  assert.equal(typeof settings.printer.perimeters, 'number');
  for (const price of ['hourly_cost', 'power_watts']) assert.ok(!(price in settings.printer), `${price} stays private`);
  assert.deepEqual(Object.keys(settings.material).sort(), ['density', 'diameter']);
});

test("each quality publishes what it slices with: a changed choice's features, measured in the browser, are priced", async () => {
  const s = shopper();
  const config = (await s.get('/v2/widget/config')).body;
  const byId = Object.fromEntries(config.qualities.map((q: { id: string }) => [q.id, q]));
  assert.deepEqual(byId.standard.slice_settings, config.slice_settings, 'the default quality: the default settings');
  assert.equal(byId.draft.slice_settings.printer.layer_height, 0.3);
  for (const price of ['hourly_cost', 'power_watts'])
    assert.ok(!(price in byId.draft.slice_settings.printer), `${price} stays private`);
  // The shopper changes to draft and 25 % infill: the widget measures with the draft settings, its infill set.
  const draft = byId.draft.slice_settings as EstimateSettings;
  const changed = { ...draft, printer: { ...draft.printer, fill_density: 25 } };
  const bytes = part(20, 20, 20);
  const res = await s.post('/v2/widget/estimate', {
    features: browserFeatures(bytes, changed),
    choices: { quality: 'draft', infill: 25 },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual([res.body.choices.quality, res.body.choices.infill], ['draft', 25]);
  const standard = await s.post('/v2/widget/estimate', { features: browserFeatures(bytes, config.slice_settings) });
  assert.ok(
    res.body.estimate.filament_weight > standard.body.estimate.filament_weight,
    'more infill weighs more, as the slice will',
  );
  // Measured with the default infill but priced at 25 %: refused, so the widget never shows another choice's price.
  const stale = await s.post('/v2/widget/estimate', {
    features: browserFeatures(bytes, draft),
    choices: { quality: 'draft', infill: 25 },
  });
  assert.equal(stale.status, 422);
});

test('features measured in the browser are priced as an estimate: marked, with its range, not cartable', async () => {
  const s = shopper();
  const bytes = part(30, 20, 10);
  const res = await s.post('/v2/widget/estimate', { features: browserFeatures(bytes, await publishedSettings()) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const { estimate, choices } = res.body;
  assert.deepEqual([choices.material, choices.quality, choices.infill], ['PLA', 'standard', 15]);
  assert.ok(estimate.total_price > 0 && estimate.currency);
  assert.ok(estimate.price_range[0] <= estimate.total_price && estimate.total_price <= estimate.price_range[1]);
  assert.ok(
    estimate.weight_range[0] <= estimate.filament_weight && estimate.filament_weight <= estimate.weight_range[1],
  );
  assert.ok(!('quote_id' in res.body) && !('signature' in estimate), 'nothing to put in a cart');
  // Counted as a write, not in the quote class: a shopper's estimates never take the place of their quotes.
  const plans = JSON.parse(readFileSync(new URL('../../server/plans.json', import.meta.url), 'utf8'));
  assert.equal(Number(res.headers.get('x-ratelimit-limit')), plans.business.rate_limits.write.limit);
  assert.notEqual(plans.business.rate_limits.write.limit, plans.business.rate_limits.quote.limit);
  // The same part, uploaded and sliced: the exact weight is expected inside the estimate's range.
  const fileId = await s.upload(bytes, 'box.obj');
  const exact = await s.post(`/v2/file/quote/${fileId}`, { choices: {} });
  assert.equal(exact.status, 200, JSON.stringify(exact.body));
  const [lo, hi] = estimate.weight_range;
  assert.ok(lo <= exact.body.filament_weight && exact.body.filament_weight <= hi, JSON.stringify({ estimate, exact }));
  // A material of another price: the same features, priced with that material.
  const petg = await s.post('/v2/widget/estimate', {
    features: browserFeatures(bytes, await publishedSettings()),
    choices: { material: 'PETG' },
  });
  assert.equal(petg.status, 200, JSON.stringify(petg.body));
  assert.notEqual(petg.body.estimate.total_price, estimate.total_price);
});

test("the coarse stage's features are priced too: marked coarse, with the coarse stage's own range", async () => {
  const s = shopper();
  const settings = await publishedSettings();
  const bytes = part(30, 20, 10);
  const coarse = await s.post('/v2/widget/estimate', { coarse_features: browserCoarse(bytes, settings) });
  assert.equal(coarse.status, 200, JSON.stringify(coarse.body));
  const { estimate } = coarse.body;
  assert.equal(estimate.method, 'coarse', 'says which stage made it');
  assert.equal(estimate.calibration, 'shipped', 'the coarse calibration is the shipped one');
  assert.ok(estimate.samples > 0, 'calibrated on real slices');
  assert.ok(estimate.price_range[0] <= estimate.total_price && estimate.total_price <= estimate.price_range[1]);
  assert.ok(!('quote_id' in coarse.body) && !('signature' in estimate), 'nothing to put in a cart');
  const fine = await s.post('/v2/widget/estimate', { features: browserFeatures(bytes, settings) });
  assert.notEqual(fine.body.estimate.method, 'coarse');
  // The same part sliced (an earlier test sliced it: from the cache): its weight is inside the coarse range too.
  const fileId = await s.upload(bytes, 'box.obj');
  const exact = await s.post(`/v2/file/quote/${fileId}`, { choices: {} });
  assert.equal(exact.status, 200, JSON.stringify(exact.body));
  const [lo, hi] = estimate.weight_range;
  assert.ok(lo <= exact.body.filament_weight && exact.body.filament_weight <= hi, JSON.stringify({ estimate, exact }));
});

test('coarse features are bounded as the fine ones: 4xx naming coarse_features; one set at a time', async () => {
  const s = shopper();
  const settings = await publishedSettings();
  const coarse = browserCoarse(part(10, 10, 10), settings);
  const refused = async (body: unknown, status: number, field: RegExp) => {
    const res = await s.post('/v2/widget/estimate', body);
    assert.equal(res.status, status, JSON.stringify(res.body));
    const named = [res.body.error.details?.fields?.[0]?.field, res.body.error.message];
    assert.ok(
      named.some((f) => typeof f === 'string' && field.test(f)),
      `${field} named: ${JSON.stringify(res.body.error)}`,
    );
  };
  await refused({ features: browserFeatures(part(10, 10, 10), settings), coarse_features: coarse }, 400, /^coarse_/);
  await refused({ coarse_features: { ...coarse, layers: 'many' } }, 400, /^coarse_features/);
  const wide = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`f${i}`, i]));
  await refused({ coarse_features: wide }, 400, /^coarse_features/);
  await refused({ coarse_features: { ...coarse, basis: { a: { deeper: 1 } } } }, 400, /^coarse_features/);
  const draft = { ...settings, printer: { ...settings.printer, layer_height: 0.3 } };
  await refused({ coarse_features: browserCoarse(part(10, 10, 10), draft) }, 422, /^coarse_features$/);
  await refused({ coarse_features: { ...coarse, coarse_version: 999 } }, 422, /^coarse_features$/);
  const huge = { ...coarse, volume_terms: Object.fromEntries(Object.keys(coarse.volume_terms).map((k) => [k, 1e300])) };
  await refused({ coarse_features: huge }, 422, /^coarse_features$/);
  await refused({ coarse_features: { ...coarse, volume_terms: null, time_terms: 7 } }, 422, /^coarse_features$/);
  // Fine features sent as coarse ones (or the reverse): not the stage's features.
  await refused({ coarse_features: browserFeatures(part(10, 10, 10), settings) }, 422, /^coarse_features$/);
  await refused({ features: coarse }, 422, /^features$/);
  assert.equal((await api.post('/v2/widget/estimate', { coarse_features: coarse })).status, 401);
});

test('the estimate endpoint is bounded: 4xx naming the field, widget keys only', async () => {
  const s = shopper();
  const settings = await publishedSettings();
  const features = browserFeatures(part(10, 10, 10), settings);
  const refused = async (body: unknown, status: number, field: RegExp) => {
    const res = await s.post('/v2/widget/estimate', body);
    assert.equal(res.status, status, JSON.stringify(res.body));
    const named = [res.body.error.details?.fields?.[0]?.field, res.body.error.details?.field, res.body.error.message];
    assert.ok(
      named.some((f) => typeof f === 'string' && field.test(f)),
      `${field} named: ${JSON.stringify(res.body.error)}`,
    );
  };
  await refused({}, 400, /^features/);
  await refused({ features: { ...features, layers: 'many' } }, 400, /^features/);
  await refused({ features: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`f${i}`, i])) }, 400, /^features/);
  await refused({ features: { ...features, basis: { a: { deeper: 1 } } } }, 400, /^features/);
  await refused({ features, choices: { material: 'Unobtainium' } }, 400, /^choices\.material/);
  await refused({ features, mesh: [1, 2, 3] }, 400, /mesh/);
  // Measured with other settings than the ones priced (draft layers, priced at standard): measure again.
  const draft = { ...settings, printer: { ...settings.printer, layer_height: 0.3 } };
  await refused({ features: browserFeatures(part(10, 10, 10), draft) }, 422, /^features$/);
  const asDraft = await s.post('/v2/widget/estimate', {
    features: browserFeatures(part(10, 10, 10), draft),
    choices: { quality: 'draft' },
  });
  assert.equal(asDraft.status, 200, 'the same features for the draft choice');
  // Numbers no mesh has: refused, never a 5xx or a price of nothing.
  const huge = {
    ...features,
    volume_terms: Object.fromEntries(Object.keys(features.volume_terms).map((k) => [k, 1e300])),
  };
  await refused({ features: huge }, 422, /^features$/);
  const negative = {
    ...features,
    time_terms: Object.fromEntries(Object.keys(features.time_terms).map((k) => [k, -1e6])),
  };
  await refused({ features: negative }, 422, /^features$/);
  await refused({ features: { ...features, version: 999 } }, 422, /^features$/);
  await refused({ features: { ...features, volume_terms: null, time_terms: 7 } }, 422, /^features$/);
  // A merchant's token or no key at all: not this endpoint's callers.
  assert.equal((await api.post('/v2/widget/estimate', { features })).status, 401);
  assert.equal((await server.client().post('/v2/widget/estimate', { features })).status, 401);
});

test("a shopper's upload prefetches other materials too, one slice for materials that slice alike", async () => {
  const s = shopper();
  // Earlier uploads' prefetches done first, so that the count below is this upload's.
  let left: unknown[] = [];
  await until('no prefetch left', 240_000, async () => {
    left = await server.deps.db.query(
      'SELECT slicing_key, file_id, attempts, lease_owner, lease_expires_at, expires_at FROM prefetches',
    );
    return left.length ? undefined : true;
  }).catch((err) => {
    throw new Error(`${err.message}: ${JSON.stringify(left)}`);
  });
  const before = await prefetchesSliced();
  const fileId = await s.upload(part(12, 12, 6), 'bracket.obj');
  // Every distinct slice of this offer, within the per-upload bound: the defaults, then in turns another material
  // (ABS slices as PLA does, so PETG), the draft quality and the other infill. Each is in the slice cache once its
  // prefetch has run.
  const distinct = 4;
  assert.ok(PREFETCH_PER_UPLOAD >= distinct);
  await until('the prefetches of the upload', 240_000, async () =>
    (await prefetchesSliced()) - before === distinct ? true : undefined,
  );
  for (const material of ['PETG', 'ABS', 'PLA']) {
    const q = await s.post(`/v2/file/quote/${fileId}`, { choices: { material } });
    assert.equal(q.status, 200, JSON.stringify(q.body));
    assert.equal(q.body.cached, true, `${material} was sliced before the shopper asked`);
  }
});

test('a job read with Prefer: wait answers when the job finishes; a queued job says so and its time left', async (t) => {
  const s = shopper();
  // A Benchy holds the one slicer; a small part asked for meanwhile waits behind it. Its slicer is held (stopped)
  // the moment it runs: the answer to its request waits for its estimate, which a loaded host can make slower
  // than the slice itself.
  const benchy = await api.uploadBytes('/v2/file', BENCHY, 'benchy.stl');
  const asking = api.post(`/v2/file/quote/${benchy.body.file_id}/async`, { printer_config: { fill_density: 37 } });
  const held = holdSlicers(await until('the Benchy slicing', 120_000, () => someSlicers()));
  t.after(() => held.release());
  assert.equal((await asking).status, 202);
  const fileId = await s.upload(part(15, 15, 5), 'queued.obj');
  await server.deps.db.query('DELETE FROM prefetches WHERE file_id = $1', [fileId]); // about the quote's own wait
  const mine = await s.post(`/v2/file/quote/${fileId}/async`, { choices: { infill: 25 } });
  assert.equal(mine.status, 202);
  const queued = await s.get(`/v2/jobs/${mine.body.job_id}`);
  assert.equal(queued.status, 200);
  assert.equal(queued.body.status, 'queued');
  assert.equal(queued.body.step, 'queued');
  assert.ok(queued.body.expected_remaining_seconds >= 1, 'the time left counts the slice ahead and its own');
  assert.equal(queued.headers.get('preference-applied'), null, 'no wait without asking');
  // Why it is longer than its own slice: the Benchy ahead of it.
  assert.equal(queued.body.expected_remaining_reason, 'queue');
  assert.ok(queued.body.slices_ahead >= 1, JSON.stringify(queued.body));
  // The Benchy outruns its prediction (the server's clock moved past it): its time left grows, and says why.
  const benchyJob = (await asking).body.job_id;
  const [row] = await server.deps.db.query<{ predicted_s: number }>('SELECT predicted_s FROM quotes WHERE id = $1', [
    benchyJob,
  ]);
  const predicted_s = row!.predicted_s;
  const before = (await api.get(`/v2/jobs/${benchyJob}`)).body;
  assert.equal(before.status, 'processing');
  assert.equal(before.slices_ahead, null, 'slicing: nothing ahead of it');
  server.clock.advance(Math.ceil(predicted_s * 2 + 5) * 1000);
  // On a loaded host the slice may already have outrun its prediction on the real clock before the jump, and a read
  // may come before the heartbeat that follows the jump: wait for the end that heartbeat sets.
  const slower = await until(
    'the held Benchy said to be slower than predicted, with half its time more',
    30_000,
    async () => {
      const job = (await api.get(`/v2/jobs/${benchyJob}`)).body;
      return job.expected_remaining_reason === 'slower_than_predicted' && job.expected_remaining_seconds >= predicted_s
        ? job
        : undefined;
    },
  );
  assert.equal(slower.status, 'processing');
  assert.ok(slower.expected_remaining_seconds >= predicted_s, 'half the time it has taken more');
  // A read held with Prefer: wait tells the time left as of its answer: the job moved on while it was held (its
  // expected end pushed back: the server's clock jumped, then stood still), and the answer says so.
  server.clock.freeze();
  try {
    const heldRead = api.request('GET', `/v2/jobs/${benchyJob}`, { headers: { prefer: 'wait=5' } });
    server.clock.advance(60_000);
    const answered = (await heldRead).body;
    const after = (await api.get(`/v2/jobs/${benchyJob}`)).body;
    assert.equal(answered.status, 'processing');
    assert.ok(answered.expected_remaining_seconds > 30, JSON.stringify(answered));
    assert.equal(answered.expected_remaining_seconds, after.expected_remaining_seconds, 'not the figure of its start');
  } finally {
    server.clock.resume();
  }
  held.release();
  // Each read waits for the end (at most 10 s): the last one carries the result.
  const done = await until('the queued quote', 240_000, async () => {
    const job = await s.request('GET', `/v2/jobs/${mine.body.job_id}`, { prefer: 'wait=10' });
    assert.equal(job.headers.get('preference-applied'), 'wait=10');
    assert.ok(job.body.step === null || ['queued', 'preparing', 'slicing', 'pricing'].includes(job.body.step));
    assert.ok(!/=>|G-code|gcode/i.test(String(job.body.step)), 'no slicer jargon in the step');
    return job.body.status === 'completed' ? job.body : undefined;
  });
  assert.equal(done.step, null);
  assert.equal(done.expected_remaining_seconds, null);
  assert.ok(done.result.total_price > 0);
});

test("a shopper deletes their own upload, not another shopper's, and not once it is in a cart", async () => {
  const s = shopper();
  const other = shopper();
  const refusedLater = await s.upload(part(11, 11, 11), 'refused.obj');
  assert.equal((await other.request('DELETE', `/v2/file/${refusedLater}`)).status, 404);
  const del = await s.request('DELETE', `/v2/file/${refusedLater}`);
  assert.equal(del.status, 200, JSON.stringify(del.body));
  assert.equal((await api.get(`/v2/file/${refusedLater}`)).status, 404, 'gone for the merchant too');
  const bought = await s.upload(part(9, 9, 9), 'bought.obj');
  const quote = await s.post(`/v2/file/quote/${bought}`, { choices: {} });
  const done =
    quote.status === 200
      ? quote.body
      : await until('the quote', 120_000, async () => {
          const job = (await s.get(`/v2/jobs/${quote.body.job_id}`)).body;
          return job.status === 'completed' ? job.result : undefined;
        });
  assert.equal((await s.post('/v2/widget/cart', { quote_id: done.quote_id, quantity: 1 })).status, 201);
  const kept = await s.request('DELETE', `/v2/file/${bought}`);
  assert.equal(kept.status, 409);
  assert.equal(kept.body.error.code, 'file_in_cart');
});

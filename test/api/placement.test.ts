// Units, scale and orientation as a shopper and a merchant meet them: inch models, parts that fit only lying down
// or turned, parts that fit nowhere, and rescaling tried the hostile way. Prices are checked against a bare
// PrusaSlicer run on the same effective geometry.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sliceOnce } from '../../server/slicer/engine.ts';
import { printStats } from '../../server/slicer/print-stats.ts';
import { corpusPath } from '../helpers/corpus.ts';
import { boxesObj } from '../helpers/meshes.ts';
import { type ApiClient, startTestServer, type TestServer, testDbKind } from '../helpers/server.ts';

const SHOP = 'https://shop.example';
const enc = (s: string) => new TextEncoder().encode(s);
const onlyOnce = testDbKind() === 'postgres' && 'slicing does not depend on the database; runs once, on PGlite';

let server: TestServer;
let api: ApiClient;
let widgetKey: string;
let meshDir: string;

before(async () => {
  server = await startTestServer();
  const a = await server.newAccount();
  api = server.client(a.token);
  meshDir = mkdtempSync(path.join(tmpdir(), 'sq-placement-'));
  const dashboard = server.client();
  const signup = await dashboard.post('/dashboard/api/signup', {
    email: `placement-${Date.now()}@example.test`,
    password: 'a long enough password',
  });
  dashboard.csrf = signup.body.csrf_token;
  widgetKey = (await dashboard.post('/dashboard/api/widget-keys', { name: 'Shop', allowed_origins: [SHOP] })).body.key;
  shopToken = (await dashboard.post('/dashboard/api/tokens', { name: 'backend' })).body.token;
});
after(async () => {
  await server.stop();
  rmSync(meshDir, { recursive: true, force: true });
});
let shopToken: string;

async function upload(obj: string, name: string, query = '') {
  const res = await api.uploadBytes(`/v2/file${query}`, enc(obj), name);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

async function quote(fileId: string, body: unknown = {}) {
  const res = await api.post(`/v2/file/quote/${fileId}`, body);
  assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
  return res.body;
}

/** PrusaSlicer alone, on a mesh already in its printed size and orientation, with the quote's own settings. */
async function bareWeight(placedObj: string, q: any): Promise<number> {
  const meshPath = path.join(meshDir, `${q.quote_id}.obj`);
  writeFileSync(meshPath, placedObj);
  const s = q.settings;
  const out = await sliceOnce({
    meshPath,
    settings: { printer: s.printer_config, material: s.material_config, quote: s.quote_config },
  });
  return printStats(out.stats, s.material_config).filament_weight_g;
}

const within = (actual: number, expected: number, share: number) =>
  assert.ok(Math.abs(actual - expected) / expected <= share, `${actual} g vs the bare slicer's ${expected} g`);

test('a rod that fits only lying down is laid down, and priced as the bare slicer prices it lying down', {
  skip: onlyOnce,
}, async () => {
  const rod = await upload(boxesObj([[0, 0, 0, 30, 30, 230]]), 'rod.obj'); // default printer: 250 × 210 × 210
  const before = await api.post(`/v2/printability/${rod.file_id}`, {});
  assert.equal(before.body.fits, false);
  assert.equal(before.body.placement.orientation, 'laid_down');
  const q = await quote(rod.file_id);
  assert.equal(q.placement.orientation, 'laid_down');
  assert.deepEqual(q.placement.dimensions, before.body.placement.dimensions, 'printability and the quote agree');
  assert.equal(q.placement.dimensions.z, 30);
  assert.equal(Math.max(q.placement.dimensions.x, q.placement.dimensions.y), 230);
  assert.ok(q.print_stats.max_z_mm <= 30.01, `sliced lying down (max z ${q.print_stats.max_z_mm})`);
  const lying =
    q.placement.dimensions.x === 230 ? boxesObj([[0, 0, 0, 230, 30, 30]]) : boxesObj([[0, 0, 0, 30, 230, 30]]);
  within(q.print_stats.filament_weight_g, await bareWeight(lying, q), 0.005);
});

test('a bar too long for Y is turned on the plate; the quote states the turn', { skip: onlyOnce }, async () => {
  const bar = await upload(boxesObj([[0, 0, 0, 20, 215, 10]]), 'bar.obj');
  const q = await quote(bar.file_id);
  assert.equal(q.placement.orientation, 'turned');
  assert.deepEqual(q.placement.rotation, { x: 0, y: 0, z: 90 });
  assert.deepEqual(q.placement.dimensions, { x: 215, y: 20, z: 10 });
  within(q.print_stats.filament_weight_g, await bareWeight(boxesObj([[0, 0, 0, 215, 20, 10]]), q), 0.005);
});

test('long bars turned diagonally keep the room PrusaSlicer wants around slanted edges, and are sliced', {
  skip: onlyOnce,
}, async () => {
  // On the 250 mm wide plate, 260 mm fits at 18° with 0.25 mm to spare and 266 mm at 22° with 0.37 mm; PrusaSlicer
  // refuses both there ("Objects could not fit on the bed"), so they are turned further.
  for (const length of [260, 266]) {
    const bar = await upload(boxesObj([[0, 0, 0, length, 8, 8]]), `bar-${length}.obj`);
    const q = await quote(bar.file_id);
    assert.equal(q.placement.orientation, 'turned');
    assert.ok(q.placement.dimensions.x <= 250 && q.placement.dimensions.y <= 210, JSON.stringify(q.placement));
    assert.ok(q.print_stats.filament_weight_g > 0);
  }
});

test('a part that fits no orientation is refused before slicing, naming the axes and the limits', async () => {
  const big = await upload(boxesObj([[0, 0, 0, 300, 260, 220]]), 'big.obj');
  const res = await api.post(`/v2/file/quote/${big.file_id}`, {});
  assert.equal(res.status, 422);
  assert.equal(res.body.error.code, 'exceeds_build_volume');
  assert.match(res.body.error.message, /x 300 mm > 250 mm/);
  assert.deepEqual(res.body.error.details.build_volume, { x: 250, y: 210, z: 210 });
  assert.deepEqual(
    res.body.error.details.exceeds.map((e: { axis: string }) => e.axis),
    ['x', 'y', 'z'],
  );
  const job = await api.get(`/v2/jobs/${res.body.error.details.quote_id}`);
  assert.equal(job.body.status, 'failed', 'in history as a failed quote (and quote.failed is sent)');
  assert.equal(job.body.attempts, 0, 'no worker ever claimed it: nothing was sliced');
  const async = await api.post(`/v2/file/quote/${big.file_id}/async`, {});
  assert.equal(async.status, 202);
  const asyncJob = await api.get(async.body.status_url);
  assert.equal(asyncJob.body.status, 'failed', 'an async quote is failed at once too');
  assert.equal(asyncJob.body.error.code, 'exceeds_build_volume');
  assert.equal(asyncJob.body.attempts, 0);
  const check = await api.post(`/v2/printability/${big.file_id}`, {});
  assert.equal(check.body.placement, null);
  assert.ok(check.body.warnings.some((w: { code: string }) => w.code === 'does_not_fit'));
  // The same part on a printer the request names: it fits there.
  const roomy = await api.post(`/v2/printability/${big.file_id}`, { x: 300, y: 300, z: 300 });
  assert.equal(roomy.body.placement.orientation, 'as_uploaded');
});

test('the printer a request names decides the placement: a pillar too tall for it is laid down', {
  skip: onlyOnce,
}, async () => {
  const pillar = await upload(boxesObj([[0, 0, 0, 20, 20, 40]]), 'pillar.obj');
  const upright = await quote(pillar.file_id);
  assert.equal(upright.placement.orientation, 'as_uploaded');
  assert.ok(upright.print_stats.max_z_mm > 39.9);
  const short = await quote(pillar.file_id, { printer_config: { bed_size_z: 30 } });
  assert.equal(short.placement.orientation, 'laid_down');
  assert.equal(short.placement.dimensions.z, 20);
  assert.equal(short.cached, false, 'another placement is another slice');
  assert.ok(short.print_stats.max_z_mm <= 20.01);
});

test('an inch model: unit_suspect on upload and quote; stated in inches it prices as the bare slicer at 25.4×', {
  skip: onlyOnce,
}, async () => {
  const inchBox = boxesObj([[0, 0, 0, 1, 1.5, 0.6]]); // 1 × 1.5 × 0.6 in, exported without a unit
  const plain = await upload(inchBox, 'bracket.obj');
  assert.equal(plain.unit, 'mm');
  assert.equal(plain.unit_source, 'assumed');
  const warning = plain.warnings.find((w: { code?: string }) => w.code === 'unit_suspect');
  assert.equal(warning.suggested_unit, 'in');
  assert.equal(warning.suggested_scale, 25.4);
  assert.match(warning.message, /inches/);
  const speck = await quote(plain.file_id);
  assert.equal(speck.warnings[0].code, 'unit_suspect', 'the quote repeats the warning');
  assert.deepEqual(speck.placement, {
    unit: 'mm',
    scale: 1,
    orientation: 'as_uploaded',
    rotation: { x: 0, y: 0, z: 0 },
    dimensions: { x: 1, y: 1.5, z: 0.6 },
  });

  const stated = await upload(inchBox, 'bracket.obj', '?unit=in');
  assert.equal(stated.unit, 'in');
  assert.equal(stated.unit_source, 'stated');
  assert.deepEqual(stated.measurements.bounding_box.size, [25.4, 38.1, 15.24]);
  assert.ok(!stated.warnings.some((w: { code?: string }) => w.code === 'unit_suspect'));
  const q = await quote(stated.file_id);
  assert.deepEqual(q.placement.dimensions, { x: 25.4, y: 38.1, z: 15.24 });
  assert.equal(q.placement.unit, 'in');
  assert.deepEqual(q.warnings, []);
  within(q.print_stats.filament_weight_g, await bareWeight(boxesObj([[0, 0, 0, 25.4, 38.1, 15.24]]), q), 0.005);
  assert.ok(q.filament_weight > speck.filament_weight * 100, 'a real bracket, not a speck');

  // Rescaling the first upload gives the same print; the unscaled slice is not reused for it.
  const rescaled = await api.post(`/v2/file/scale/${plain.file_id}`, { unit: 'in' });
  assert.equal(rescaled.status, 200);
  assert.equal(rescaled.body.file_id, plain.file_id);
  assert.deepEqual(rescaled.body.measurements.bounding_box.size, [25.4, 38.1, 15.24]);
  assert.ok(!rescaled.body.warnings.some((w: { code?: string }) => w.code === 'unit_suspect'));
  const after = await quote(plain.file_id);
  assert.equal(after.cached, true, 'the same mesh at the same placement as the stated-inch upload: one slice');
  assert.equal(after.filament_weight, q.filament_weight);
  const old = await api.get(`/v2/quotes/${speck.quote_id}`);
  assert.equal(old.body.placement.unit, 'mm', 'earlier quotes keep the placement they were priced at');
});

test('a multipart unit field works like the query parameter; a 3MF keeps its own unit', async () => {
  const form = new FormData();
  form.append('unit', 'cm');
  form.append('file', new Blob([enc(boxesObj([[0, 0, 0, 2, 3, 4]]))]), 'part.obj');
  const res = await api.request('POST', '/v2/file', { form });
  assert.equal(res.status, 201);
  assert.equal(res.body.unit, 'cm');
  assert.deepEqual(res.body.measurements.bounding_box.size, [20, 30, 40]);
  const inch3mf = await api.upload('/v2/file?unit=mm', corpusPath('3mf', 'cube10_inch_units.3mf'));
  assert.equal(inch3mf.body.unit, 'in');
  assert.equal(inch3mf.body.unit_source, 'file');
  assert.deepEqual(inch3mf.body.measurements.bounding_box.size.map(Math.round), [254, 254, 254]);
});

test('bad units at upload are refused naming the field', async () => {
  const before = (await api.get('/v2/user/uploads?limit=1')).body.total;
  for (const q of ['?unit=furlong', '?unit=MMM', '?unit=', '?unit=in&unit=mm']) {
    const res = await api.uploadBytes(`/v2/file${q}`, enc(boxesObj([[0, 0, 0, 1, 1, 1]])), 'x.obj');
    assert.equal(res.status, 400, q);
    assert.equal(res.body.error.details.fields[0].field, 'unit', q);
  }
  const form = new FormData();
  form.append('unit', 'parsec');
  form.append('file', new Blob([enc(boxesObj([[0, 0, 0, 1, 1, 1]]))]), 'x.obj');
  const field = await api.request('POST', '/v2/file', { form });
  assert.equal(field.status, 400);
  assert.equal(field.body.error.details.fields[0].field, 'unit');
  const clash = new FormData();
  clash.append('unit', 'cm');
  clash.append('file', new Blob([enc(boxesObj([[0, 0, 0, 1, 1, 1]]))]), 'x.obj');
  const both = await api.request('POST', '/v2/file?unit=in', { form: clash });
  assert.equal(both.status, 400);
  assert.equal((await api.get('/v2/user/uploads?limit=1')).body.total, before, 'nothing was stored');
});

test('rescaling the hostile way: bad values name the field, absurd sizes are refused, other accounts get 404', async () => {
  const cube = await upload(boxesObj([[0, 0, 0, 20, 20, 20]]), 'cube.obj');
  const scale = (body: unknown, client = api) => client.post(`/v2/file/scale/${cube.file_id}`, body);
  for (const [body, field] of [
    [{ scale: 0 }, 'scale'],
    [{ scale: -2 }, 'scale'],
    [{ scale: 'NaN' }, 'scale'],
    [{ scale: 1e9 }, 'scale'],
    [{ scale: null }, 'scale'],
    [{ unit: 'furlong' }, 'unit'],
    [{ unit: 'INCH' }, 'unit'],
    [{ size: 2 }, 'size'],
  ] as const) {
    const res = await scale(body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.details.fields[0].field, field, JSON.stringify(body));
  }
  assert.equal((await scale({})).status, 400, 'an empty change is refused');
  const raw = await api.request('POST', `/v2/file/scale/${cube.file_id}`, {
    raw: '{"scale": NaN}',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(raw.status, 400);
  const tiny = await scale({ scale: 0.001 });
  assert.equal(tiny.status, 422, '20 µm across is no print');
  assert.equal(tiny.body.error.code, 'scale_out_of_range');
  assert.equal(tiny.body.error.details.field, 'scale');
  const huge = await scale({ unit: 'm', scale: 1000 });
  assert.equal(huge.status, 422, '20 km across is no print');
  const file = (await api.get('/v2/user/uploads?limit=100')).body.data.find(
    (f: { file_id: string }) => f.file_id === cube.file_id,
  );
  assert.equal(file.scale, 1, 'a refused rescale changes nothing');
  assert.equal(file.unit, 'mm');
  const other = server.client((await server.newAccount()).token);
  assert.equal((await scale({ scale: 2 }, other)).status, 404);
  assert.equal((await other.post('/v2/file/scale/file_doesnotexist', { scale: 2 })).status, 404);
  const doubled = await scale({ scale: 2 });
  assert.equal(doubled.status, 200);
  assert.deepEqual(doubled.body.measurements.bounding_box.size, [40, 40, 40]);
  assert.equal(Math.round(doubled.body.measurements.volume_mm3), 64000);
  assert.equal(doubled.body.unit_source, 'assumed', 'only a stated unit changes where the unit came from');
});

test("a widget key rescales only the shopper's own upload", async () => {
  const shop = server.client(shopToken);
  const headers = { 'x-widget-key': widgetKey, origin: SHOP };
  const anon = server.client();
  const ticket = await anon.request('GET', '/v2/file/upload-id', { headers });
  const own = await anon.uploadBytes(
    `/v2/file/public/${ticket.body.upload_id}?unit=mm`,
    enc(boxesObj([[0, 0, 0, 1, 1, 1]])),
    'speck.obj',
  );
  assert.equal(own.status, 201);
  assert.equal(own.body.warnings.find((w: { code?: string }) => w.code === 'unit_suspect')?.suggested_unit, 'in');
  const shopper = { ...headers, 'x-shopper-token': ticket.body.shopper_token };
  const otherTicket = await anon.request('GET', '/v2/file/upload-id', { headers });
  const otherShopper = { ...headers, 'x-shopper-token': otherTicket.body.shopper_token };
  assert.equal(
    (await anon.request('POST', `/v2/file/scale/${own.body.file_id}`, { json: { unit: 'in' }, headers: otherShopper }))
      .status,
    404,
    'another shopper of the same shop',
  );
  assert.equal(
    (await anon.request('POST', `/v2/file/scale/${own.body.file_id}`, { json: { unit: 'in' }, headers })).status,
    404,
    'no shopper token',
  );
  const rescaled = await anon.request('POST', `/v2/file/scale/${own.body.file_id}`, {
    json: { unit: 'in' },
    headers: shopper,
  });
  assert.equal(rescaled.status, 200);
  assert.equal(rescaled.body.unit, 'in');
  const merchants = await shop.uploadBytes('/v2/file', enc(boxesObj([[0, 0, 0, 1, 1, 1]])), 'merchant.obj');
  const refused = await anon.request('POST', `/v2/file/scale/${merchants.body.file_id}`, {
    json: { unit: 'in' },
    headers: shopper,
  });
  assert.equal(refused.status, 404, "a file the shop uploaded with its token is not the shopper's");
  const wrongOrigin = await anon.request('POST', `/v2/file/scale/${own.body.file_id}`, {
    json: { scale: 2 },
    headers: { ...shopper, origin: 'https://evil.example' },
  });
  assert.equal(wrongOrigin.status, 403);
  const stranger = server.client((await server.newAccount()).token);
  assert.equal((await stranger.post(`/v2/file/scale/${own.body.file_id}`, { scale: 2 })).status, 404);
});

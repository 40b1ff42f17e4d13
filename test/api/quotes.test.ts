import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { eventsForAccount } from '../../server/outbox/sql.ts';
import { corpusPath } from '../helpers/corpus.ts';
import { CUBE_OBJ, T_SHAPE_OBJ } from '../helpers/meshes.ts';
import { until } from '../helpers/poll.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: ApiClient;
let accountId: string;
let cubeId: string;
let tShapeId: string;

const enc = (s: string) => new TextEncoder().encode(s);

before(async () => {
  server = await startTestServer();
  const a = await server.newAccount();
  accountId = a.accountId;
  api = server.client(a.token);
  cubeId = (await api.uploadBytes('/v2/file', enc(CUBE_OBJ), 'cube.obj')).body.file_id;
  tShapeId = (await api.uploadBytes('/v2/file', enc(T_SHAPE_OBJ), 't-shape.obj')).body.file_id;
});
after(() => server.stop());

async function quote(fileId: string, body: unknown) {
  const res = await api.post(`/v2/file/quote/${fileId}`, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

test('a body with only material_config.filament_type is a valid request and yields the documented result', async () => {
  const q = await quote(cubeId, { material_config: { filament_type: 'PLA' } });
  assert.match(q.quote_id, /^qt_/);
  assert.equal(q.status, 'completed');
  assert.equal(q.currency, 'USD');
  assert.ok(q.total_price > 0);
  assert.ok(
    q.filament_weight > 2 && q.filament_weight < 10,
    `a 20 mm cube at 20 % is a few grams, got ${q.filament_weight}`,
  );
  assert.match(q.estimated_time, /^(\d+h )?\d+m$|^\d+s$/);
  assert.ok(q.estimated_time_seconds > 60);
  assert.deepEqual(q.printInfo, { technology: 'FDM', material: 'PLA', color: 'White' });
  assert.equal(q.slicer.name, 'PrusaSlicer');
  assert.match(q.slicer.version, /^\d+\.\d+\.\d+$/);
  assert.equal(q.setting_sources['material_config.filament_type'], 'request');
  assert.equal(q.setting_sources['material_config.density'], 'global:prof_global_pla');
  assert.equal(q.setting_sources['printer_config.layer_height'], 'global:prof_global_printer');
  const again = await api.get(`/v2/quotes/${q.quote_id}`);
  assert.equal(again.body.total_price, q.total_price);
  const me = await api.get('/v2/user');
  assert.ok(me.body.quotes_used >= 1);
});

test('the price follows the documented formula from the slice statistics', async () => {
  const q = await quote(cubeId, {
    material_config: { filament_type: 'PETG', price_per_gram: 0.05, support_cost_multiplier: 2 },
    printer_config: { hourly_cost: 3 },
    quote_config: { fixed_fee: 2.5, tax_rate: 20, energy_cost_per_kwh: 0.4 },
  });
  const s = q.print_stats;
  const hours = s.print_time_s / 3600;
  // docs/pricing.md: each part rounded half-up to cents, the subtotal their sum, tax on the rounded subtotal.
  const cents = (v: number) => Math.round(Number((v * 100).toPrecision(15)));
  const parts = [
    (s.filament_weight_g - s.support_weight_g) * 0.05,
    s.support_weight_g * 0.05 * 2,
    hours * 3,
    (120 / 1000) * hours * 0.4,
    2.5,
  ].map(cents);
  const subtotal = parts.reduce((a, b) => a + b, 0);
  assert.equal(q.currency, 'USD');
  assert.equal(q.total_price, (subtotal + cents((subtotal * 0.2) / 100)) / 100);
  assert.equal(q.price_breakdown.fixed_fee, 2.5);
  assert.equal(q.printInfo.material, 'PETG');
});

test('an identical slice is reused (cached) and price-only changes never re-slice', async () => {
  const body = { material_config: { filament_type: 'PLA' }, printer_config: { fill_density: 35 } };
  const first = await quote(cubeId, body);
  assert.equal(first.cached, false);
  const second = await quote(cubeId, body);
  assert.equal(second.cached, true);
  assert.notEqual(second.quote_id, first.quote_id, 'still a new quote in history');
  assert.equal(second.filament_weight, first.filament_weight);
  const repriced = await quote(cubeId, {
    ...body,
    material_config: { filament_type: 'PLA', price_per_kg: 90 },
    quote_config: { tax_rate: 10, fixed_fee: 1, energy_cost_per_kwh: 1 },
    printer_config: { fill_density: 35, hourly_cost: 9 },
  });
  assert.equal(repriced.cached, true);
  assert.ok(repriced.total_price > first.total_price);
  const resliced = await quote(cubeId, { ...body, printer_config: { fill_density: 36 } });
  assert.equal(resliced.cached, false);
});

async function compare(fileId: string, field: string, low: unknown, high: unknown, base: Record<string, any> = {}) {
  const mk = (v: unknown) => ({ ...base, printer_config: { ...(base.printer_config ?? {}), [field]: v } });
  return [await quote(fileId, mk(low)), await quote(fileId, mk(high))];
}

test('slicing fields change the result in the expected direction', async () => {
  const [thin, thick] = await compare(cubeId, 'layer_height', 0.1, 0.3, { printer_config: { max_layer_height: 0.3 } });
  assert.ok(thick.estimated_time_seconds < thin.estimated_time_seconds, 'thicker layers print faster');
  assert.ok(thick.print_stats.layers < thin.print_stats.layers, 'and have fewer layers');
  const [sparse, dense] = await compare(cubeId, 'fill_density', 10, 60);
  assert.ok(dense.filament_weight > sparse.filament_weight, 'denser infill weighs more');
  const [fewWalls, manyWalls] = await compare(cubeId, 'perimeters', 1, 5);
  assert.ok(manyWalls.filament_weight > fewWalls.filament_weight, 'more perimeters weigh more');
  const [slow, fast] = await compare(cubeId, 'print_speed', 30, 120);
  assert.ok(fast.estimated_time_seconds < slow.estimated_time_seconds, 'faster printing takes less time');
  const [smallNozzle, bigNozzle] = await compare(cubeId, 'nozzle_diameter', 0.4, 0.8);
  assert.ok(bigNozzle.estimated_time_seconds < smallNozzle.estimated_time_seconds, 'a bigger nozzle prints faster');
  const [rect, gyroid] = await compare(cubeId, 'infill_pattern', 'rectilinear', 'gyroid', {
    printer_config: { fill_density: 30 },
  });
  assert.notEqual(gyroid.estimated_time_seconds, rect.estimated_time_seconds, 'the pattern changes the slice');
  assert.deepEqual(gyroid.infill_pattern, { requested: 'gyroid', used: 'gyroid', exact: true });
  const zig = await quote(cubeId, { printer_config: { infill_pattern: 'zigzag' } });
  assert.deepEqual(zig.infill_pattern, { requested: 'zigzag', used: 'rectilinear', exact: false });
  const [light, heavy] = [
    await quote(cubeId, { material_config: { filament_type: 'PLA', density: 1.0 } }),
    await quote(cubeId, { material_config: { filament_type: 'PLA', density: 1.5 } }),
  ];
  assert.ok(heavy.filament_weight > light.filament_weight, 'denser material weighs more');
});

test('supports on an overhang add support material; without them there is none', async () => {
  const without = await quote(tShapeId, { printer_config: { support_material: false } });
  const withSupport = await quote(tShapeId, { printer_config: { support_material: true, support_overhang_angle: 45 } });
  assert.equal(without.print_stats.support_share, 0);
  assert.ok(withSupport.print_stats.support_share > 0, 'support extrusion appears');
  assert.ok(withSupport.filament_weight > without.filament_weight);
  const denser = await quote(tShapeId, { printer_config: { support_material: true, support_density: 60 } });
  assert.ok(
    denser.print_stats.support_weight_g > withSupport.print_stats.support_weight_g,
    'denser support weighs more',
  );
});

test('merge order: request > account default profile > global profile, field by field', async () => {
  const printer = await api.post('/v2/profiles/printer', {
    name: 'My Prusa',
    is_default: true,
    settings: { layer_height: 0.25, fill_density: 40, hourly_cost: 4 },
  });
  assert.equal(printer.status, 201);
  // A shop in GBP sets its own amounts: the shipped ones are in USD (docs/pricing.md).
  const settings = await api.post('/v2/profiles/global', {
    name: 'Shop settings',
    is_default: true,
    settings: { currency: 'GBP', fixed_fee: 3, energy_cost_per_kwh: 0.25 },
  });
  assert.equal(settings.status, 201);
  try {
    const q = await quote(cubeId, {
      printer_config: { fill_density: 15 },
      quote_config: { fixed_fee: 1 },
      material_config: { price_per_kg: 21 },
    });
    const src = q.setting_sources;
    assert.equal(src['printer_config.fill_density'], 'request');
    assert.equal(src['printer_config.layer_height'], `profile:${printer.body.profile_id}`);
    assert.equal(src['printer_config.hourly_cost'], `profile:${printer.body.profile_id}`);
    assert.equal(src['printer_config.perimeters'], 'global:prof_global_printer');
    assert.equal(src['quote_config.fixed_fee'], 'request');
    assert.equal(src['quote_config.currency'], `profile:${settings.body.profile_id}`);
    assert.equal(q.settings.printer_config.layer_height, 0.25);
    assert.equal(q.settings.printer_config.fill_density, 15);
    assert.equal(q.currency, 'GBP');
  } finally {
    await api.delete(`/v2/profiles/printer/${printer.body.profile_id}`);
    await api.delete(`/v2/profiles/global/${settings.body.profile_id}`);
  }
});

test('a material profile of the account is found by filament_type and may carry a colour; missing prices are refused', async () => {
  const mat = await api.post('/v2/profiles/material', {
    name: 'Silk PLA',
    settings: { density: 1.3, price_per_kg: 45, color: 'Gold', colors: ['Gold', 'Silver'] },
  });
  assert.equal(mat.status, 201);
  const q = await quote(cubeId, { material_config: { filament_type: 'silk pla' } });
  assert.deepEqual(q.printInfo, { technology: 'FDM', material: 'Silk PLA', color: 'Gold' });
  assert.equal(q.setting_sources['material_config.price_per_kg'], `profile:${mat.body.profile_id}`);
  const colored = await quote(cubeId, { material_config: { filament_type: 'Silk PLA' }, color: 'Silver' });
  assert.equal(colored.printInfo.color, 'Silver');
  await api.post('/v2/profiles/material', { name: 'Mystery', settings: { density: 1.2 } });
  const noPrice = await api.post(`/v2/file/quote/${cubeId}`, { material_config: { filament_type: 'Mystery' } });
  assert.equal(noPrice.status, 422);
  assert.equal(noPrice.body.error.code, 'material_price_missing');
  assert.equal(noPrice.body.error.details.field, 'material_config.price_per_gram');
  const priced = await quote(cubeId, { material_config: { filament_type: 'Mystery', price_per_gram: 0.1 } });
  assert.ok(priced.total_price > 0);
});

test('validation names the field; unknown materials list the available ones', async () => {
  const cases: [unknown, string][] = [
    [{ printer_config: { fill_density: 150 } }, 'printer_config.fill_density'],
    [{ printer_config: { infill_pattern: 'banana' } }, 'printer_config.infill_pattern'],
    [{ printer_config: { perimeters: 2.5 } }, 'printer_config.perimeters'],
    [{ printer_config: { support_material: 'yes' } }, 'printer_config.support_material'],
    [{ material_config: { fan_speed: -1 } }, 'material_config.fan_speed'],
    [{ quote_config: { tax_rate: 101 } }, 'quote_config.tax_rate'],
    [{ quote_config: { currency: 'euro' } }, 'quote_config.currency'],
    [{ printer_config: { power_watts: 100 } }, 'printer_config.power_watts'],
    [{ printer_config: { warp_speed: 9 } }, 'printer_config.warp_speed'],
    [{ shipping: true }, 'shipping'],
  ];
  for (const [body, field] of cases) {
    const res = await api.post(`/v2/file/quote/${cubeId}`, body);
    assert.equal(res.status, 400, field);
    assert.ok(
      res.body.error.details.fields.some((f: { field: string }) => f.field === field),
      `${field} named: ${JSON.stringify(res.body)}`,
    );
  }
  const unknown = await api.post(`/v2/file/quote/${cubeId}`, { material_config: { filament_type: 'Unobtainium' } });
  assert.equal(unknown.status, 422);
  assert.equal(unknown.body.error.code, 'unknown_material');
  for (const name of ['PLA', 'PETG', 'ABS', 'ASA', 'TPU', 'Nylon'])
    assert.ok(unknown.body.error.details.available.includes(name), name);
  const conflict = await api.post(`/v2/file/quote/${cubeId}`, {
    printer_config: { nozzle_diameter: 0.25, layer_height: 0.3, max_layer_height: 0.3 },
  });
  assert.equal(conflict.status, 422);
  assert.equal(conflict.body.error.code, 'settings_conflict');
  assert.equal(conflict.body.error.details.fields[0].field, 'printer_config.layer_height');
  const badJson = await api.request('POST', `/v2/file/quote/${cubeId}`, {
    raw: '{"printer_config":',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(badJson.status, 400);
  assert.equal(badJson.body.error.code, 'invalid_json');
});

test('async: 202 with a job id that equals the quote id; job lifecycle and events', async () => {
  const res = await api.post(`/v2/file/quote/${cubeId}/async`, { printer_config: { fill_density: 23 } });
  assert.equal(res.status, 202);
  const id = res.body.job_id;
  assert.match(id, /^job_/);
  assert.equal(res.body.quote_id, id);
  const job = await until('the job to finish', 20_000, async () => {
    const j = (await api.get(`/v2/jobs/${id}`)).body;
    return j.status === 'completed' || j.status === 'failed' ? j : undefined;
  });
  assert.equal(job.status, 'completed');
  assert.equal(job.progress, 100);
  assert.equal(job.result.quote_id, id);
  const events = (await eventsForAccount(server.deps.db, accountId)).filter(
    (e) => (e.payload as any).data.jobId === id,
  );
  const transitions = events.filter((e) => e.event === 'job.status_changed').map((e) => (e.payload as any).data.status);
  assert.deepEqual(transitions, ['queued', 'processing', 'completed']);
  const completed = events.find((e) => e.event === 'quote.completed')!.payload as any;
  assert.match(completed.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.deepEqual(
    Object.keys(completed.data).sort(),
    ['cached', 'error', 'fileId', 'fileName', 'jobId', 'processingTimeMs', 'quoteId', 'result', 'status'].sort(),
  );
  assert.equal(completed.data.quoteId, id);
  assert.equal(completed.data.error, null);
  assert.deepEqual(
    Object.keys(completed.data.result).sort(),
    [
      'currency',
      'estimated_time',
      'estimated_time_seconds',
      'filament_weight',
      'printInfo',
      'quote_id',
      'total_price',
    ].sort(),
  );
});

test('a failed slice is recorded as failed with quote.failed', async () => {
  const res = await api.post(`/v2/file/quote/${cubeId}`, { printer_config: { bed_size_x: 10, bed_size_y: 10 } });
  assert.equal(res.status, 422);
  assert.equal(res.body.error.code, 'exceeds_build_volume');
  const failed = await api.get(`/v2/quotes/${res.body.error.details.quote_id}`);
  assert.equal(failed.body.status, 'failed');
  const job = await api.get(`/v2/jobs/${res.body.error.details.quote_id}`);
  assert.deepEqual([job.body.status, job.body.progress], ['failed', 100], 'a failed job is finished: progress 100');
  const events = await eventsForAccount(server.deps.db, accountId, 'quote.failed');
  assert.ok(events.some((e) => (e.payload as any).data.quoteId === res.body.error.details.quote_id));
});

test('history: paginated newest first; delete removes from history; other accounts get 404', async () => {
  const page = await api.get('/v2/quotes?page=1&limit=2');
  assert.equal(page.body.data.length, 2);
  assert.equal(page.body.has_more, true);
  assert.ok(page.body.data[0].created_at >= page.body.data[1].created_at);
  const id = page.body.data[0].quote_id;
  const other = server.client((await server.newAccount()).token);
  assert.equal((await other.get(`/v2/quotes/${id}`)).status, 404);
  assert.equal((await other.get(`/v2/jobs/${id}`)).status, 404);
  assert.equal((await other.delete(`/v2/quotes/${id}`)).status, 404);
  assert.equal((await other.post(`/v2/file/quote/${cubeId}`, {})).status, 404);
  assert.equal((await other.post(`/v2/file/quote/${cubeId}/async`, {})).status, 404);
  assert.equal((await api.delete(`/v2/quotes/${id}`)).status, 200);
  assert.equal((await api.get(`/v2/quotes/${id}`)).status, 404);
  assert.equal((await api.get('/v2/quotes?limit=101')).status, 400);
});

test('a binary STL whose bytes are all ASCII (PrusaSlicer cannot load it raw) is quoted from our canonical mesh', async () => {
  const up = await api.upload('/v2/file', path.join(corpusPath(), 'stl', 'two_cubes_10mm.stl'));
  assert.equal(up.status, 201);
  const q = await quote(up.body.file_id, {});
  assert.ok(q.filament_weight > 0.5);
});

test('profiles: one default per kind, globals read-only, validation, cross-account 404', async () => {
  const a = await api.post('/v2/profiles/material', {
    name: 'Wood PLA',
    is_default: true,
    settings: { price_per_kg: 40 },
  });
  const b = await api.post('/v2/profiles/material', {
    name: 'Matte PLA',
    is_default: true,
    settings: { price_per_kg: 30 },
  });
  const list = (await api.get('/v2/profiles/material')).body.data;
  const ownDefaults = list.filter((p: any) => p.scope === 'account' && p.is_default);
  assert.deepEqual(
    ownDefaults.map((p: any) => p.profile_id),
    [b.body.profile_id],
  );
  assert.ok(list.some((p: any) => p.scope === 'global' && p.name === 'Nylon'));
  const q = await quote(cubeId, {});
  assert.equal(q.printInfo.material, 'Matte PLA', 'the account default material is used when none is named');
  assert.equal((await api.put('/v2/profiles/material/prof_global_pla', { name: 'PLA', settings: {} })).status, 403);
  assert.equal((await api.delete('/v2/profiles/printer/prof_global_printer')).status, 403);
  const bad = await api.post('/v2/profiles/printer', { name: 'Bad', settings: { fill_density: 200 } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.details.fields[0].field, 'settings.fill_density');
  assert.equal((await api.post('/v2/profiles/material', { name: 'Wood PLA', settings: {} })).status, 409);
  assert.equal((await api.get('/v2/profiles/spaceship')).status, 404);
  const other = server.client((await server.newAccount()).token);
  assert.equal((await other.get(`/v2/profiles/material/${a.body.profile_id}`)).status, 404);
  assert.equal(
    (await other.put(`/v2/profiles/material/${a.body.profile_id}`, { name: 'x', settings: {} })).status,
    404,
  );
  assert.equal((await other.delete(`/v2/profiles/material/${a.body.profile_id}`)).status, 404);
  const removed = await api.delete(`/v2/profiles/material/${a.body.profile_id}`);
  assert.equal(removed.status, 200, 'every DELETE answers 200 with the id');
  assert.deepEqual(removed.body, { profile_id: a.body.profile_id, deleted: true });
  assert.equal((await api.delete(`/v2/profiles/material/${a.body.profile_id}`)).status, 404);
  await api.delete(`/v2/profiles/material/${b.body.profile_id}`);
});

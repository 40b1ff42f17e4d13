// Every file of the model corpus (test/fixtures/models) through the real upload API, against its expected outcome; then a real
// quote for every valid model.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { corpusPath } from '../helpers/corpus.ts';
import { type ApiClient, startTestServer, type TestServer, testDbKind } from '../helpers/server.ts';

let server: TestServer;
let api: ApiClient;
const reference = JSON.parse(readFileSync(corpusPath('reference-measurements.json'), 'utf8')) as Record<string, any>;
const uploaded = new Map<string, { id: string; largest: number }>();

const list = (dir: string) =>
  readdirSync(corpusPath(dir))
    .filter((f) => /\.(stl|obj|3mf)$/i.test(f))
    .map((f) => `${dir}/${f}`);
const VALID = [
  ...list('stl'),
  ...list('obj'),
  ...list('3mf'),
  ...list('3mf/conformance/examples'),
  ...list('3mf/conformance/mustpass'),
  'broken/obj_negative_indices_ok.obj',
];
const BROKEN = list('broken').filter((f) => !f.endsWith('_ok.obj'));
const MUSTFAIL = list('3mf/conformance/mustfail');

// Reading and slicing models does not depend on the database (storing a file's row is the same query for every
// model, and test/api/files.test.ts stores uploads on both): the corpus runs once, on PGlite.
const skip = testDbKind() === 'postgres' && 'models are read and sliced alike on both databases; runs once, on PGlite';

before(async () => {
  if (skip) return;
  // The biggest models slice for tens of seconds, longer on a loaded machine: answer every quote synchronously.
  server = await startTestServer({ QUOTE_SYNC_WAIT_MS: '600000', SLICER_TIMEOUT_MS: '600000' });
  api = server.client((await server.newAccount({ plan: 'business' })).token);
});
after(() => server?.stop());

const near = (actual: number, expected: number, what: string) =>
  assert.ok(
    Math.abs(actual - expected) <= Math.max(1e-3, Math.abs(expected) * 0.001),
    `${what}: ${actual} vs reference ${expected}`,
  );

test('every valid model uploads and measures like the reference within 0.1 %', { skip }, async () => {
  for (const rel of VALID) {
    const res = await api.upload('/v2/file', corpusPath(rel));
    assert.equal(res.status, 201, `${rel}: ${JSON.stringify(res.body)}`);
    uploaded.set(rel, { id: res.body.file_id, largest: Math.max(...res.body.measurements.bounding_box.size) });
    const ref = reference[rel];
    if (!ref?.size_mm) continue;
    const m = res.body.measurements;
    ref.size_mm.forEach((v: number, i: number) => {
      near(m.bounding_box.size[i], v, `${rel} size[${i}]`);
    });
    near(m.volume_mm3, ref.volume_mm3, `${rel} volume`);
    near(m.triangles, ref.facets, `${rel} triangles`);
    assert.equal(m.watertight, ref.manifold, `${rel} watertight`);
  }
});

test('every broken model is refused with 422 and a specific code; the server stays up', { skip }, async () => {
  for (const rel of BROKEN) {
    const res = await api.upload('/v2/file', corpusPath(rel));
    assert.equal(res.status, 422, `${rel}: ${JSON.stringify(res.body)}`);
    assert.notEqual(res.body.error.code, 'model_unreadable', `${rel} gets a specific code`);
    assert.ok(res.body.error.message.length > 10, rel);
  }
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
});

test('every 3MF conformance must-fail case is refused naming the broken rule', { skip }, async () => {
  for (const rel of MUSTFAIL) {
    const res = await api.upload('/v2/file', corpusPath(rel));
    assert.equal(res.status, 422, `${rel}: ${JSON.stringify(res.body)}`);
  }
});

test('every valid model gets a quote from a real slice; 3DBenchy STL and 3MF agree within 0.5 %', {
  skip,
}, async () => {
  // A big printer fits every model. What is under test is that each format's model reaches the slicer and comes
  // back with a price, not the slicer's detail: a coarse nozzle and thick layers keep the slices of all but the
  // smallest models short (those keep the default layers, whose thin first layer catches what they rest on).
  const bed = { bed_size_x: 500, bed_size_y: 500, bed_size_z: 500 };
  const coarse = { ...bed, nozzle_diameter: 0.8, layer_height: 0.6, max_layer_height: 0.6 };
  const weights = new Map<string, number>();
  for (const rel of VALID) {
    const file = uploaded.get(rel)!;
    const started = performance.now();
    const res = await api.post(`/v2/file/quote/${file.id}`, { printer_config: file.largest > 40 ? coarse : bed });
    if (rel.endsWith('pyramid_vertexcolor.3mf')) {
      // A tetrahedron standing on an edge: unprintable as oriented, and the merchant is told why.
      assert.equal(res.status, 422);
      assert.equal(res.body.error.code, 'first_layer_empty');
      continue;
    }
    if (rel.endsWith('tiny_0.5mm_cube.stl')) {
      // A speck a 0.4 mm nozzle cannot draw: refused before slicing, never sold at the minimum price.
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'part_too_small');
      assert.deepEqual(res.body.error.details.across_mm, [0.5, 0.5]);
      continue;
    }
    assert.equal(res.status, 200, `${rel}: ${JSON.stringify(res.body).slice(0, 400)}`);
    if (process.env.SQ_TEST_VERBOSE) console.log(rel, Math.round(performance.now() - started), 'ms');
    assert.ok(
      res.body.print_stats.layers > 0 && res.body.print_stats.filament_weight_g > 0,
      `${rel} sliced to real extrusion`,
    );
    if (res.body.filament_weight >= 0.5) assert.ok(res.body.total_price > 0, rel);
    weights.set(rel, res.body.filament_weight);
  }
  const stl = weights.get('stl/3DBenchy.stl')!;
  const threeMf = weights.get('3mf/3DBenchy.3mf')!;
  assert.ok(Math.abs(stl - threeMf) / stl <= 0.005, `3DBenchy STL ${stl} g vs 3MF ${threeMf} g`);
});

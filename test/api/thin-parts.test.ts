// Parts too thin for the printer, checked before slicing from the file's measurements: thinner than a layer of the
// chosen quality is refused with the reason (422 feature_too_small, a failed quote, never sliced), and so is a speck
// narrower than a loop of perimeters in two directions (422 part_too_small); walls thinner than the nozzle on average
// are priced with a thin_walls warning; a solid part carries neither.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { corpusPath } from '../helpers/corpus.ts';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';
import { prismZObj } from '../helpers/solids.ts';

let server: TestServer;
let api: ApiClient;

before(async () => {
  server = await startTestServer();
  api = server.client((await server.newAccount()).token);
});
after(() => server.stop());

const square = (side: number): [number, number][] => [
  [0, 0],
  [side, 0],
  [side, side],
  [0, side],
];

async function upload(bytes: Uint8Array, name: string): Promise<string> {
  const up = await api.uploadBytes('/v2/file', bytes, name);
  assert.equal(up.status, 201, JSON.stringify(up.body));
  return up.body.file_id;
}

test('a 0.1 mm sheet is refused before slicing: 422 feature_too_small naming its thickness and the layer', async () => {
  const id = await upload(new TextEncoder().encode(prismZObj(square(10), 0, 0.1)), 'sheet.obj');
  const q = await api.post(`/v2/file/quote/${id}`, {});
  assert.equal(q.status, 422, JSON.stringify(q.body));
  assert.equal(q.body.error.code, 'feature_too_small');
  assert.match(q.body.error.message, /0\.1 mm thick at its thinnest side, less than one layer \(0\.2 mm\)/);
  assert.deepEqual([q.body.error.details.thinnest_mm, q.body.error.details.layer_height_mm], [0.1, 0.2]);
  // Recorded as a failed quote with the same reason; nothing was sliced.
  const stored = await api.get(`/v2/quotes/${q.body.error.details.quote_id}`);
  assert.deepEqual([stored.body.status, stored.body.error.code], ['failed', 'feature_too_small']);
  assert.equal(await server.deps.db.query('SELECT 1 FROM slices').then((r) => r.length), 0);
  // At a finer layer (0.1 mm presets allow it) the same sheet is one layer: not refused for its thickness.
  const fine = await api.post(`/v2/file/quote/${id}`, { printer_config: { layer_height: 0.1 } });
  assert.equal(fine.status, 200, JSON.stringify(fine.body));
});

test('specks are refused before slicing: 422 part_too_small naming their size and the nozzle', async () => {
  const specks: [string, Uint8Array, [number, number]][] = [
    ['tiny.stl', new Uint8Array(readFileSync(corpusPath('stl', 'tiny_0.5mm_cube.stl'))), [0.5, 0.5]],
    ['speck.obj', new TextEncoder().encode(prismZObj(square(0.8), 0, 0.8)), [0.8, 0.8]],
    // A pin standing 20 mm tall on a 0.6 mm square: a needle the nozzle cannot draw around either.
    ['pin.obj', new TextEncoder().encode(prismZObj(square(0.6), 0, 20)), [0.6, 0.6]],
  ];
  const slices = () => server.deps.db.query('SELECT 1 FROM slices').then((r) => r.length);
  const before = await slices();
  for (const [name, bytes, across] of specks) {
    const id = await upload(bytes, name);
    const q = await api.post(`/v2/file/quote/${id}`, {});
    assert.equal(q.status, 422, `${name}: ${JSON.stringify(q.body)}`);
    assert.equal(q.body.error.code, 'part_too_small', name);
    const { quote_id: quoteId, ...details } = q.body.error.details;
    assert.deepEqual(details, { across_mm: across, nozzle_mm: 0.4, smallest_mm: 0.9 }, name);
    assert.match(
      q.body.error.message,
      /too small for the 0\.4 mm nozzle to draw its shape \(it needs 0\.9 mm in two directions\)/,
    );
    const stored = await api.get(`/v2/quotes/${quoteId}`);
    assert.deepEqual([stored.body.status, stored.body.error.code], ['failed', 'part_too_small'], name);
  }
  assert.equal(await slices(), before, 'nothing was sliced');
});

test('a 1 mm cube is priced with a thin_walls warning; a 20 mm cube without', async () => {
  const small = await upload(new TextEncoder().encode(prismZObj(square(1), 0, 1)), 'small.obj');
  const q = await api.post(`/v2/file/quote/${small}`, {});
  assert.equal(q.status, 200, JSON.stringify(q.body));
  const thin = q.body.warnings.find((w: { code: string }) => w.code === 'thin_walls');
  assert.ok(thin, JSON.stringify(q.body.warnings));
  assert.equal(thin.nozzle_mm, 0.4);
  assert.ok(
    Math.abs(thin.average_wall_mm - 1 / 3) < 0.001,
    `a cube's average wall is a third of its side: ${thin.average_wall_mm}`,
  );
  assert.match(thin.message, /thinner than the 0\.4 mm nozzle/);

  const cube = await upload(new TextEncoder().encode(CUBE_OBJ), 'cube.obj');
  const solid = await api.post(`/v2/file/quote/${cube}`, {});
  assert.equal(solid.status, 200);
  assert.deepEqual(solid.body.warnings ?? [], []);
});

// "Pricing every material…" measures the part once: the estimator's features depend on the mesh as placed and the
// printer settings, never on the filament, so a list of materials that each slice differently (another slicing key)
// but print with the same printer settings makes one measurement in the mesh workers, not one per material.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { boxesObj } from '../helpers/meshes.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

const PART = new TextEncoder().encode(boxesObj([[0, 0, 0, 14, 10, 6]]));
let server: TestServer;
let api: ApiClient;

before(async () => {
  // No prefetches: no slice is made, so every material of the list is estimated.
  server = await startTestServer({ PREFETCH_MAX_SECONDS: '0' });
  api = server.client((await server.newAccount({ plan: 'pro' })).token);
  const retracto = await api.post('/v2/profiles/material', {
    name: 'Retracto',
    settings: { price_per_kg: 31, retraction_distance: 3.5 },
  });
  assert.equal(retracto.status, 201, JSON.stringify(retracto.body));
  const current = (await api.get('/v2/offer')).body;
  const { source: _source, ...offer } = current;
  const saved = await api.put('/v2/offer', {
    ...offer,
    materials: [
      { material: 'PLA', colors: [] },
      { material: 'PETG', colors: [] },
      { material: 'Retracto', colors: [] },
    ],
    default_material: 'PLA',
  });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
});
after(() => server.stop());

test('every material is estimated from one measurement of the part’s features', async () => {
  const up = await api.uploadBytes('/v2/file', PART, 'bracket.obj');
  assert.equal(up.status, 201, JSON.stringify(up.body));
  // The mesh workers' measurements, counted as they are asked for (each still runs).
  const parser = server.deps.parser;
  const features = parser.features;
  const measured: string[] = [];
  parser.features = (job, caller) => {
    measured.push(job.meshPath);
    return features.call(parser, job, caller);
  };
  try {
    const list = await api.get(`/v2/widget/files/${up.body.file_id}/prices`);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const rows = list.body.prices as { material: string; total_price: number | null; basis: string | null }[];
    assert.deepEqual(rows.map((r) => r.material).sort(), ['PETG', 'PLA', 'Retracto']);
    for (const r of rows) assert.ok(r.basis === 'estimate' && r.total_price! > 0, `${r.material} estimated`);
    assert.equal(measured.length, 1, 'one measurement for three materials, two of them slicing differently');
    // Asked again, the list measures nothing: every material's slicing key keeps the features.
    assert.equal((await api.get(`/v2/widget/files/${up.body.file_id}/prices`)).status, 200);
    assert.equal(measured.length, 1);
  } finally {
    parser.features = features;
  }
});

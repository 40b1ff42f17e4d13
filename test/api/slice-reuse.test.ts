// Settings that change neither extrusion nor print time never re-slice: the quote answers from the cached slice,
// with grams and filament length recomputed from its volume for the requested material.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { T_SHAPE_OBJ } from '../helpers/meshes.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: ApiClient;
let fileId: string;

before(async () => {
  server = await startTestServer();
  const a = await server.newAccount();
  api = server.client(a.token);
  fileId = (await api.uploadBytes('/v2/file', new TextEncoder().encode(T_SHAPE_OBJ), 't-shape.obj')).body.file_id;
});
after(() => server.stop());

async function quote(body: Record<string, unknown>) {
  const res = await api.post(`/v2/file/quote/${fileId}`, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

test('temperature, fan, filament density and diameter changes reuse the slice; grams and length follow by arithmetic', async () => {
  const base = { material_config: { filament_type: 'PLA' }, printer_config: { support_material: true } };
  const first = await quote(base);
  assert.equal(first.cached, false);
  const material = (m: Record<string, unknown>) => ({ ...base, material_config: { filament_type: 'PLA', ...m } });
  for (const m of [
    { temperature: 225, bed_temperature: 65 },
    { fan_speed: 60, min_fan_speed: 20 },
    { density: 2.48 },
    { diameter: 2.85 },
  ]) {
    const q = await quote(material(m));
    assert.equal(q.cached, true, `${JSON.stringify(m)} re-sliced`);
    assert.equal(q.estimated_time_seconds, first.estimated_time_seconds, JSON.stringify(m));
    assert.deepEqual(
      q.settings.material_config.temperature,
      (m as { temperature?: number }).temperature ?? 210,
      'the requested value is reported',
    );
  }
  const heavy = await quote(material({ density: 2.48 }));
  assert.ok(
    Math.abs(heavy.print_stats.filament_weight_g - 2 * first.print_stats.filament_weight_g) < 1e-9,
    'twice the density, twice the grams',
  );
  assert.ok(Math.abs(heavy.print_stats.support_weight_g - 2 * first.print_stats.support_weight_g) < 1e-9);
  assert.ok(heavy.price_breakdown.material > first.price_breakdown.material, 'twice the grams, a dearer material line');
  const thick = await quote(material({ diameter: 2.85 }));
  assert.equal(thick.print_stats.filament_weight_g, first.print_stats.filament_weight_g, 'same volume, same grams');
  const expectedLength = first.print_stats.filament_length_mm * (1.75 / 2.85) ** 2;
  assert.ok(
    Math.abs(thick.print_stats.filament_length_mm - expectedLength) < 0.02,
    `${thick.print_stats.filament_length_mm} vs ${expectedLength}`,
  );
});

test('support settings reuse the slice while supports are off; with supports on they re-slice', async () => {
  const off = { printer_config: { support_material: false } };
  const first = await quote(off);
  const again = await quote({
    printer_config: { support_material: false, support_density: 60, support_overhang_angle: 30, min_layer_height: 0.1 },
  });
  assert.equal(again.cached, true, 'support fields re-sliced without supports');
  assert.equal(again.filament_weight, first.filament_weight);
  const on = await quote({ printer_config: { support_material: true, support_density: 60 } });
  assert.equal(on.cached, false);
  assert.deepEqual(on.support_density, { requested: 60, used: 50 }, 'the density sliced is reported');
});

// The first-run checklist's price step (GET /v2/setup): done only when every material a shopper can pick (the
// offer's, and each widget key's own offer's) sells at the shop's own price, a price from one of its own material
// profiles; one shipped example price left is enough to keep it open, and the step names the materials still at one.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

/** A fresh shop: its API client and a dashboard session (widget keys and their offers are the dashboard's). */
async function shop() {
  const account = await server.newAccount();
  const dashboard = server.client();
  const login = await dashboard.post('/dashboard/api/login', { email: account.email, password: account.password });
  dashboard.csrf = login.body.csrf_token;
  return { api: server.client(account.token), dashboard };
}

const prices = async (api: ApiClient) => {
  const res = await api.get('/v2/setup');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.prices as { done: boolean; materials: number; example_priced_materials: string[] };
};

const own = async (api: ApiClient, name: string, settings: Record<string, unknown>) => {
  const res = await api.post('/v2/profiles/material', { name, settings });
  assert.equal(res.status, 201, JSON.stringify(res.body));
};

test('one own price among shipped ones leaves the step open, naming every material still at an example price', async () => {
  const { api } = await shop();
  const shipped = (await api.get('/v2/offer')).body.materials.map((m: { material: string }) => m.material);
  assert.ok(shipped.length > 2 && shipped.includes('PLA') && shipped.includes('PETG'), shipped.join(', '));
  const fresh = await prices(api);
  assert.deepEqual([fresh.done, fresh.materials, fresh.example_priced_materials], [false, shipped.length, shipped]);

  await own(api, 'PLA', { filament_type: 'PLA', price_per_kg: 30 });
  const pla = await prices(api);
  assert.equal(pla.done, false, 'PLA alone: PETG and the others still sell at the shipped example prices');
  assert.deepEqual(
    pla.example_priced_materials,
    shipped.filter((m: string) => m !== 'PLA'),
  );

  // An own profile of that name that sets no price still sells at the shipped price (its price is the global one).
  await own(api, 'PETG', { filament_type: 'PETG', colors: ['Black'] });
  assert.ok((await prices(api)).example_priced_materials.includes('PETG'));
});

test('done when every offered material has its own price; a widget key offering another material reopens it', async () => {
  const { api, dashboard } = await shop();
  await own(api, 'PLA', { filament_type: 'PLA', price_per_kg: 30 });
  await own(api, 'PETG', { filament_type: 'PETG', price_per_gram: 0.033 });
  const { source: _source, ...offer } = (await api.get('/v2/offer')).body;
  const pick = (names: string[]) => offer.materials.filter((m: { material: string }) => names.includes(m.material));
  const saved = await api.put('/v2/offer', { ...offer, materials: pick(['PLA', 'PETG']), default_material: 'PLA' });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  const done = await prices(api);
  assert.deepEqual([done.done, done.materials, done.example_priced_materials], [true, 2, []]);

  // A key whose shoppers may also pick ABS, at its shipped price.
  const key = (
    await dashboard.post('/dashboard/api/widget-keys', {
      name: 'Other shop',
      allowed_origins: ['https://other.example'],
    })
  ).body;
  const keyOffer = await dashboard.put(`/dashboard/api/widget-keys/${key.widget_key_id}/offer`, {
    ...offer,
    materials: pick(['PLA', 'ABS']),
    default_material: 'ABS',
  });
  assert.equal(keyOffer.status, 200, JSON.stringify(keyOffer.body));
  const open = await prices(api);
  assert.deepEqual([open.done, open.materials, open.example_priced_materials], [false, 3, ['ABS']]);
  const setup = (await api.get('/v2/setup')).body;
  assert.equal(setup.complete, false);

  await own(api, 'ABS', { filament_type: 'ABS', price_per_kg: 27 });
  const all = await prices(api);
  assert.deepEqual([all.done, all.example_priced_materials], [true, []]);

  // A revoked key's offer sells nothing: its materials no longer count.
  const other = (
    await dashboard.post('/dashboard/api/widget-keys', { name: 'Old', allowed_origins: ['https://old.example'] })
  ).body;
  const oldOffer = { ...offer, materials: pick(['TPU']), default_material: 'TPU' };
  assert.equal((await dashboard.put(`/dashboard/api/widget-keys/${other.widget_key_id}/offer`, oldOffer)).status, 200);
  assert.deepEqual((await prices(api)).example_priced_materials, ['TPU']);
  assert.equal((await dashboard.delete(`/dashboard/api/widget-keys/${other.widget_key_id}`)).status, 200);
  const back = await prices(api);
  assert.deepEqual([back.done, back.materials], [true, 3]);
});

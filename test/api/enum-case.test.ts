// One rule for enumerated values, in queries, paths and bodies: any letter case is accepted and the canonical
// spelling is stored and answered (docs/api-conventions.md); a value that is no member in any case is a 400.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: ApiClient;

before(async () => {
  server = await startTestServer();
  api = server.client((await server.newAccount()).token);
});
after(() => server.stop());

const enc = (s: string) => new TextEncoder().encode(s);

test('query enums: format, dataset, group_by and state in any case', async () => {
  const csv = await api.get('/v2/analytics/export?format=CSV&dataset=Quotes');
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
  assert.match(
    csv.headers.get('content-disposition') ?? '',
    /slicequote-quotes-\d{4}-\d\d-\d\d\.csv"/,
    'named in the canonical spelling',
  );
  const json = await api.get('/v2/analytics/export?format=Json&dataset=USAGE');
  assert.deepEqual([json.status, json.body.dataset], [200, 'usage']);
  const weekly = await api.get('/v2/analytics/quotes?group_by=WEEK');
  assert.deepEqual([weekly.status, weekly.body.group_by], [200, 'week']);
  const monthly = await api.get('/v2/analytics/cost-trends?group_by=Month');
  assert.deepEqual([monthly.status, monthly.body.group_by], [200, 'month']);
  const hook = await api.post('/v2/webhooks', { url: 'https://93.184.215.14/hooks/x', events: ['usage.alert'] });
  const deliveries = await api.get(`/v2/webhooks/${hook.body.webhook_id}/deliveries?state=FAILED`);
  assert.equal(deliveries.status, 200);
  for (const bad of [
    '/v2/analytics/export?format=xml',
    '/v2/analytics/quotes?group_by=weeks',
    `/v2/webhooks/${hook.body.webhook_id}/deliveries?state=lost`,
  ]) {
    assert.equal((await api.get(bad)).status, 400, bad);
  }
});

test('body enums: webhook events, units, infill pattern, currencies and exchange-rate codes are stored canonical', async () => {
  const hook = await api.post('/v2/webhooks', {
    url: 'https://93.184.215.14/hooks/y',
    events: ['QUOTE.COMPLETED', 'File.Uploaded'],
  });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  assert.deepEqual([...hook.body.events].sort(), ['file.uploaded', 'quote.completed']);
  const updated = await api.put(`/v2/webhooks/${hook.body.webhook_id}`, { events: ['Usage.Alert'] });
  assert.deepEqual(updated.body.events, ['usage.alert']);
  assert.equal(
    (await api.post('/v2/webhooks', { url: 'https://93.184.215.14/hooks/z', events: ['quote.done'] })).status,
    400,
  );

  const inches = await api.uploadBytes('/v2/file?unit=IN', enc(CUBE_OBJ), 'cube.obj');
  assert.deepEqual([inches.status, inches.body.unit], [201, 'in']);
  const form = new FormData();
  form.append('unit', 'CM');
  form.append('file', new Blob([enc(CUBE_OBJ)]), 'cube.obj');
  const same = await api.request('POST', '/v2/file?unit=cm', { form });
  assert.deepEqual([same.status, same.body.unit], [201, 'cm'], 'the field and the query agree whatever their case');
  const rescaled = await api.post(`/v2/file/scale/${inches.body.file_id}`, { unit: 'MM' });
  assert.deepEqual([rescaled.status, rescaled.body.unit], [200, 'mm']);

  const printer = await api.post('/v2/profiles/PRINTER', { name: 'Gyro', settings: { infill_pattern: 'GYROID' } });
  assert.deepEqual(
    [printer.status, printer.body.kind, printer.body.settings.infill_pattern],
    [201, 'printer', 'gyroid'],
  );
  assert.equal(
    (await api.get(`/v2/profiles/Printer/${printer.body.profile_id}`)).body.settings.infill_pattern,
    'gyroid',
  );
  const global = await api.post('/v2/profiles/global', {
    name: 'Shop',
    settings: { currency: 'usd', exchange_rates: { eur: 0.92, Jpy: 150 } },
  });
  assert.equal(global.status, 201, JSON.stringify(global.body));
  assert.deepEqual(
    [global.body.settings.currency, global.body.settings.exchange_rates],
    ['USD', { EUR: 0.92, JPY: 150 }],
  );
  assert.equal(
    (await api.post('/v2/profiles/printer', { name: 'Bad', settings: { infill_pattern: 'gyroids' } })).status,
    400,
  );

  const { source: _source, ...offer } = (await api.get('/v2/offer')).body;
  const qualities = [{ id: 'strong', label: 'Strong', printer_config: { infill_pattern: 'Cubic' } }];
  const saved = await api.put('/v2/offer', { ...offer, qualities, default_quality: 'strong' });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  assert.equal(saved.body.qualities[0].printer_config.infill_pattern, 'cubic');
});

test('a quote with enums in any case slices and answers them canonical', async () => {
  const cube = (await api.uploadBytes('/v2/file', enc(CUBE_OBJ), 'cube.obj')).body.file_id;
  const res = await api.post(`/v2/file/quote/${cube}`, {
    printer_config: { infill_pattern: 'GYROID', fill_density: 17 },
    material_config: { filament_type: 'pla' },
    quote_config: { currency: 'usd' },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.infill_pattern, { requested: 'gyroid', used: 'gyroid', exact: true });
  assert.equal(res.body.settings.printer_config.infill_pattern, 'gyroid');
  assert.deepEqual([res.body.currency, res.body.printInfo.material], ['USD', 'PLA']);
  const lower = await api.post(`/v2/file/quote/${cube}`, {
    printer_config: { infill_pattern: 'gyroid', fill_density: 17 },
  });
  assert.equal(lower.body.cached, true, 'the same settings, whatever their case: the same slice');
});

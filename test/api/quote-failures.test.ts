// Every refused quote is a failed quote (history with its error, quote.failed, analytics), on both paths;
// job.status_changed goes to asynchronous jobs only, whether a synchronous quote was sliced or cached.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventsForAccount } from '../../server/outbox/sql.ts';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { until } from '../helpers/poll.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

async function shop() {
  const account = await server.newAccount();
  const api = server.client(account.token);
  const cube = (await api.uploadBytes('/v2/file', new TextEncoder().encode(CUBE_OBJ), 'cube.obj')).body
    .file_id as string;
  const events = async (id: string) =>
    (await eventsForAccount(server.deps.db, account.accountId))
      .filter((e) => (e.payload as any).data.quoteId === id)
      .map((e) => e.event);
  const transitions = async (id: string) =>
    (await eventsForAccount(server.deps.db, account.accountId, 'job.status_changed'))
      .map((e) => (e.payload as any).data)
      .filter((d) => d.quoteId === id)
      .map((d) => d.status);
  return { ...account, api, cube, events, transitions };
}

async function waitForJob(api: ApiClient, id: string) {
  return until(`job ${id} to finish`, 60_000, async () => {
    const job = (await api.get(`/v2/jobs/${id}`)).body;
    return job.status === 'completed' || job.status === 'failed' ? job : undefined;
  });
}

const REFUSALS: [name: string, body: unknown, status: number][] = [
  ['unknown_material', { material_config: { filament_type: 'Unobtainium' } }, 422],
  ['settings_conflict', { printer_config: { nozzle_diameter: 0.25, layer_height: 0.3, max_layer_height: 0.3 } }, 422],
  ['material_price_missing', { material_config: { filament_type: 'Mystery' } }, 422],
  ['currency_not_offered', { quote_config: { currency: 'JPY' } }, 422],
  ['exceeds_build_volume', { printer_config: { bed_size_x: 10, bed_size_y: 10 } }, 422],
];

for (const mode of ['sync', 'async'] as const) {
  test(`${mode}: every refusal of a quote is a failed quote in history with its error and quote.failed, counted by analytics`, async () => {
    const { api, cube, events } = await shop();
    assert.equal(
      (await api.post('/v2/profiles/material', { name: 'Mystery', settings: { density: 1.2 } })).status,
      201,
    );
    const path = `/v2/file/quote/${cube}${mode === 'async' ? '/async' : ''}`;
    const ids: string[] = [];
    for (const [code, body, status] of REFUSALS) {
      const res = await api.post(path, body);
      // An async request refused for its build volume was already a job: answered 202, failed at once.
      const id = res.status === 202 ? res.body.job_id : res.body.error?.details?.quote_id;
      if (res.status !== 202)
        assert.deepEqual([res.status, res.body.error.code], [status, code], JSON.stringify(res.body));
      assert.match(id ?? '', mode === 'async' ? /^job_/ : /^qt_/, `${code}: the error names the recorded quote`);
      ids.push(id);
      const stored = await api.get(`/v2/quotes/${id}`);
      assert.deepEqual([stored.body.status, stored.body.mode, stored.body.error.code], ['failed', mode, code]);
      const job = await api.get(`/v2/jobs/${id}`);
      assert.deepEqual([job.body.status, job.body.progress, job.body.error.code], ['failed', 100, code]);
      const sent = await events(id);
      assert.equal(sent.filter((e) => e === 'quote.failed').length, 1, `${code}: quote.failed once`);
      if (res.status !== 202)
        assert.ok(!sent.includes('job.status_changed'), `${code}: answered at once, there is no job to follow`);
    }
    const history = await api.get('/v2/quotes?limit=100');
    assert.deepEqual(history.body.data.map((q: any) => q.quote_id).sort(), [...ids].sort());
    const totals = (await api.get('/v2/analytics/quotes')).body.totals;
    assert.deepEqual([totals.completed, totals.failed], [0, REFUSALS.length]);
  });
}

test('refusals of the request rather than the quote are not recorded: no such file, malformed body, unreadable JSON', async () => {
  const { api, cube, accountId } = await shop();
  assert.equal((await api.post('/v2/file/quote/file_doesnotexist', {})).status, 404);
  for (const body of [{ printer_config: { fill_density: 200 } }, { colour: 'red' }, [1, 2]]) {
    const res = await api.post(`/v2/file/quote/${cube}`, body);
    assert.deepEqual(
      [res.status, res.body.error.code, res.body.error.details.quote_id],
      [400, 'validation_failed', undefined],
    );
  }
  const bad = await api.request('POST', `/v2/file/quote/${cube}`, {
    raw: '{"printer_config":',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(bad.body.error.code, 'invalid_json');
  assert.equal((await api.get('/v2/quotes')).body.total, 0);
  assert.deepEqual(await eventsForAccount(server.deps.db, accountId, 'quote.failed'), []);
});

test('a quote priced out of range is a failed quote whether sliced or from the cache', async () => {
  const { api, cube, events } = await shop();
  assert.equal(
    (
      await api.post('/v2/profiles/global', {
        name: 'Shop',
        is_default: true,
        settings: { exchange_rates: { IDR: 1e9 } },
      })
    ).status,
    201,
  );
  const body = {
    material_config: { price_per_gram: 1000 },
    quote_config: { currency: 'IDR' },
    printer_config: { fill_density: 29 },
  };
  for (const attempt of ['sliced', 'cached']) {
    const res = await api.post(`/v2/file/quote/${cube}`, body);
    assert.deepEqual([res.status, res.body.error.code], [422, 'price_out_of_range'], attempt);
    const id = res.body.error.details.quote_id;
    assert.equal((await api.get(`/v2/quotes/${id}`)).body.error.code, 'price_out_of_range', attempt);
    assert.deepEqual(
      await events(id),
      ['quote.failed'],
      `${attempt}: quote.failed, and no job.status_changed for a synchronous quote`,
    );
  }
});

test('job.status_changed: none for synchronous quotes, sliced or cached; every transition for async jobs', async () => {
  const { api, cube, events, transitions } = await shop();
  const body = { printer_config: { fill_density: 31 } };
  const sliced = await api.post(`/v2/file/quote/${cube}`, body);
  assert.deepEqual([sliced.status, sliced.body.cached], [200, false]);
  const cached = await api.post(`/v2/file/quote/${cube}`, body);
  assert.deepEqual([cached.status, cached.body.cached], [200, true]);
  for (const q of [sliced.body, cached.body])
    assert.deepEqual(await events(q.quote_id), ['quote.completed'], `cached: ${q.cached}`);

  const job = await api.post(`/v2/file/quote/${cube}/async`, { printer_config: { fill_density: 33 } });
  assert.equal(job.status, 202);
  assert.equal((await waitForJob(api, job.body.job_id)).status, 'completed');
  const cachedJob = await api.post(`/v2/file/quote/${cube}/async`, body);
  assert.equal((await waitForJob(api, cachedJob.body.job_id)).result.cached, true);
  for (const id of [job.body.job_id, cachedJob.body.job_id]) {
    assert.deepEqual(
      await transitions(id),
      ['queued', 'processing', 'completed'],
      'an async job, sliced or from the cache',
    );
    assert.ok((await events(id)).includes('quote.completed'));
  }
});

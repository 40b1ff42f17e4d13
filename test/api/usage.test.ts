// GET /v2/usage from live traffic: what the request log records (route template, status, account, token),
// how it batches, and the daily series. (Fixture-based numbers are in analytics.test.ts.)

import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import type { Db } from '../../server/db/index.ts';
import type { RequestRecord } from '../../server/limits/counters-sql.ts';
import { createRequestLog } from '../../server/limits/request-log.ts';
import { corpusBytes } from '../helpers/corpus.ts';
import { until } from '../helpers/poll.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());
afterEach(() => {
  server.deps.now = () => new Date();
});

test('live requests are recorded with their route template, status, account and token', async () => {
  server.deps.now = () => new Date('2031-03-10T12:00:00Z');
  const a = await server.newAccount();
  const live = server.client(a.token);
  assert.equal((await live.get('/v2/file/file_nothere')).status, 404);
  assert.equal((await live.get('/v2/file/file_other')).status, 404);
  assert.equal((await live.get('/v2/user')).status, 200);
  assert.equal((await live.get('/v2/file/upload-id')).status, 200);
  assert.equal((await live.get('/v2/no-such-route')).status, 404);
  const res = await live.get('/v2/usage');
  assert.equal(res.status, 200);
  const byRoute = Object.fromEntries(
    res.body.endpoints.map((e: any) => [`${e.method} ${e.route}`, [e.calls, e.errors]]),
  );
  assert.deepEqual(byRoute, {
    'GET /v2/file/:file_id': [2, 2],
    'GET /v2/user': [1, 0],
    'GET /v2/file/upload-id': [1, 0],
    'GET (unmatched)': [1, 1],
  });
  for (const e of res.body.endpoints) assert.ok(e.median_ms >= 0 && e.p95_ms >= e.median_ms);
  assert.deepEqual([res.body.from, res.body.to, res.body.daily.length], ['2031-02-09', '2031-03-10', 30]);
  assert.deepEqual(res.body.daily.at(-1), {
    date: '2031-03-10',
    calls: 5,
    errors: 3,
    cancelled: 0,
    quotes: 0,
    grams: 0,
  });
  assert.deepEqual([res.body.totals.calls, res.body.totals.errors], [5, 3]);
  const tokens = await server.deps.db.query<{ token_id: string }>(
    'SELECT DISTINCT token_id FROM api_requests WHERE account_id = $1',
    [a.accountId],
  );
  assert.deepEqual(
    tokens.map((t) => t.token_id),
    [a.tokenId],
  );
  // The /v2/usage call itself is in the next answer.
  const again = await live.get('/v2/usage');
  assert.equal(again.body.endpoints.find((e: any) => e.route === '/v2/usage').calls, 1);
});

test('a request the client abandons (a superseded quote) counts as cancelled, not as an error', async () => {
  server.deps.now = () => new Date('2031-01-10T12:00:00Z');
  const a = await server.newAccount();
  const live = server.client(a.token);
  // 3DBenchy slices for seconds even on an idle machine (a 20 mm cube takes 0.2 s and would beat the abort).
  const fileId = (await live.uploadBytes('/v2/file', corpusBytes('stl', '3DBenchy.stl'), '3DBenchy.stl')).body.file_id;
  const gone = new AbortController();
  const request = fetch(`${server.url}/v2/file/quote/${fileId}`, {
    method: 'POST',
    signal: gone.signal,
    body: '{}',
    headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' },
  });
  // The slice takes seconds: once it runs, the shopper changed an option meanwhile.
  await until('the slice to start', 60_000, async () => {
    const rows = await server.deps.db.query(`SELECT 1 FROM quotes WHERE file_id = $1 AND status = 'processing'`, [
      fileId,
    ]);
    return rows.length ? true : undefined;
  });
  gone.abort();
  await assert.rejects(request);
  const quoteRoute = (body: any) => body.endpoints.find((e: any) => e.route === '/v2/file/quote/:file_id');
  // The server records the request once it notices the caller left.
  const res = await until('the abandoned request in the usage', 20_000, async () => {
    const r = await live.get('/v2/usage');
    return quoteRoute(r.body) ? r : undefined;
  });
  const quote = quoteRoute(res.body);
  assert.deepEqual([quote.calls, quote.errors, quote.cancelled], [1, 0, 1]);
  assert.deepEqual([res.body.totals.errors, res.body.totals.cancelled], [0, 1]);
  assert.equal(res.body.daily.at(-1).cancelled, 1);
});

test("requests without an account (an invalid token) are not recorded; another account's usage is separate", async () => {
  server.deps.now = () => new Date('2031-04-10T12:00:00Z');
  assert.equal((await server.client('bad.token.value').get('/v2/user')).status, 401);
  const a = await server.newAccount();
  const b = await server.newAccount();
  await server.client(a.token).get('/v2/user');
  const res = await server.client(b.token).get('/v2/usage');
  assert.deepEqual(res.body.endpoints, []);
  const orphan = await server.deps.db.query(
    'SELECT 1 FROM api_requests WHERE created_at >= $1 AND account_id NOT IN ($2, $3)',
    ['2031-04-10T00:00:00Z', a.accountId, b.accountId],
  );
  assert.equal(orphan.length, 0);
});

function fakeDb(fail: () => boolean) {
  const batches: number[] = [];
  const db = {
    kind: 'pglite',
    async query(sql: string, params: unknown[] = []) {
      if (sql.startsWith('INSERT INTO api_requests')) {
        if (fail()) throw new Error('database down');
        batches.push(params.length / 8); // 8 parameters per row (insertRequests)
      }
      return [];
    },
  } as unknown as Db;
  return { db, batches };
}

const record = (i: number): RequestRecord => ({
  account_id: 'usr_x',
  token_id: null,
  via: 'session',
  method: 'GET',
  route: '/v2/user',
  status: 200,
  duration_ms: i,
  created_at: new Date(),
});

test('the request log writes in batches, keeps rows while the database is down, and caps its buffer', async () => {
  let down = false;
  const { db, batches } = fakeDb(() => down);
  const errors: string[] = [];
  const log = createRequestLog({
    db,
    log: { error: (m) => errors.push(m) },
    flushMs: 60_000,
    retentionDays: 400,
    maxBatch: 100,
    maxBuffered: 250,
    now: () => new Date(),
  });
  for (let i = 0; i < 99; i++) log.record(record(i));
  assert.deepEqual(batches, [], 'nothing written before a batch is full or the timer fires');
  log.record(record(99));
  await log.flush();
  assert.deepEqual(batches, [100], 'a full batch is written at once, in one INSERT');
  down = true;
  for (let i = 0; i < 300; i++) log.record(record(i));
  await log.flush();
  assert.equal(log.pending, 250, 'at most maxBuffered rows wait while the database is down');
  assert.ok(errors.length >= 1);
  down = false;
  await log.stop();
  assert.equal(log.pending, 0);
  assert.deepEqual(batches, [100, 100, 100, 50]);
});

test('calls are told apart by caller: API token, widget key and the dashboard session; ?via selects which count', async () => {
  server.deps.now = () => new Date('2031-05-10T12:00:00Z');
  const dashboard = server.client();
  const signup = await dashboard.post('/dashboard/api/signup', {
    email: `via-${Date.now()}@example.test`,
    password: 'a long enough password',
    shop_name: 'Via',
  });
  assert.equal(signup.status, 201);
  dashboard.csrf = signup.body.csrf_token;
  const token = (await dashboard.post('/dashboard/api/tokens', { name: 'backend' })).body.token;
  const key = (
    await dashboard.post('/dashboard/api/widget-keys', { name: 'Shop', allowed_origins: ['https://shop.example'] })
  ).body.key;
  const api = server.client(token);
  assert.equal((await api.get('/v2/user')).status, 200);
  assert.equal((await api.get('/v2/file/file_nothere')).status, 404);
  const shop = server.client();
  const widgetHeaders = { 'x-widget-key': key, origin: 'https://shop.example' };
  assert.equal((await shop.request('GET', '/v2/widget/config', { headers: widgetHeaders })).status, 200);
  const uploadId = await shop.request('GET', '/v2/file/upload-id', { headers: widgetHeaders });
  assert.equal(uploadId.status, 200);
  // The upload through the widget's upload id carries no key, yet it is the widget's call.
  const upload = await shop.uploadBytes(
    `/v2/file/public/${uploadId.body.upload_id}`,
    new Uint8Array([1, 2, 3]),
    'junk.stl',
  );
  assert.equal(upload.status >= 400, true, 'three bytes are no model');
  assert.equal((await dashboard.get('/v2/user')).status, 200);
  assert.equal((await dashboard.get('/v2/quota')).status, 200);

  // The dashboard's view: API calls only (tokens and widget), its own calls apart in `callers`.
  const res = await dashboard.get('/v2/usage?via=token,widget');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.via, ['token', 'widget']);
  const byRoute = Object.fromEntries(res.body.endpoints.map((e: any) => [`${e.method} ${e.route}`, e.calls]));
  assert.deepEqual(byRoute, {
    'GET /v2/user': 1,
    'GET /v2/file/:file_id': 1,
    'GET /v2/widget/config': 1,
    'GET /v2/file/upload-id': 1,
    'POST /v2/file/public/:upload_id': 1,
  });
  assert.deepEqual([res.body.totals.calls, res.body.totals.errors, res.body.daily.at(-1).calls], [5, 2, 5]);
  assert.deepEqual(res.body.callers, [
    { via: 'token', calls: 2, errors: 1, cancelled: 0 },
    { via: 'widget', calls: 3, errors: 1, cancelled: 0 },
    { via: 'session', calls: 2, errors: 0, cancelled: 0 },
  ]);
  // Only the dashboard's own calls (the first /v2/usage call is now in the log too); and all of them by default.
  const own = await dashboard.get('/v2/usage?via=SESSION');
  assert.deepEqual(own.body.endpoints.map((e: any) => `${e.route}:${e.calls}`).sort(), [
    '/v2/quota:1',
    '/v2/usage:1',
    '/v2/user:1',
  ]);
  const all = await api.get('/v2/usage');
  assert.deepEqual(all.body.via, ['token', 'widget', 'session']);
  assert.equal(all.body.totals.calls, 2 + 3 + 4);

  for (const bad of ['api', 'token,', '']) {
    const refused = await api.get(`/v2/usage?via=${bad}`);
    assert.equal(refused.status, 400, bad);
    assert.equal(refused.body.error.details.fields[0].field, 'via');
  }
});

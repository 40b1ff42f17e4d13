// Analytics and /v2/usage numbers against hand-computed fixtures inserted into quotes and api_requests.
// The same expectations run on PGlite and on PostgreSQL (SQ_TEST_DB), so both must agree to the digit.

import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let c: ApiClient;
let accountId: string;

interface Fixture {
  id: string;
  status?: string;
  material: string;
  color: string;
  printer: string;
  currency: string;
  price: number;
  grams: number;
  seconds: number;
  cached?: boolean;
  finished: string;
  deleted?: string;
  config: [number, number, string, boolean];
}

const GYROID: Fixture['config'] = [0.2, 20, 'gyroid', false];
const GRID: Fixture['config'] = [0.3, 15, 'grid', true];

// 2031-01-05 is a Sunday (ISO week 2031-W01 starts Monday 2030-12-30); 2031-01-06 a Monday (W02).
const FIXTURES: Fixture[] = [
  {
    id: 'qt_a1',
    material: 'PLA',
    color: 'red',
    printer: 'P1',
    currency: 'EUR',
    price: 10.1,
    grams: 20.25,
    seconds: 3600,
    finished: '2031-01-05T10:00:00Z',
    config: GYROID,
  },
  {
    id: 'qt_a2',
    material: 'PLA',
    color: 'blue',
    printer: 'P1',
    currency: 'EUR',
    price: 0.1,
    grams: 1.1,
    seconds: 600,
    cached: true,
    finished: '2031-01-05T23:30:00Z',
    config: GYROID,
  },
  {
    id: 'qt_a3',
    material: 'PLA',
    color: 'red',
    printer: 'P2',
    currency: 'EUR',
    price: 0.2,
    grams: 2.2,
    seconds: 1200,
    finished: '2031-01-06T00:30:00Z',
    deleted: '2031-01-20T00:00:00Z',
    config: GYROID,
  },
  {
    id: 'qt_a4',
    material: 'PETG',
    color: 'black',
    printer: 'P1',
    currency: 'EUR',
    price: 25.55,
    grams: 50,
    seconds: 7200,
    finished: '2031-01-13T12:00:00Z',
    config: GRID,
  },
  {
    id: 'qt_a5',
    material: 'PETG',
    color: 'black',
    printer: 'P1',
    currency: 'USD',
    price: 30,
    grams: 40,
    seconds: 5400,
    finished: '2031-02-01T00:00:00Z',
    config: GRID,
  },
  {
    id: 'qt_a6',
    status: 'failed',
    material: 'PLA',
    color: 'red',
    printer: 'P1',
    currency: 'EUR',
    price: 0,
    grams: 0,
    seconds: 0,
    finished: '2031-01-07T08:00:00Z',
    config: GYROID,
  },
  {
    id: 'qt_a7',
    status: 'queued',
    material: 'PLA',
    color: 'red',
    printer: 'P1',
    currency: 'EUR',
    price: 0,
    grams: 0,
    seconds: 0,
    finished: '2031-01-08T08:00:00Z',
    config: GYROID,
  },
  // Just before the range.
  {
    id: 'qt_a8',
    material: 'ABS',
    color: 'white',
    printer: 'P9',
    currency: 'EUR',
    price: 99,
    grams: 99,
    seconds: 99,
    finished: '2030-12-31T23:59:59.999Z',
    config: GRID,
  },
];

/** FIXTURES[i], which the list above must have. */
function fixture(i: number): Fixture {
  const f = FIXTURES[i];
  assert.ok(f, `no fixture ${i}`);
  return f;
}

async function insertQuote(account: string, f: Fixture) {
  const status = f.status ?? 'completed';
  const done = status === 'completed';
  const [layer_height, fill_density, infill_pattern, support_material] = f.config;
  const resolved = { settings: { printer: { layer_height, fill_density, infill_pattern, support_material } } };
  await server.deps.db.query(
    `INSERT INTO quotes (id, account_id, file_id, file_name, mode, status, request, resolved, material, color, printer, currency,
       total_price, filament_weight_g, print_time_s, cached, created_at, finished_at, deleted_at)
     VALUES ($1, $2, 'file_fixture', 'fixture.stl', 'sync', $3, '{}', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [
      `${f.id}_${account.slice(-6)}`,
      account,
      status,
      JSON.stringify(resolved),
      f.material,
      f.color,
      f.printer,
      done ? f.currency : null,
      done ? f.price : null,
      done ? f.grams : null,
      done ? f.seconds : null,
      done ? (f.cached ?? false) : null,
      new Date(Date.parse(f.finished) - 60_000).toISOString(),
      status === 'queued' ? null : f.finished,
      f.deleted ?? null,
    ],
  );
}

async function insertRequest(account: string, route: string, status: number, ms: number, at: string) {
  await server.deps.db.query(
    `INSERT INTO api_requests (account_id, token_id, via, method, route, status, duration_ms, created_at) VALUES ($1, NULL, 'session', 'GET', $2, $3, $4, $5)`,
    [account, route, status, ms, at],
  );
}

/**
 * Every database session of the test server runs in UTC+14, so any day or week taken in the session's time
 * zone instead of UTC shows up as a wrong bucket. PGlite has one session; the PostgreSQL pool has five, all
 * held at once here so that each one gets the setting.
 */
async function farEastSessions() {
  const sessions = server.deps.db.kind === 'pglite' ? 1 : 5;
  let arrived = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  await Promise.all(
    Array.from({ length: sessions }, () =>
      server.deps.db.transaction(async (tx) => {
        await tx.query(`SET TIME ZONE 'Pacific/Kiritimati'`);
        if (++arrived === sessions) release();
        await gate;
      }),
    ),
  );
}

before(async () => {
  server = await startTestServer();
  await farEastSessions();
  const a = await server.newAccount();
  accountId = a.accountId;
  c = server.client(a.token);
  for (const f of FIXTURES) await insertQuote(accountId, f);
  for (const [status, ms] of [
    [200, 10],
    [200, 20],
    [404, 30],
    [500, 40],
  ] as const)
    await insertRequest(accountId, '/v2/file/:file_id', status, ms, '2031-01-05T12:00:00Z');
  await insertRequest(accountId, '/v2/user', 200, 5.5, '2031-01-06T00:00:00Z');
  await insertRequest(accountId, '/v2/user', 200, 1, '2030-12-31T23:59:59Z'); // before the range
  // Another account's data never shows.
  const other = await server.newAccount();
  await insertQuote(other.accountId, { ...fixture(0), material: 'NYLON' });
  await insertRequest(other.accountId, '/v2/user', 500, 999, '2031-01-05T12:00:00Z');
});
after(() => server.stop());
afterEach(() => {
  server.deps.now = () => new Date();
});

const RANGE = 'from=2031-01-01&to=2031-02-01';

test('GET /v2/analytics/quotes: totals, prices per currency, material shares and trends', async () => {
  const res = await c.get(`/v2/analytics/quotes?${RANGE}`);
  assert.equal(res.status, 200);
  assert.equal(res.body.from, '2031-01-01');
  assert.equal(res.body.to, '2031-02-01');
  assert.equal(res.body.group_by, 'day');
  // deleted quotes still count (qt_a3); the queued one and the one on 2030-12-31 do not.
  assert.deepEqual(res.body.totals, {
    completed: 5,
    failed: 1,
    cached: 1,
    deleted: 1,
    grams: 113.55,
    print_time_s: 18000,
    success_rate: 0.8333,
  });
  assert.deepEqual(res.body.prices, [
    // 10.1 + 0.1 + 0.2 + 25.55 = 35.95 exactly (numeric sum; in floats 0.1 + 0.2 would not be 0.3); 35.95 / 4 = 8.9875 -> 8.99
    { currency: 'EUR', quotes: 4, total: 35.95, average: 8.99, min: 0.1, max: 25.55, average_per_gram: 0.4888 },
    { currency: 'USD', quotes: 1, total: 30, average: 30, min: 30, max: 30, average_per_gram: 0.75 },
  ]);
  assert.deepEqual(res.body.materials, [
    { material: 'PLA', quotes: 3, grams: 23.55, share: 0.6 },
    { material: 'PETG', quotes: 2, grams: 90, share: 0.4 },
  ]);
  assert.deepEqual(res.body.material_trends, [
    { period_start: '2031-01-05', period: '2031-01-05', material: 'PLA', quotes: 2, grams: 21.35 },
    { period_start: '2031-01-06', period: '2031-01-06', material: 'PLA', quotes: 1, grams: 2.2 },
    { period_start: '2031-01-13', period: '2031-01-13', material: 'PETG', quotes: 1, grams: 50 },
    { period_start: '2031-02-01', period: '2031-02-01', material: 'PETG', quotes: 1, grams: 40 },
  ]);
  const monthly = await c.get(`/v2/analytics/quotes?${RANGE}&group_by=month`);
  assert.deepEqual(monthly.body.material_trends, [
    { period_start: '2031-01-01', period: '2031-01', material: 'PLA', quotes: 3, grams: 23.55 },
    { period_start: '2031-01-01', period: '2031-01', material: 'PETG', quotes: 1, grams: 50 },
    { period_start: '2031-02-01', period: '2031-02', material: 'PETG', quotes: 1, grams: 40 },
  ]);
});

test('GET /v2/analytics/cost-trends groups by UTC day, ISO week (Monday) and month', async () => {
  const week = await c.get(`/v2/analytics/cost-trends?group_by=week&${RANGE}`);
  assert.equal(week.status, 200);
  assert.deepEqual(week.body.series, [
    // Sunday 2031-01-05 belongs to the ISO week that started on Monday 2030-12-30.
    {
      period_start: '2030-12-30',
      period: '2031-W01',
      currency: 'EUR',
      quotes: 2,
      total: 10.2,
      average: 5.1,
      min: 0.1,
      max: 10.1,
      average_per_gram: 0.4778,
      grams: 21.35,
    },
    {
      period_start: '2031-01-06',
      period: '2031-W02',
      currency: 'EUR',
      quotes: 1,
      total: 0.2,
      average: 0.2,
      min: 0.2,
      max: 0.2,
      average_per_gram: 0.0909,
      grams: 2.2,
    },
    {
      period_start: '2031-01-13',
      period: '2031-W03',
      currency: 'EUR',
      quotes: 1,
      total: 25.55,
      average: 25.55,
      min: 25.55,
      max: 25.55,
      average_per_gram: 0.511,
      grams: 50,
    },
    {
      period_start: '2031-01-27',
      period: '2031-W05',
      currency: 'USD',
      quotes: 1,
      total: 30,
      average: 30,
      min: 30,
      max: 30,
      average_per_gram: 0.75,
      grams: 40,
    },
  ]);
  const month = await c.get(`/v2/analytics/cost-trends?group_by=month&${RANGE}`);
  assert.deepEqual(
    month.body.series.map((s: any) => [s.period, s.currency, s.quotes, s.total, s.average]),
    [
      ['2031-01', 'EUR', 4, 35.95, 8.99],
      ['2031-02', 'USD', 1, 30, 30],
    ],
  );
  const day = await c.get(`/v2/analytics/cost-trends?${RANGE}`);
  assert.equal(day.body.group_by, 'day');
  assert.deepEqual(
    day.body.series.map((s: any) => [s.period, s.quotes, s.total]),
    [
      ['2031-01-05', 2, 10.2],
      ['2031-01-06', 1, 0.2],
      ['2031-01-13', 1, 25.55],
      ['2031-02-01', 1, 30],
    ],
  );
});

test('GET /v2/analytics/popular ranks materials, colours, printers and configurations', async () => {
  const res = await c.get(`/v2/analytics/popular?${RANGE}`);
  assert.equal(res.status, 200);
  assert.equal(res.body.limit, 10);
  assert.deepEqual(
    res.body.materials.map((m: any) => [m.material, m.quotes]),
    [
      ['PLA', 3],
      ['PETG', 2],
    ],
  );
  assert.deepEqual(res.body.colors, [
    { material: 'PETG', color: 'black', quotes: 2 },
    { material: 'PLA', color: 'red', quotes: 2 },
    { material: 'PLA', color: 'blue', quotes: 1 },
  ]);
  assert.deepEqual(res.body.printers, [
    { printer: 'P1', quotes: 4 },
    { printer: 'P2', quotes: 1 },
  ]);
  assert.deepEqual(res.body.configurations, [
    {
      printer: 'P1',
      layer_height: 0.2,
      fill_density: 20,
      infill_pattern: 'gyroid',
      support_material: false,
      quotes: 2,
    },
    { printer: 'P1', layer_height: 0.3, fill_density: 15, infill_pattern: 'grid', support_material: true, quotes: 2 },
    {
      printer: 'P2',
      layer_height: 0.2,
      fill_density: 20,
      infill_pattern: 'gyroid',
      support_material: false,
      quotes: 1,
    },
  ]);
  const top = await c.get(`/v2/analytics/popular?${RANGE}&limit=1`);
  assert.deepEqual(
    [top.body.materials.length, top.body.colors.length, top.body.printers.length, top.body.configurations.length],
    [1, 1, 1, 1],
  );
});

test('GET /v2/usage: endpoint statistics, material usage and zero-filled daily trends', async () => {
  const res = await c.get(`/v2/usage?${RANGE}`);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.totals, { calls: 5, errors: 2, cancelled: 0, quotes: 5, grams: 113.55 });
  assert.deepEqual(res.body.endpoints, [
    // durations 10, 20, 30, 40: median 25; p95 interpolated at 0.95 * 3 = 2.85 -> 30 + 0.85 * 10 = 38.5
    { method: 'GET', route: '/v2/file/:file_id', calls: 4, errors: 2, cancelled: 0, median_ms: 25, p95_ms: 38.5 },
    { method: 'GET', route: '/v2/user', calls: 1, errors: 0, cancelled: 0, median_ms: 5.5, p95_ms: 5.5 },
  ]);
  assert.deepEqual(res.body.materials, [
    { material: 'PLA', quotes: 3, grams: 23.55 },
    { material: 'PETG', quotes: 2, grams: 90 },
  ]);
  assert.equal(res.body.daily.length, 32);
  assert.deepEqual(res.body.daily[0], { date: '2031-01-01', calls: 0, errors: 0, cancelled: 0, quotes: 0, grams: 0 });
  const busy = res.body.daily.filter((d: any) => d.calls || d.quotes);
  assert.deepEqual(busy, [
    { date: '2031-01-05', calls: 4, errors: 2, cancelled: 0, quotes: 2, grams: 21.35 },
    { date: '2031-01-06', calls: 1, errors: 0, cancelled: 0, quotes: 1, grams: 2.2 },
    { date: '2031-01-13', calls: 0, errors: 0, cancelled: 0, quotes: 1, grams: 50 },
    { date: '2031-02-01', calls: 0, errors: 0, cancelled: 0, quotes: 1, grams: 40 },
  ]);
});

test("conversion: shoppers' uploads quoted → ordered → taken by a cart, an upload's explorations counted once; order value", async () => {
  const shop = await server.newAccount();
  const widgetQuote = async (id: string, file: string, finished: string, widgetKey: string | null = 'wk_shop') => {
    await insertQuote(shop.accountId, { ...fixture(0), id, finished });
    await server.deps.db.query('UPDATE quotes SET file_id = $1, widget_key_id = $2 WHERE id = $3', [
      file,
      widgetKey,
      `${id}_${shop.accountId.slice(-6)}`,
    ]);
  };
  const line = { total: 5, currency: 'EUR', taken: false, widgetKey: 'wk_shop' as string | null };
  const cartLine = (file: string, at: string, l: Partial<typeof line> = {}) => {
    const { total, currency, taken, widgetKey } = { ...line, ...l };
    return server.deps.db.query(
      `INSERT INTO cart_lines (id, account_id, quote_id, file_id, added_by, widget_key_id, quantity, total_price,
         currency, line, acknowledged_at, created_at)
       VALUES ($1, $2, 'qt_any', $3, 'shopper:wk_shop:s', $4, 1, $5, $6, '{}', $7, $8)`,
      [`cl_${file}_${at}`, shop.accountId, file, widgetKey, total, currency, taken ? at : null, at],
    );
  };
  // file_1 explored in two materials and ordered twice, one line taken by the shop's cart; file_2 ordered, no cart
  // took it; file_3 quoted, never ordered; file_4 quoted before the range but ordered (and taken) in it; an API
  // quote (no widget key) is no shopper's, its line an order all the same.
  await widgetQuote('qt_c1', 'file_1', '2031-01-05T10:00:00Z');
  await widgetQuote('qt_c2', 'file_1', '2031-01-05T10:05:00Z');
  await widgetQuote('qt_c3', 'file_2', '2031-01-06T10:00:00Z');
  await widgetQuote('qt_c4', 'file_3', '2031-01-07T10:00:00Z');
  await widgetQuote('qt_c5', 'file_4', '2030-12-30T10:00:00Z');
  await widgetQuote('qt_c6', 'file_5', '2031-01-07T10:00:00Z', null);
  await cartLine('file_1', '2031-01-05T10:10:00Z', { total: 16.18, taken: true });
  await cartLine('file_1', '2031-01-05T10:11:00Z', { total: 0.1 });
  await cartLine('file_2', '2031-01-06T10:11:00Z', { total: 0.2 });
  await cartLine('file_4', '2031-01-02T10:00:00Z', { taken: true });
  await cartLine('file_5', '2031-01-08T10:00:00Z', { total: 1575, currency: 'JPY', widgetKey: null });
  await cartLine('file_5', '2031-02-02T10:00:00Z', { total: 99 }); // after the range
  const res = await server.client(shop.token).get(`/v2/analytics/quotes?${RANGE}`);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.conversion, {
    quoted_uploads: 3,
    ordered_uploads: 2,
    carted_uploads: 1,
    cart_lines: 4,
    order_rate: 0.6667,
    cart_rate: 0.3333,
  });
  // Every order of the range, per currency: 0.1 + 0.2 is 0.3 here, never 0.30000000000000004.
  assert.deepEqual(res.body.orders, [
    {
      currency: 'EUR',
      lines: 4,
      in_cart_lines: 2,
      not_in_cart_lines: 2,
      total: 21.48,
      in_cart: 21.18,
      not_in_cart: 0.3,
    },
    { currency: 'JPY', lines: 1, in_cart_lines: 0, not_in_cart_lines: 1, total: 1575, in_cart: 0, not_in_cart: 1575 },
  ]);
  const none = await c.get(`/v2/analytics/quotes?${RANGE}`);
  assert.deepEqual(
    none.body.conversion,
    { quoted_uploads: 0, ordered_uploads: 0, carted_uploads: 0, cart_lines: 0, order_rate: null, cart_rate: null },
    "another account's carts never show",
  );
  assert.deepEqual(none.body.orders, []);
});

test('defaults: the last 30 days up to today (UTC, from the injected clock)', async () => {
  server.deps.now = () => new Date('2031-02-01T12:00:00Z');
  const res = await c.get('/v2/analytics/quotes');
  assert.deepEqual([res.body.from, res.body.to, res.body.totals.completed], ['2031-01-03', '2031-02-01', 5]);
  const only = await c.get('/v2/analytics/cost-trends?from=2031-01-06');
  assert.deepEqual([only.body.from, only.body.to, only.body.series.length], ['2031-01-06', '2031-02-01', 3]);
  const upTo = await c.get('/v2/usage?to=2031-01-05');
  // qt_a8 (2030-12-31) is inside this default range; qt_a1 and qt_a2 on the last day too.
  assert.deepEqual([upTo.body.from, upTo.body.to, upTo.body.totals.quotes], ['2030-12-07', '2031-01-05', 3]);
});

test('bad parameters answer 400 naming the parameter', async () => {
  const cases: [string, string][] = [
    ['/v2/usage?from=2031-13-01', 'from'],
    ['/v2/usage?from=2031-02-30', 'from'],
    ['/v2/usage?to=yesterday', 'to'],
    ['/v2/usage?from=2031-02-01&to=2031-01-01', 'from'],
    ['/v2/usage?from=2001-01-01&to=2031-01-01', 'to'],
    ['/v2/usage?from=2031-01-01&from=2031-01-02', 'from'],
    ['/v2/analytics/quotes?group_by=year', 'group_by'],
    ['/v2/analytics/cost-trends?group_by=', 'group_by'],
    ['/v2/analytics/popular?limit=0', 'limit'],
    ['/v2/analytics/popular?limit=101', 'limit'],
    ['/v2/analytics/export?format=xml', 'format'],
    ['/v2/analytics/export?dataset=everything', 'dataset'],
    ['/v2/analytics/export?to=2031-1-1', 'to'],
  ];
  for (const [url, field] of cases) {
    const res = await c.get(url);
    assert.equal(res.status, 400, url);
    assert.equal(res.body.error.code, 'validation_failed', url);
    assert.equal(res.body.error.details.fields[0].field, field, url);
  }
});

test("analytics need a token and show only the caller's data", async () => {
  assert.equal((await server.client().get('/v2/analytics/quotes')).status, 401);
  const stranger = server.client((await server.newAccount()).token);
  const res = await stranger.get(`/v2/analytics/quotes?${RANGE}`);
  assert.equal(res.body.totals.completed, 0);
  assert.deepEqual(res.body.prices, []);
  assert.equal((await stranger.get(`/v2/usage?${RANGE}`)).body.totals.calls, 0);
});

test('totals.deleted counts deleted failed quotes like deleted completed ones', async () => {
  const a = await server.newAccount();
  const api = server.client(a.token);
  await insertQuote(a.accountId, { ...fixture(0), id: 'qt_done' });
  await insertQuote(a.accountId, { ...fixture(5), id: 'qt_fail' });
  const before = (await api.get(`/v2/analytics/quotes?${RANGE}`)).body.totals;
  assert.deepEqual([before.completed, before.failed, before.deleted], [1, 1, 0]);
  for (const id of ['qt_done', 'qt_fail'])
    assert.equal((await api.delete(`/v2/quotes/${id}_${a.accountId.slice(-6)}`)).status, 200);
  const totals = (await api.get(`/v2/analytics/quotes?${RANGE}`)).body.totals;
  assert.deepEqual(
    [totals.completed, totals.failed, totals.deleted],
    [1, 1, 2],
    'both deletions are counted, and both quotes still are',
  );
});

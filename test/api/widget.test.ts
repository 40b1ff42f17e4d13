import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { eventsForAccount } from '../../server/outbox/sql.ts';
import { assertWebhookBody } from '../helpers/contract.ts';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { until } from '../helpers/poll.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

const SHOP = 'https://shop.example';
let server: TestServer;
let dashboard: ApiClient;
let token: string;
let accountId: string;
let key: string;
let keyId: string;

before(async () => {
  server = await startTestServer();
  dashboard = server.client();
  const signup = await dashboard.post('/dashboard/api/signup', {
    email: 'widget-shop@example.test',
    password: 'a long enough password',
    shop_name: 'Widget Works',
  });
  dashboard.csrf = signup.body.csrf_token;
  accountId = signup.body.user.user_id;
  token = (await dashboard.post('/dashboard/api/tokens', { name: 'backend' })).body.token;
  const created = await dashboard.post('/dashboard/api/widget-keys', {
    name: 'Shop',
    allowed_origins: [`${SHOP}/`, 'http://localhost:3000'],
  });
  assert.equal(created.status, 201);
  key = created.body.key;
  keyId = created.body.widget_key_id;
});
after(() => server.stop());

const widget = (origin: string | null = SHOP, shopper?: string) => {
  const c = server.client();
  const headers = {
    'x-widget-key': key,
    ...(origin ? { origin } : {}),
    ...(shopper ? { 'x-shopper-token': shopper } : {}),
  };
  return {
    get: (p: string) => c.request('GET', p, { headers }),
    post: (p: string, json: unknown) => c.request('POST', p, { json, headers }),
  };
};

/** A shopper's upload through the widget: the file id and the shopper token that owns it. */
async function widgetUpload(): Promise<{ fileId: string; shopper: string }> {
  const id = await widget().get('/v2/file/upload-id');
  assert.equal(id.status, 200);
  assert.match(id.body.shopper_token, /^st_/);
  const up = await server
    .client()
    .uploadBytes(`/v2/file/public/${id.body.upload_id}`, new TextEncoder().encode(CUBE_OBJ), 'part.obj');
  assert.equal(up.status, 201);
  return { fileId: up.body.file_id, shopper: id.body.shopper_token };
}

test('widget keys: created with normalised origins, listed, origins validated by field', async () => {
  const list = await dashboard.get('/dashboard/api/widget-keys');
  const k = list.body.data.find((w: { widget_key_id: string }) => w.widget_key_id === keyId);
  assert.deepEqual(k.allowed_origins, [SHOP, 'http://localhost:3000']);
  assert.match(k.key, /^pk_/);
  const bad = await dashboard.post('/dashboard/api/widget-keys', {
    name: 'x',
    allowed_origins: ['https://ok.example', 'javascript:alert(1)'],
  });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.details.fields[0].field, 'allowed_origins.1');
});

test('the dashboard lists the origins a key was refused from: most recent first, counted, the last 20', async () => {
  const refusedOrigins = async () =>
    (await dashboard.get('/dashboard/api/widget-keys')).body.data.find(
      (w: { widget_key_id: string }) => w.widget_key_id === keyId,
    ).refused_origins as { origin: string; count: number; last_refused_at: string }[];
  const created = await dashboard.post('/dashboard/api/widget-keys', { name: 'Fresh', allowed_origins: [SHOP] });
  assert.deepEqual(created.body.refused_origins, [], 'a new key was never refused');
  // A merchant's local shop on localhost while only its 127.0.0.1 twin is allowed (twice), then another page.
  assert.equal((await widget('http://localhost:5173').get('/v2/widget/config')).status, 403);
  assert.equal((await widget('http://localhost:5173').get('/v2/widget/config')).status, 403);
  assert.equal((await widget('https://other.example').get('/v2/widget/config')).status, 403);
  assert.equal((await widget(SHOP).get('/v2/widget/config')).status, 200);
  const listed = await refusedOrigins();
  assert.deepEqual(listed.map(({ origin, count }) => ({ origin, count })).slice(0, 2), [
    { origin: 'https://other.example', count: 1 },
    { origin: 'http://localhost:5173', count: 2 },
  ]);
  assert.ok(!listed.some((o) => o.origin === SHOP), 'an allowed origin is never listed');
  assert.ok(Date.parse(listed[0]!.last_refused_at) > 0);
  // Bounded: the 20 most recent origins of a key, however many pages try it.
  for (let i = 0; i < 25; i++) await widget(`https://probe-${i}.example`).get('/v2/widget/config');
  const bounded = await refusedOrigins();
  assert.equal(bounded.length, 20);
  assert.equal(bounded[0]!.origin, 'https://probe-24.example');
  assert.ok(!bounded.some((o) => o.origin === 'http://localhost:5173'), 'the oldest dropped');
  // Another merchant never sees this key or its refusals.
  const other = server.client();
  const signup = await other.post('/dashboard/api/signup', {
    email: 'other-widget-shop@example.test',
    password: 'a long enough password',
    shop_name: 'Other',
  });
  other.csrf = signup.body.csrf_token;
  assert.deepEqual((await other.get('/dashboard/api/widget-keys')).body.data, []);
});

test('the widget configuration offers the merchant materials, colours, build volume and currency, with CORS', async () => {
  const res = await widget().get('/v2/widget/config');
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('access-control-allow-origin'), SHOP);
  assert.equal(res.body.shop_name, 'Widget Works');
  assert.equal(res.body.currency, 'USD');
  assert.equal(res.body.default_material, 'PLA');
  assert.deepEqual(res.body.build_volume, { x: 250, y: 210, z: 210 });
  const pla = res.body.materials.find((m: { name: string }) => m.name === 'PLA');
  assert.ok(pla.colors.includes('White'));
  const standard = res.body.qualities.find((q: { id: string }) => q.id === res.body.default_quality);
  assert.equal(standard.layer_height, 0.2, "the default quality is the printer profile's layer height");
});

test('a widget key is refused from other origins and on every other route', async () => {
  const wrong = await widget('https://evil.example').get('/v2/widget/config');
  assert.equal(wrong.status, 403);
  assert.equal(wrong.body.error.code, 'origin_not_allowed');
  // The refusal is readable by the page (so the widget can say why), and grants nothing: no credentials, no data.
  assert.equal(wrong.headers.get('access-control-allow-origin'), 'https://evil.example');
  assert.equal(wrong.headers.get('access-control-allow-credentials'), null);
  assert.deepEqual(Object.keys(wrong.body), ['error']);
  assert.equal((await widget(null).get('/v2/widget/config')).status, 403);
  const own = server.url;
  assert.equal(
    (await widget(own).get('/v2/widget/config')).status,
    200,
    "the server's own origin (the dashboard preview) is allowed",
  );
  const sameOrigin = await server
    .client()
    .request('GET', '/v2/widget/config', { headers: { 'x-widget-key': key, 'sec-fetch-site': 'same-origin' } });
  assert.equal(sameOrigin.status, 200, 'a same-origin GET without an Origin header');
  const crossSite = await server
    .client()
    .request('GET', '/v2/widget/config', { headers: { 'x-widget-key': key, 'sec-fetch-site': 'cross-site' } });
  assert.equal(crossSite.status, 403);
  for (const [method, path] of [
    ['GET', '/v2/user'],
    ['GET', '/v2/quotes'],
    ['GET', '/v2/user/uploads'],
    ['POST', '/v2/webhooks'],
    ['GET', '/v2/profiles/material'],
    ['GET', '/v2/analytics/quotes'],
  ] as const) {
    const res = method === 'GET' ? await widget().get(path) : await widget().post(path, {});
    assert.equal(res.status, 403, `${method} ${path}`);
    assert.equal(res.body.error.code, 'widget_key_forbidden', `${method} ${path}`);
  }
  const unknown = await server
    .client()
    .request('GET', '/v2/widget/config', { headers: { 'x-widget-key': 'pk_unknown', origin: SHOP } });
  assert.equal(unknown.status, 401);
  assert.equal(unknown.body.error.code, 'unauthorized');
  assert.equal(unknown.headers.get('access-control-allow-origin'), SHOP, 'the widget can read why it was refused');
});

test('preflight requests for widget routes are answered', async () => {
  const res = await server.client().request('OPTIONS', '/v2/file/quote/file_x', {
    headers: {
      origin: SHOP,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-widget-key',
    },
  });
  assert.equal(res.status, 204);
  assert.match(res.headers.get('access-control-allow-headers')!, /X-Widget-Key/i);
});

test('a widget key quotes only its own uploads and reads only its own quotes; add-to-cart fires the webhook event', async () => {
  const { fileId, shopper } = await widgetUpload();
  const q = await widget(SHOP, shopper).post(`/v2/file/quote/${fileId}`, {
    choices: { material: 'PETG', color: 'Orange' },
  });
  assert.equal(q.status, 200, JSON.stringify(q.body));
  assert.equal((await widget(SHOP, shopper).get(`/v2/quotes/${q.body.quote_id}`)).status, 200);
  assert.equal((await widget(SHOP, shopper).get(`/v2/jobs/${q.body.quote_id}`)).status, 200);
  const api = server.client(token);
  const tokenFile = (await api.uploadBytes('/v2/file', new TextEncoder().encode(CUBE_OBJ), 'backend.obj')).body.file_id;
  assert.equal(
    (await widget(SHOP, shopper).post(`/v2/file/quote/${tokenFile}`, {})).status,
    404,
    "files uploaded by the backend are not the widget's",
  );
  const tokenQuote = (await api.post(`/v2/file/quote/${tokenFile}`, {})).body.quote_id;
  assert.equal((await widget(SHOP, shopper).get(`/v2/quotes/${tokenQuote}`)).status, 404);
  const cart = await widget(SHOP, shopper).post('/v2/widget/cart', { quote_id: q.body.quote_id, quantity: 3 });
  assert.equal(cart.status, 201);
  assert.equal(cart.body.unit_price, q.body.total_price);
  assert.equal(cart.body.total_price, Math.round(q.body.total_price * 3 * 100) / 100);
  const events = await eventsForAccount(server.deps.db, accountId, 'widget.added_to_cart');
  assertWebhookBody('WebhookEventWidgetAddedToCart', events.at(-1)!.payload);
  const data = (events.at(-1)!.payload as any).data;
  assert.equal(data.quoteId, q.body.quote_id);
  assert.equal(data.quantity, 3);
  assert.equal(data.color, 'Orange');
  assert.equal(data.quote.total_price, q.body.total_price, 'the authoritative quote from the database');
  assert.equal(data.origin, SHOP);
  assert.equal((await widget(SHOP, shopper).post('/v2/widget/cart', { quote_id: tokenQuote })).status, 404);
  assert.equal(
    (await widget(SHOP, shopper).post('/v2/widget/cart', { quote_id: q.body.quote_id, quantity: 0 })).body.error.details
      .fields[0].field,
    'quantity',
  );
});

test('a revoked widget key stops working at once', async () => {
  const k = await dashboard.post('/dashboard/api/widget-keys', { name: 'temp', allowed_origins: [SHOP] });
  const c = server.client();
  const call = () => c.request('GET', '/v2/widget/config', { headers: { 'x-widget-key': k.body.key, origin: SHOP } });
  assert.equal((await call()).status, 200);
  const revoked = await dashboard.delete(`/dashboard/api/widget-keys/${k.body.widget_key_id}`);
  assert.equal(revoked.status, 200);
  assert.deepEqual(revoked.body, { widget_key_id: k.body.widget_key_id, deleted: true });
  const refused = await call();
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get('access-control-allow-origin'), SHOP, 'the widget can read why it was refused');
  const other = server.client();
  const s = await other.post('/dashboard/api/signup', {
    email: 'other-shop@example.test',
    password: 'a long enough password',
  });
  other.csrf = s.body.csrf_token;
  assert.equal((await other.delete(`/dashboard/api/widget-keys/${keyId}`)).status, 404);
});

test("an operator's SQL change to a widget key reaches a key the server has cached", async () => {
  const k = await dashboard.post('/dashboard/api/widget-keys', { name: 'cached', allowed_origins: [SHOP] });
  const call = async (origin: string) =>
    (await server.client().request('GET', '/v2/widget/config', { headers: { 'x-widget-key': k.body.key, origin } }))
      .status;
  assert.equal(await call(SHOP), 200); // the key and its account are cached now
  // The cache would otherwise answer from memory for 30 s of the server's clock, which stands still here: only the
  // change's notification can empty it.
  server.clock.freeze();
  try {
    await server.deps.db.query(`UPDATE widget_keys SET allowed_origins = '["https://moved.example"]' WHERE id = $1`, [
      k.body.widget_key_id,
    ]);
    await until('the new origins to apply', 20_000, async () => ((await call(SHOP)) === 403 ? true : undefined));
    assert.equal(await call('https://moved.example'), 200);
    await server.deps.db.query('UPDATE widget_keys SET revoked_at = now() WHERE id = $1', [k.body.widget_key_id]);
    await until('the revocation to apply', 20_000, async () =>
      (await call('https://moved.example')) === 401 ? true : undefined,
    );
  } finally {
    server.clock.resume();
  }
});

test('a batch add-to-cart is all or nothing: every line checked first, a refused line named, one event per line', async () => {
  const { fileId, shopper } = await widgetUpload();
  const shop = widget(SHOP, shopper);
  const quote = async (color: string, as = shop, file = fileId) => {
    const q = await as.post(`/v2/file/quote/${file}`, { choices: { material: 'PETG', color } });
    assert.equal(q.status, 200, JSON.stringify(q.body));
    return q.body.quote_id as string;
  };
  const [a, b, c] = [await quote('Orange'), await quote('Black'), await quote('White')];
  assert.equal(new Set([a, b, c]).size, 3, 'three quotes');
  const other = await widgetUpload();
  const othersQuote = await quote('Orange', widget(SHOP, other.shopper), other.fileId);
  const { max } = (await shop.get('/v2/widget/config')).body.quantity;
  const events = async () => (await eventsForAccount(server.deps.db, accountId, 'widget.added_to_cart')).length;
  const before = await events();

  const refused = async (lines: unknown[], status: number, code: string, line?: number) => {
    const res = await shop.post('/v2/widget/cart', { lines });
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.equal(res.body.error.code, code);
    assert.equal(res.body.error.details?.line, line, JSON.stringify(res.body.error));
    assert.equal(await events(), before, 'nothing was added');
    return res.body.error;
  };
  await refused([{ quote_id: a }, { quote_id: othersQuote }], 404, 'not_found', 1);
  const quantity = await refused(
    [
      { quote_id: a, quantity: 2 },
      { quote_id: b, quantity: max + 1 },
    ],
    400,
    'validation_failed',
    1,
  );
  assert.deepEqual(
    quantity.details.fields.map((f: { field: string }) => f.field),
    ['lines.1.quantity'],
  );
  await refused([{ quote_id: a }, { quote_id: b, quantity: 0 }], 400, 'validation_failed', 1);
  await refused([{ quote_id: a }, { quote_id: b }, { quote_id: a, quantity: 2 }], 400, 'validation_failed', 2);
  const many = Array.from({ length: 26 }, (_, i) => ({ quote_id: `q_${i}` }));
  await refused(many, 400, 'validation_failed', undefined);
  await refused([], 400, 'validation_failed', undefined);
  const mixed = await shop.post('/v2/widget/cart', { quote_id: a, lines: [{ quote_id: b }] });
  assert.equal(mixed.status, 400);

  await server.deps.db.query('UPDATE quotes SET expires_at = $1 WHERE id = $2', [new Date(Date.now() - 60_000), c]);
  const expired = await refused([{ quote_id: a }, { quote_id: b }, { quote_id: c }], 410, 'quote_expired', 2);
  assert.ok(expired.details.expired_at);

  const added = await shop.post('/v2/widget/cart', {
    lines: [
      { quote_id: b, quantity: 3 },
      { quote_id: a }, // one by default, as in the single form
    ],
  });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  assert.deepEqual(
    added.body.lines.map((l: { quote_id: string; quantity: number }) => [l.quote_id, l.quantity]),
    [
      [b, 3],
      [a, 1],
    ],
  );
  const single = await shop.post('/v2/widget/cart', { quote_id: b, quantity: 3 });
  assert.equal(single.status, 201);
  assert.deepEqual(added.body.lines[0], single.body, 'each line is what the single form answers');
  const more = await shop.post('/v2/widget/cart', { quote_id: b, quantity: 4 });
  assert.equal(more.status, 201);
  const recorded = (await eventsForAccount(server.deps.db, accountId, 'widget.added_to_cart')).slice(before);
  assert.equal(recorded.length, 3, 'one event per line of the batch (the single line repeated one: none), one for 4');
  for (const e of recorded) assertWebhookBody('WebhookEventWidgetAddedToCart', e.payload);
  assert.deepEqual(
    recorded.map((e) => [
      (e.payload as any).data.quoteId,
      (e.payload as any).data.quantity,
      (e.payload as any).data.origin,
    ]),
    [
      [b, 3, SHOP],
      [a, 1, SHOP],
      [b, 4, SHOP],
    ],
  );
});

test('the widget script and the dashboard go out compressed to browsers that accept it, identical once decoded', async () => {
  const raw = (urlPath: string, acceptEncoding: string) =>
    new Promise<{ encoding: string | undefined; vary: string | undefined; body: Buffer }>((resolve, reject) => {
      http
        .get(`${server.url}${urlPath}`, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ encoding: res.headers['content-encoding'], vary: res.headers.vary, body: Buffer.concat(chunks) }),
          );
        })
        .on('error', reject);
    });
  for (const urlPath of ['/widget/slice-quote.js', '/widget/slice-quote-worker.js', '/dashboard/']) {
    const plain = await raw(urlPath, 'identity');
    assert.equal(plain.encoding, undefined);
    const br = await raw(urlPath, 'gzip, deflate, br');
    assert.equal(br.encoding, 'br', urlPath);
    assert.match(br.vary ?? '', /accept-encoding/i);
    assert.ok(brotliDecompressSync(br.body).equals(plain.body), `${urlPath}: the Brotli copy is the same file`);
    const gz = await raw(urlPath, 'gzip');
    assert.equal(gz.encoding, 'gzip', urlPath);
    assert.ok(gunzipSync(gz.body).equals(plain.body), `${urlPath}: the gzip copy is the same file`);
    if (urlPath.endsWith('.js'))
      assert.ok(br.body.length < plain.body.length / 3, `${br.body.length} of ${plain.body.length} bytes`);
  }
});

test("the widget's worker file is served beside its script, to any shop's page, with the script's headers", async () => {
  // The element fetches the worker's code cross-origin (from the shop's page) and starts it from a blob URL.
  const get = (file: string) => fetch(`${server.url}/widget/${file}`, { headers: { origin: SHOP } });
  const script = await get('slice-quote.js');
  const worker = await get('slice-quote-worker.js');
  assert.equal(worker.status, 200);
  assert.match(worker.headers.get('content-type') ?? '', /^(application|text)\/javascript\b/);
  for (const header of ['content-type', 'cache-control', 'access-control-allow-origin', 'vary'])
    assert.equal(worker.headers.get(header), script.headers.get(header), header);
  assert.ok(worker.headers.get('access-control-allow-origin'), 'readable from the shop page');
  // The script's own bytes no longer carry the parsers: what it imports of them is the worker file's URL.
  const scriptText = await script.text();
  assert.match(scriptText, /slice-quote-worker\.js/);
  assert.ok((await worker.text()).length > 10_000, 'the worker file holds the parsers');
});

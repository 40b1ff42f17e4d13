// Add to cart as the shop's record of its orders: one event per add (a replay sends none), the line says what
// was priced (a quote of an earlier size of the file is refused), and nothing is sold at 0.

import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import { eventsForAccount } from '../../server/outbox/sql.ts';
import { assertWebhookBody } from '../helpers/contract.ts';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

const SHOP = 'https://shop.example';
let server: TestServer;
let dashboard: ApiClient;
let api: ApiClient;
let accountId: string;
let key: string;

before(async () => {
  // Every shopper here comes from one address: count it under a roomy plan.
  server = await startTestServer({ RATE_LIMIT_ANON_PLAN: 'business' });
  dashboard = server.client();
  const signup = await dashboard.post('/dashboard/api/signup', {
    email: 'cart-shop@example.test',
    password: 'a long enough password',
    shop_name: 'Cart Works',
  });
  dashboard.csrf = signup.body.csrf_token;
  accountId = signup.body.user.user_id;
  api = server.client((await dashboard.post('/dashboard/api/tokens', { name: 'backend' })).body.token);
  key = (await dashboard.post('/dashboard/api/widget-keys', { name: 'Shop', allowed_origins: [SHOP] })).body.key;
});
after(() => server.stop());

/** A shopper on the shop's page: a fresh session (shopper token) with one upload of a 20 mm cube. */
async function shopper() {
  const c = server.client();
  const base = { 'x-widget-key': key, origin: SHOP };
  const id = await c.request('GET', '/v2/file/upload-id', { headers: base });
  assert.equal(id.status, 200);
  const headers = { ...base, 'x-shopper-token': id.body.shopper_token as string };
  const up = await c.uploadBytes(
    `/v2/file/public/${id.body.upload_id}`,
    new TextEncoder().encode(CUBE_OBJ),
    'cube.obj',
  );
  assert.equal(up.status, 201);
  return {
    fileId: up.body.file_id as string,
    post: (p: string, json: unknown, extra: Record<string, string> = {}) =>
      c.request('POST', p, { json, headers: { ...headers, ...extra } }),
    async quote(choices: Record<string, unknown> = {}) {
      const q = await c.request('POST', `/v2/file/quote/${up.body.file_id}`, { json: { choices }, headers });
      assert.equal(q.status, 200, JSON.stringify(q.body));
      return q.body;
    },
  };
}

const text = (raw: Uint8Array) => new TextDecoder().decode(raw);
const cartEvents = async () => eventsForAccount(server.deps.db, accountId, 'widget.added_to_cart');

test('ten replays of the same 25 lines send 25 events, not 250; a changed quantity changes that order, adds none', async () => {
  const s = await shopper();
  const colors = ['White', 'Black', 'Orange'];
  const quotes: string[] = [];
  for (let i = 0; i < 25; i++) quotes.push((await s.quote({ material: 'PETG', color: colors[i % 3] })).quote_id);
  const lines = quotes.map((quote_id) => ({ quote_id, quantity: 2 }));
  const before = (await cartEvents()).length;

  const answers = [];
  for (let i = 0; i < 10; i++) {
    const res = await s.post('/v2/widget/cart', { lines });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    answers.push(res.body);
  }
  const events = (await cartEvents()).slice(before);
  assert.equal(events.length, 25, 'one widget.added_to_cart per add');
  for (const a of answers) assert.deepEqual(a, answers[0], 'a replay answers the first result, ids included');
  const ids = answers[0].lines.map((l: { cart_line_id: string }) => l.cart_line_id);
  assert.equal(new Set(ids).size, 25);
  assert.deepEqual(
    events.map((e) => (e.payload as any).data.cartLineId),
    ids,
    'each event names the add it reports',
  );

  // The single form is the same add: its quote's last add had quantity 2.
  const single = await s.post('/v2/widget/cart', { quote_id: quotes[0], quantity: 2 });
  assert.deepEqual(single.body, answers[0].lines[0]);
  assert.equal((await api.post('/v2/widget/cart/acknowledge', { cart_line_ids: [ids[0]] })).status, 200);
  // Alternating the quantity (1, 2, 1, 2 …) is the shopper changing one order, never a stream of new ones.
  const more = await s.post('/v2/widget/cart', { quote_id: quotes[0], quantity: 3 });
  assert.equal(more.status, 201);
  assert.equal(more.body.cart_line_id, ids[0], 'another quantity changes the same order');
  assert.equal(more.body.quantity, 3);
  const back = await s.post('/v2/widget/cart', { quote_id: quotes[0], quantity: 2 });
  assert.equal(back.body.cart_line_id, ids[0], 'and back to 2: still that order, now for 2');
  const orders = await api.get(`/v2/widget/cart?quote_id=${quotes[0]}`);
  assert.equal(orders.body.total, 1, 'one order per part and shopper session');
  assert.deepEqual(
    [orders.body.data[0].quantity, orders.body.data[0].total_price, orders.body.data[0].status],
    [2, back.body.total_price, 'unacknowledged'],
    'the latest quantity wins, and the shop page has yet to take it',
  );
  // Each change is sent (the merchant's backend needs the latest quantity), naming the same order.
  const changes = (await cartEvents()).slice(before + 25);
  assert.deepEqual(
    changes.map((e) => [(e.payload as any).data.cartLineId, (e.payload as any).data.quantity]),
    [
      [ids[0], 3],
      [ids[0], 2],
    ],
  );

  // Another shopper session cannot replay (or see) this one's quotes.
  const other = await shopper();
  assert.equal((await other.post('/v2/widget/cart', { lines })).status, 404);
  assert.equal((await cartEvents()).length - before, 27);
});

test('five identical adds at once (a double click, a retry racing the first) record one add and send one event', async () => {
  const s = await shopper();
  const q = (await s.quote()).quote_id;
  const before = (await cartEvents()).length;
  const answers = await Promise.all(
    Array.from({ length: 5 }, () => s.post('/v2/widget/cart', { quote_id: q, quantity: 4 })),
  );
  assert.deepEqual(
    answers.map((a) => a.status),
    [201, 201, 201, 201, 201],
  );
  assert.equal(new Set(answers.map((a) => a.body.cart_line_id)).size, 1, 'one add, answered five times');
  assert.equal((await cartEvents()).length - before, 1);
});

test('Idempotency-Key on add-to-cart: a retry gets the first answer, a different body with the key is 422', async () => {
  const s = await shopper();
  const q = (await s.quote()).quote_id;
  const before = (await cartEvents()).length;
  const first = await s.post('/v2/widget/cart', { quote_id: q, quantity: 1 }, { 'idempotency-key': 'cart-1' });
  assert.equal(first.status, 201);
  const again = await s.post('/v2/widget/cart', { quote_id: q, quantity: 1 }, { 'idempotency-key': 'cart-1' });
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(again.body, first.body);
  const reused = await s.post('/v2/widget/cart', { quote_id: q, quantity: 4 }, { 'idempotency-key': 'cart-1' });
  assert.equal(reused.status, 422);
  assert.equal(reused.body.error.code, 'idempotency_key_reused');
  assert.equal((await cartEvents()).length - before, 1);
});

test('a shopper session may make 30 add-to-cart calls in 10 minutes; the 31st is 429', async () => {
  const s = await shopper();
  for (let i = 0; i < 30; i++) assert.equal((await s.post('/v2/widget/cart', { quote_id: 'qt_none' })).status, 404);
  const refused = await s.post('/v2/widget/cart', { quote_id: 'qt_none' });
  assert.equal(refused.status, 429);
  assert.equal(refused.body.error.code, 'rate_limited');
  assert.equal(refused.body.error.details.counted_by, 'shopper session');
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  const next = await shopper(); // the same address, another session: not held back
  assert.equal((await next.post('/v2/widget/cart', { quote_id: 'qt_none' })).status, 404);
});

/** The documented offline check (docs/quote-signatures.md), v3 payload. */
function verify(signature: { payload: string; hmac_sha256: string }, secret: string) {
  const expected = createHmac('sha256', secret).update(signature.payload).digest('hex');
  if (expected !== signature.hmac_sha256) return null;
  const [version, quoteId, fileId, revision, unit, scale, orientation, , unitMinor, currency] =
    signature.payload.split(':');
  assert.equal(version, 'v3');
  return { quoteId, fileId, revision: Number(revision), unit, scale: Number(scale), orientation, unitMinor, currency };
}

test('a quote priced before a rescale is refused at the cart (409 quote_stale); the line says what was priced', async () => {
  const secret = (await dashboard.get('/dashboard/api/quote-signing-secret')).body.secret;
  const s = await shopper();
  const small = await s.post(`/v2/file/scale/${s.fileId}`, { scale: 0.25 });
  assert.equal(small.status, 200, JSON.stringify(small.body));
  const old = await s.quote();
  assert.deepEqual(
    { ...verify(old.signature, secret), unitMinor: undefined, currency: undefined },
    {
      quoteId: old.quote_id,
      fileId: s.fileId,
      revision: 2,
      unit: 'mm',
      scale: 0.25,
      orientation: 'as_uploaded',
      unitMinor: undefined,
      currency: undefined,
    },
    'the signature names the revision and the placement that were priced',
  );
  assert.equal((await s.post(`/v2/file/scale/${s.fileId}`, { scale: 1 })).status, 200);
  const before = (await cartEvents()).length;

  const stale = await s.post('/v2/widget/cart', { quote_id: old.quote_id, quantity: 1 });
  assert.equal(stale.status, 409, JSON.stringify(stale.body));
  assert.equal(stale.body.error.code, 'quote_stale');
  assert.deepEqual([stale.body.error.details.quoted_revision, stale.body.error.details.file_revision], [2, 3]);
  const batch = await s.post('/v2/widget/cart', { lines: [{ quote_id: old.quote_id }] });
  assert.equal(batch.status, 409);
  assert.equal(batch.body.error.details.line, 0);
  assert.equal((await cartEvents()).length, before, 'nothing was added');

  const fresh = await s.quote();
  const added = await s.post('/v2/widget/cart', { quote_id: fresh.quote_id, quantity: 1 });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  assert.equal(added.body.file_id, s.fileId);
  assert.equal(added.body.file_revision, 3);
  assert.deepEqual([added.body.placement.unit, added.body.placement.scale], ['mm', 1]);
  assert.ok(fresh.filament_weight > old.filament_weight * 10, 'the full-size part, not the quarter-size one');
  const signed = verify(added.body.signature, secret)!;
  assert.deepEqual([signed.revision, signed.scale], [3, 1]);
  const [event] = (await cartEvents()).slice(before);
  assertWebhookBody('WebhookEventWidgetAddedToCart', event!.payload);
  const data = (event!.payload as any).data;
  assert.deepEqual([data.fileRevision, data.placement.scale, data.placement.unit], [3, 1, 'mm']);
});

test('never $0: a fresh shop has a minimum price per part; a line priced at 0 is refused (422 zero_price)', async () => {
  const s = await shopper();
  const offer = (await api.get('/v2/offer')).body;
  assert.deepEqual([offer.source, offer.minimum_price], ['default', 1], 'the shipped offer sells no part under $1.00');
  // A 1 mm cube: the smallest a 0.4 mm nozzle draws as a shape (a smaller speck is refused, part_too_small).
  assert.equal((await s.post(`/v2/file/scale/${s.fileId}`, { scale: 0.05 })).status, 200);
  const tiny = await s.quote();
  assert.equal(tiny.total_price, 1);
  assert.equal(tiny.price_breakdown.minimum_price_applied, true, 'raised to the minimum, and saying so');

  // A part priced at nothing (here by the merchant's own API call that zeroes every price) is not sold.
  const file = (await api.uploadBytes('/v2/file', new TextEncoder().encode(CUBE_OBJ), 'cube.obj')).body.file_id;
  const zero = await api.post(`/v2/file/quote/${file}`, {
    material_config: { price_per_kg: 0 },
    printer_config: { hourly_cost: 0 },
    quote_config: { energy_cost_per_kwh: 0, fixed_fee: 0, minimum_price: 0 },
  });
  assert.equal(zero.status, 200, JSON.stringify(zero.body));
  assert.equal(zero.body.total_price, 0);
  const before = (await cartEvents()).length;
  const refused = await api.post('/v2/widget/cart', { quote_id: zero.body.quote_id, quantity: 3 });
  assert.equal(refused.status, 422, JSON.stringify(refused.body));
  assert.equal(refused.body.error.code, 'zero_price');
  assert.equal((await cartEvents()).length, before, 'nothing was added');
});

test('orders: every add listed with its status; a shopper acknowledges only their own lines; CSV; another shop sees none', async () => {
  const s = await shopper();
  const q = await s.quote({ material: 'PETG', color: 'Black' });
  const added = (await s.post('/v2/widget/cart', { quote_id: q.quote_id, quantity: 2 })).body;
  const orderOf = async () => {
    const list = await api.get(`/v2/widget/cart?quote_id=${q.quote_id}`);
    assert.equal(list.status, 200);
    assert.equal(list.body.total, 1, 'only the lines of that quote');
    return list.body.data[0];
  };
  const order = await orderOf();
  assert.equal(order.cart_line_id, added.cart_line_id);
  assert.deepEqual(
    [order.status, order.acknowledged_at, order.file_name, order.added_by, order.origin, order.quantity],
    ['unacknowledged', null, 'cube.obj', 'shopper', SHOP, 2],
  );
  assert.deepEqual(order.signature, added.signature, 'the signed quote, to verify');
  assert.equal(order.choices.color, 'Black');
  const download = await api.get(order.file_url);
  assert.equal(download.status, 200, 'the model file to print');
  assert.ok((await api.get('/v2/widget/cart')).body.data.some((o: any) => o.cart_line_id === added.cart_line_id));

  const stranger = await shopper();
  const refused = await stranger.post('/v2/widget/cart/acknowledge', { cart_line_ids: [added.cart_line_id] });
  assert.equal(refused.status, 404);
  assert.equal(refused.body.error.details.fields[0].field, 'cart_line_ids.0');
  const acked = await s.post('/v2/widget/cart/acknowledge', { cart_line_ids: [added.cart_line_id] });
  assert.deepEqual([acked.status, acked.body], [200, { acknowledged: [added.cart_line_id] }]);
  const now = await orderOf();
  assert.equal(now.status, 'acknowledged');
  assert.ok(now.acknowledged_at);

  const csv = await api.get('/v2/widget/cart/export');
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get('content-type')!, /^text\/csv/);
  const [header, ...rows] = text(csv.raw).trim().split('\r\n');
  assert.match(header!, /^cart_line_id,created_at,status,/);
  const row = rows.find((r) => r.startsWith(added.cart_line_id))!;
  assert.ok(row, 'the line is exported');
  assert.ok(row.includes(',acknowledged,') && row.includes(added.signature.payload), row);

  const other = await server.newAccount();
  const theirs = server.client(other.token);
  assert.equal((await theirs.get('/v2/widget/cart')).body.total, 0, "another shop's orders are not listed");
  const notTheirs = await theirs.post('/v2/widget/cart/acknowledge', { cart_line_ids: [added.cart_line_id] });
  assert.equal(notTheirs.status, 404);
  assert.equal(
    text((await theirs.get('/v2/widget/cart/export')).raw)
      .trim()
      .split('\r\n').length,
    1,
    'a header only',
  );
});

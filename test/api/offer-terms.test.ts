// What shoppers know from instant-quote sites, as the server stores and sells it: material descriptions and
// swatches, every material priced side by side (exact from a slice, ≈ otherwise, never sliced by the list),
// quantity price breaks in exact minor units, and a lead time that is part of the quote, its signature, the cart
// line, the orders and the webhook.

import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import { verifyQuoteSignature } from '../../demo/server.ts';
import { eventsForAccount } from '../../server/outbox/sql.ts';
import { breakPrices, breakStoppedAtMinimum, priceLine } from '../../shared/line-price.ts';
import { currencyDigits } from '../../shared/money.ts';
import { assertWebhookBody } from '../helpers/contract.ts';
import { boxesObj } from '../helpers/meshes.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

const SHOP = 'https://terms-shop.example';
const PART = new TextEncoder().encode(boxesObj([[0, 0, 0, 14, 10, 6]]));
let server: TestServer;
let dashboard: ApiClient;
let api: ApiClient;
let accountId: string;
let key: string;

const OFFER = {
  materials: [
    {
      material: 'PLA',
      colors: ['White', 'Galaxy Purple'],
      description: 'Stiff, matte, for display parts',
      swatches: { 'Galaxy Purple': '#5B2A86' },
    },
    { material: 'PETG', colors: [] },
    { material: 'Retracto', colors: [], description: 'Another slicing key: retracts further' },
  ],
  default_material: 'PLA',
  qualities: [{ id: 'standard', label: 'Standard', printer_config: {} }],
  default_quality: 'standard',
  infill_options: [15],
  default_infill: 15,
  quantity: { min: 1, max: 200 },
  // Far below the cube's price: these tests are about the breaks' arithmetic, which stops at the minimum per part.
  minimum_price: 0.01,
  minimum_line_price: null,
  lead_time: 'Shipped from Berlin',
  quantity_breaks: [
    { min_quantity: 10, discount_percent: 5 },
    { min_quantity: 50, discount_percent: 12.5 },
  ],
  lead_times: [
    { id: 'standard', label: 'Standard', business_days: 5 },
    { id: 'express', label: 'Express', business_days: 2, surcharge_percent: 20, surcharge_amount: 2.5 },
  ],
  default_lead_time: 'standard',
};

before(async () => {
  // No prefetches: the slices here are the ones the test asks for (a prefetched Retracto, done first on a fast
  // machine or late on a loaded one, would make the estimated row exact).
  server = await startTestServer({ RATE_LIMIT_ANON_PLAN: 'business', PREFETCH_MAX_SECONDS: '0' });
  dashboard = server.client();
  const signup = await dashboard.post('/dashboard/api/signup', {
    email: 'terms-shop@example.test',
    password: 'a long enough password',
    shop_name: 'Terms Works',
  });
  dashboard.csrf = signup.body.csrf_token;
  accountId = signup.body.user.user_id;
  api = server.client((await dashboard.post('/dashboard/api/tokens', { name: 'backend' })).body.token);
  key = (await dashboard.post('/dashboard/api/widget-keys', { name: 'Shop', allowed_origins: [SHOP] })).body.key;
  const profile = await api.post('/v2/profiles/material', {
    name: 'Retracto',
    settings: { price_per_kg: 31, retraction_distance: 3.5 },
  });
  assert.equal(profile.status, 201, JSON.stringify(profile.body));
  const saved = await api.put('/v2/offer', OFFER);
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
});
after(() => server.stop());

/** A shopper on the shop's page with one upload of the part. */
async function shopper(widgetKey = key, origin = SHOP) {
  const c = server.client();
  const base = { 'x-widget-key': widgetKey, origin };
  const ticket = await c.request('GET', '/v2/file/upload-id', { headers: base });
  assert.equal(ticket.status, 200);
  const headers = { ...base, 'x-shopper-token': ticket.body.shopper_token as string };
  const up = await c.uploadBytes(`/v2/file/public/${ticket.body.upload_id}`, PART, 'bracket.obj');
  assert.equal(up.status, 201, JSON.stringify(up.body));
  const fileId = up.body.file_id as string;
  return {
    fileId,
    get: (p: string) => c.request('GET', p, { headers }),
    post: (p: string, json: unknown) => c.request('POST', p, { json, headers }),
    async quote(choices: Record<string, unknown> = {}) {
      const q = await c.request('POST', `/v2/file/quote/${fileId}`, { json: { choices }, headers });
      assert.equal(q.status, 200, JSON.stringify(q.body));
      return q.body;
    },
    prices: (query = '') => c.request('GET', `/v2/widget/files/${fileId}/prices${query}`, { headers }),
  };
}

const fieldsOf = (body: { error: { details: { fields: { field: string }[] } } }) =>
  body.error.details.fields.map((f) => f.field);

test('descriptions, swatches, breaks and lead times are validated naming the field, and reach the widget', async () => {
  const bad = await api.put('/v2/offer', {
    ...OFFER,
    materials: [
      {
        material: 'PLA',
        colors: ['Galaxy Purple'],
        description: 'x'.repeat(201),
        swatches: { 'Galaxy Purple': 'purple', Orange: '#ff8800' },
      },
    ],
    quantity_breaks: [
      { min_quantity: 50, discount_percent: 5 },
      { min_quantity: 10, discount_percent: 95 },
    ],
    lead_times: [
      { id: 'express', label: 'Express', business_days: 2, surcharge_percent: -1 },
      { id: 'express', label: 'Again', business_days: 1.5 },
    ],
    default_lead_time: 'overnight',
  });
  assert.equal(bad.status, 400);
  assert.deepEqual(fieldsOf(bad.body).sort(), [
    'default_lead_time',
    'lead_times.0.surcharge_percent',
    'lead_times.1.business_days',
    'lead_times.1.id',
    'materials.0.description',
    'materials.0.swatches.Galaxy Purple',
    'materials.0.swatches.Orange',
    'quantity_breaks.1.discount_percent',
    'quantity_breaks.1.min_quantity',
  ]);
  const stored = (await api.get('/v2/offer')).body;
  assert.equal(stored.materials[0].swatches['Galaxy Purple'], '#5b2a86', 'stored lower-case, as drawn');
  assert.equal(stored.default_lead_time, 'standard');
  const config = (await (await shopper()).get('/v2/widget/config')).body;
  assert.equal(config.materials[0].description, 'Stiff, matte, for display parts');
  assert.deepEqual(config.materials[0].swatches, { 'Galaxy Purple': '#5b2a86' });
  assert.deepEqual(
    config.quantity_breaks.map((b: { min_quantity: number }) => b.min_quantity),
    [10, 50],
  );
  assert.deepEqual(
    config.lead_times.map((l: { id: string; surcharge_percent: number }) => [l.id, l.surcharge_percent]),
    [
      ['standard', 0],
      ['express', 20],
    ],
  );
  assert.equal(config.lead_time, 'Shipped from Berlin', 'the free-text lead time keeps working');
});

test('every material side by side: exact from a slice, ≈ otherwise, cheapest first, and the list slices nothing', async () => {
  const s = await shopper();
  const pla = await s.quote({ material: 'PLA' });
  const jobsBefore = (await server.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM quotes')).at(0)!.n;
  const list = await s.prices();
  assert.equal(list.status, 200, JSON.stringify(list.body));
  const rows = list.body.prices as { material: string; total_price: number | null; basis: string | null }[];
  assert.deepEqual(rows.map((r) => r.material).sort(), ['PETG', 'PLA', 'Retracto']);
  const totals = rows.map((r) => r.total_price ?? Number.POSITIVE_INFINITY);
  assert.deepEqual(
    totals,
    [...totals].sort((a, b) => a - b),
    'cheapest first',
  );
  const byName = Object.fromEntries(rows.map((r) => [r.material, r]));
  assert.deepEqual(byName.PLA, {
    material: 'PLA',
    description: 'Stiff, matte, for display parts',
    total_price: pla.total_price,
    basis: 'exact',
  });
  assert.equal(byName.Retracto!.basis, 'estimate', 'a material with its own slicing key and no slice is estimated');
  assert.ok(byName.Retracto!.total_price! > 0);
  const jobsAfter = (await server.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM quotes')).at(0)!.n;
  assert.equal(jobsAfter, jobsBefore, 'listing prices makes no quote and queues no slice');

  // Every exact row is what a quote of that material answers, from the cache.
  for (const row of rows.filter((r) => r.basis === 'exact')) {
    const q = await s.quote({ material: row.material });
    assert.equal(q.total_price, row.total_price, `${row.material}: the exact price is the quote's`);
    assert.equal(q.cached, true);
  }
  // Once quoted, the estimated material is exact at its quote's price.
  const retracto = await s.quote({ material: 'Retracto' });
  const again = (await s.prices()).body.prices.find((r: { material: string }) => r.material === 'Retracto');
  assert.deepEqual([again.basis, again.total_price], ['exact', retracto.total_price]);
});

test('the price list refuses what is not offered and hides other shoppers’ and accounts’ files', async () => {
  const s = await shopper();
  const badQuality = await s.prices('?quality=ultra');
  assert.equal(badQuality.status, 400);
  assert.deepEqual(fieldsOf(badQuality.body), ['quality']);
  const badInfill = await s.prices('?infill=33');
  assert.equal(badInfill.status, 400);
  assert.deepEqual(fieldsOf(badInfill.body), ['infill']);
  const other = await shopper();
  assert.equal((await other.get(`/v2/widget/files/${s.fileId}/prices`)).status, 404, "another shopper's upload");

  const stranger = server.client();
  const signup = await stranger.post('/dashboard/api/signup', {
    email: 'terms-stranger@example.test',
    password: 'a long enough password',
    shop_name: 'Stranger',
  });
  stranger.csrf = signup.body.csrf_token;
  const theirToken = (await stranger.post('/dashboard/api/tokens', { name: 'x' })).body.token;
  const theirs = server.client(theirToken);
  assert.equal((await theirs.get(`/v2/widget/files/${s.fileId}/prices`)).status, 404, "another account's file");
  assert.equal((await api.get(`/v2/widget/files/${s.fileId}/prices`)).status, 200, 'the merchant sees it');
});

/** Half-up percent of an integer amount, as a merchant's spreadsheet would compute it. */
const pct = (minor: number, percent: number) => Math.floor((minor * percent) / 100 + 0.5);

test('quantity breaks and the express surcharge price the cart line exactly; the lead time is signed and sent', async () => {
  const s = await shopper();
  const standard = await s.quote({ quantity: 12 });
  assert.equal(standard.choices.lead_time.id, 'standard', "the offer's default lead time");
  const express = await s.quote({ lead_time: 'express', quantity: 12 });
  assert.deepEqual(express.choices.lead_time, {
    id: 'express',
    label: 'Express',
    business_days: 2,
    surcharge_percent: 20,
    surcharge_amount: 2.5,
  });
  assert.notEqual(express.settings_digest, standard.settings_digest, 'the lead time is part of the digest');
  const fields = express.signature.payload.split(':');
  assert.deepEqual([fields[0], fields.length, fields[10], fields[11]], ['v3', 13, 'express', '2']);
  const secret = (await dashboard.get('/dashboard/api/quote-signing-secret')).body.secret;
  const verified = verifyQuoteSignature(express.signature, secret);
  assert.deepEqual([verified?.leadTime, verified?.businessDays], ['express', 2]);
  const forged = { ...express.signature, payload: express.signature.payload.replace(':express:2:', ':standard:5:') };
  assert.equal(verifyQuoteSignature(forged, secret), null, 'a lead time swapped in the payload does not verify');

  const unknown = await s.post(`/v2/file/quote/${s.fileId}`, { choices: { lead_time: 'overnight' } });
  assert.equal(unknown.status, 400);
  assert.deepEqual(fieldsOf(unknown.body), ['choices.lead_time']);

  const before = (await eventsForAccount(server.deps.db, accountId, 'widget.added_to_cart')).length;
  const added = await s.post('/v2/widget/cart', { quote_id: express.quote_id, quantity: 12 });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  const unit = express.price_breakdown.minor_units.total as number;
  const subtotal = unit * 12;
  const discount = pct(subtotal, 5);
  const surcharge = pct(subtotal - discount, 20) + 250;
  const line = added.body;
  assert.deepEqual(
    [line.subtotal, line.discount_percent, line.quantity_discount, line.lead_time_surcharge, line.total_price],
    [subtotal / 100, 5, discount / 100, surcharge / 100, (subtotal - discount + surcharge) / 100],
  );
  assert.equal(line.lead_time.id, 'express');
  assert.equal(line.lead_time.business_days, 2);
  assert.match(line.lead_time.ships_by, /^\d{4}-\d{2}-\d{2}$/);
  const shipsOn = new Date(`${line.lead_time.ships_by}T00:00:00Z`).getUTCDay();
  assert.ok(shipsOn >= 1 && shipsOn <= 5, 'ships on a business day');

  const events = await eventsForAccount(server.deps.db, accountId, 'widget.added_to_cart');
  assert.equal(events.length, before + 1);
  const payload = events.at(-1)!.payload;
  assertWebhookBody('WebhookEventWidgetAddedToCart', payload);
  const data = (payload as { data: Record<string, any> }).data;
  assert.deepEqual(
    [data.quantityDiscount, data.leadTimeSurcharge, data.totalPrice, data.leadTime.id, data.leadTime.ships_by],
    [line.quantity_discount, line.lead_time_surcharge, line.total_price, 'express', line.lead_time.ships_by],
  );

  const order = (await api.get(`/v2/widget/cart?quote_id=${express.quote_id}`)).body.data[0];
  assert.deepEqual([order.lead_time.label, order.quantity_discount], ['Express', line.quantity_discount]);
  const csv = new TextDecoder().decode((await api.get('/v2/widget/cart/export')).raw);
  const [header, ...csvRows] = csv.trim().split('\r\n');
  const cols = header!.split(',');
  const row = csvRows.find((r) => r.startsWith(line.cart_line_id))!.split(',');
  assert.equal(row[cols.indexOf('lead_time')], 'Express');
  assert.equal(row[cols.indexOf('ships_by')], line.lead_time.ships_by);
  assert.equal(Number(row[cols.indexOf('quantity_discount')]), line.quantity_discount);
});

test('the 50+ break applies past 50 with its half-up cents; below 10 no break; old v2 signatures still verify', async () => {
  const s = await shopper();
  const q = await s.quote({ quantity: 1 });
  const unit = q.price_breakdown.minor_units.total as number;
  const one = (await s.post('/v2/widget/cart', { quote_id: q.quote_id, quantity: 9 })).body;
  assert.deepEqual([one.discount_percent, one.quantity_discount, one.total_price], [0, 0, (unit * 9) / 100]);
  const many = (await s.post('/v2/widget/cart', { quote_id: q.quote_id, quantity: 53 })).body;
  const discount = Math.floor((unit * 53 * 1250) / 10_000 + 0.5);
  assert.deepEqual([many.discount_percent, many.quantity_discount], [12.5, discount / 100]);
  assert.equal(Math.round(many.total_price * 100), unit * 53 - discount, 'standard has no surcharge');

  const secret = (await dashboard.get('/dashboard/api/quote-signing-secret')).body.secret;
  const payload = `v2:qt_old:file_old:1:mm:1:as_uploaded:${'a'.repeat(64)}:437:EUR:1796040000`;
  const v2 = { payload, hmac_sha256: createHmac('sha256', secret).update(payload).digest('hex') };
  const old = verifyQuoteSignature(v2, secret);
  assert.deepEqual([old?.unitAmountMinor, old?.leadTime, old?.businessDays], [437, '', 0]);
});

/** The line the widget shows for a quote and quantity: the shared function, with the offer the widget was served. */
async function widgetLine(s: Awaited<ReturnType<typeof shopper>>, q: any, quantity: number) {
  const config = (await s.get('/v2/widget/config')).body;
  const terms = {
    quantity_breaks: config.quantity_breaks,
    lead_time: q.choices.lead_time,
    minimum_line_price: config.minimum_line_price,
    minimum_unit_price: q.minimum_unit_price,
  };
  return priceLine(q.total_price, quantity, terms, currencyDigits(q.currency));
}

/** The order as Orders lists it: every term of its formula adds up to its total, in minor units. */
async function orderOf(quoteId: string) {
  const order = (await api.get(`/v2/widget/cart?quote_id=${quoteId}`)).body.data[0];
  const c = (v: number) => Math.round(v * 100);
  assert.equal(c(order.subtotal), c(order.unit_price) * order.quantity, 'subtotal = unit price × quantity');
  assert.equal(
    c(order.total_price),
    c(order.subtotal) - c(order.quantity_discount) + c(order.lead_time_surcharge) + c(order.minimum_line_adjustment),
    'total = subtotal − break + surcharge + minimum order',
  );
  return order;
}

test('a break never takes a part below its minimum price per part; the widget, the cart and Orders agree', async () => {
  const s = await shopper();
  const natural = await s.quote({ quantity: 12 });
  const unit = natural.price_breakdown.minor_units.total as number;
  assert.ok(unit >= 3, `a part worth a break test (${unit} cents)`);
  try {
    // At the minimum: the offer's minimum price per part is above the part's own price. 12 pieces, 5 % off for 10+,
    // Express: the break takes nothing, the surcharge is 20 % of 12 minimums + $2.50.
    const minimum = Math.ceil(unit / 100) + 1;
    assert.equal((await api.put('/v2/offer', { ...OFFER, minimum_price: minimum })).status, 200);
    const atMinimum = await s.quote({ quantity: 12, lead_time: 'express' });
    assert.deepEqual([atMinimum.total_price, atMinimum.minimum_unit_price], [minimum, minimum]);
    assert.equal(atMinimum.price_breakdown.minimum_unit_price, minimum);
    const config = (await s.get('/v2/widget/config')).body;
    assert.deepEqual(
      breakPrices(atMinimum.total_price, config.quantity_breaks, atMinimum.minimum_unit_price, 2),
      [],
      'no "10+" price under the minimum is offered',
    );
    const line = (await s.post('/v2/widget/cart', { quote_id: atMinimum.quote_id, quantity: 12 })).body;
    const expected = { subtotal: minimum * 12, surcharge: (pct(minimum * 1200, 20) + 250) / 100 };
    assert.deepEqual(
      [line.subtotal, line.discount_percent, line.quantity_discount, line.lead_time_surcharge, line.minimum_unit_price],
      [expected.subtotal, 5, 0, expected.surcharge, minimum],
    );
    assert.equal(line.total_price, (await widgetLine(s, atMinimum, 12)).total, "the widget's line total is the cart's");
    const order = await orderOf(atMinimum.quote_id);
    assert.deepEqual(
      [order.total_price, order.minimum_unit_price, order.quantity_discount],
      [line.total_price, minimum, 0],
    );
    assert.equal(breakStoppedAtMinimum(order, 2), true, 'Orders can say the minimum stopped the break');

    // A cent under the part's price, with 40 % off from 10: the break is cut short where 12 parts reach 12 minimums.
    const floor = (unit - 1) / 100;
    const deep = { ...OFFER, quantity_breaks: [{ min_quantity: 10, discount_percent: 40 }], minimum_price: floor };
    assert.equal((await api.put('/v2/offer', deep)).status, 200);
    const partly = await s.quote({ quantity: 12 });
    assert.deepEqual([Math.round(partly.total_price * 100), partly.minimum_unit_price], [unit, floor]);
    const cut = (await s.post('/v2/widget/cart', { quote_id: partly.quote_id, quantity: 12 })).body;
    assert.equal(Math.round(cut.quantity_discount * 100), 12 * (unit - Math.round(floor * 100)));
    assert.ok(cut.quantity_discount * 100 < pct(unit * 12, 40), 'less than the whole 40 %');
    assert.equal(Math.round(cut.total_price * 100), 12 * Math.round(floor * 100), 'each part at exactly its minimum');
    const widget = await widgetLine(s, partly, 12);
    assert.deepEqual([widget.total, widget.discount_at_minimum], [cut.total_price, true]);
    const cutOrder = await orderOf(partly.quote_id);
    assert.equal(breakStoppedAtMinimum(cutOrder, 2), true);
    const csv = new TextDecoder().decode((await api.get('/v2/widget/cart/export')).raw);
    const [header, ...rows] = csv.trim().split('\r\n');
    const cols = header!.split(',');
    const row = rows.find((r) => r.startsWith(cut.cart_line_id))!.split(',');
    assert.deepEqual(
      ['minimum_unit_price', 'subtotal', 'discount_percent', 'quantity_discount', 'total_price'].map((k) =>
        Number(row[cols.indexOf(k)]),
      ),
      [floor, cut.subtotal, 40, cut.quantity_discount, cut.total_price],
      'the CSV has the whole formula',
    );
  } finally {
    assert.equal((await api.put('/v2/offer', OFFER)).status, 200);
  }
});

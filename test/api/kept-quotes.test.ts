// Quotes shoppers can keep: a signed, expiring link at the quantity the shopper chose, that opens a completed quote
// with the same shop's key only, shows the line as the cart prices it and the price's own validity, and orders it
// through the cart from another browser; and its PDF, a quotation. And the first-run checklist, which ticks itself
// from what the shop has done.

import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import { PDFDocument } from 'pdf-lib';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { COST_WORDS, pdfAmount, pdfText } from '../helpers/pdf-text.ts';
import { merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';
import { widgetShopper } from '../helpers/shopper.ts';

const SHOP = 'https://keep.example';
const OTHER = 'https://other.example';
const TERMS = 'https://terms.example';
let server: TestServer;
let shop: Awaited<ReturnType<typeof merchantShop>>;
let stranger: Awaited<ReturnType<typeof merchantShop>>;
/** A shop with a quantity break and delivery options. */
let terms: Awaited<ReturnType<typeof merchantShop>>;

before(async () => {
  server = await startTestServer({ RATE_LIMIT_ANON_PLAN: 'business', QUOTE_LINK_DAYS: '10' });
  shop = await merchantShop(server, 'keep-shop@example.test', SHOP);
  stranger = await merchantShop(server, 'keep-stranger@example.test', OTHER);
  terms = await merchantShop(server, 'keep-terms@example.test', TERMS);
  const { source: _source, ...current } = (await terms.api.get('/v2/offer')).body;
  const saved = await terms.api.put('/v2/offer', {
    ...current,
    minimum_price: 0.01, // the cube's own price, above it: the break applies (it never goes below the minimum)
    quantity_breaks: [{ min_quantity: 3, discount_percent: 10 }],
    lead_times: [
      { id: 'standard', label: 'Standard', business_days: 5 },
      { id: 'express', label: 'Express', business_days: 2, surcharge_percent: 20, surcharge_amount: 1 },
    ],
    default_lead_time: 'standard',
  });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
});
after(() => server.stop());

async function quotedShopper() {
  const s = widgetShopper(server, shop.key, SHOP);
  const fileId = await s.upload(new TextEncoder().encode(CUBE_OBJ), 'cube.obj');
  const q = await s.post(`/v2/file/quote/${fileId}`, { choices: {} });
  assert.equal(q.status, 200, JSON.stringify(q.body));
  return { s, quote: q.body };
}

test('a kept link reopens the quote with its price and picture, through the same shop’s key only', async () => {
  const { s, quote } = await quotedShopper();
  const link = await s.post(`/v2/quotes/${quote.quote_id}/link`, {});
  assert.equal(link.status, 201, JSON.stringify(link.body));

  // Another browser of the same shop (no shopper token) opens it.
  const other = widgetShopper(server, shop.key, SHOP);
  const opened = await other.get(link.body.url);
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  assert.equal(opened.body.quote.quote_id, quote.quote_id);
  assert.equal(opened.body.quote.total_price, quote.total_price);
  assert.deepEqual(opened.body.quote.signature, quote.signature);
  assert.match(opened.body.picture, /^data:image\/png;base64,/);
  const png = Buffer.from(opened.body.picture.split(',')[1], 'base64');
  assert.equal(png.subarray(1, 4).toString('ascii'), 'PNG');
  assert.equal(png.readUInt32BE(16), 320, 'a 320 px picture');

  // The shop's backend too; another shop's key and token answer 404, as for any quote not theirs.
  assert.equal((await shop.api.get(link.body.url)).status, 200);
  assert.equal((await widgetShopper(server, stranger.key, OTHER).get(link.body.url)).status, 404);
  assert.equal((await stranger.api.get(link.body.url)).status, 404);
  assert.equal((await stranger.api.get(link.body.pdf_url)).status, 404);
  // A shopper links only their own quotes.
  assert.equal((await other.post(`/v2/quotes/${quote.quote_id}/link`, {})).status, 404);
  // Once the file is deleted the quote still opens, without the part's picture.
  assert.equal((await shop.api.delete(`/v2/file/${quote.file_id}`)).status, 200);
  const afterDelete = await shop.api.get(link.body.url);
  assert.equal(afterDelete.status, 200);
  assert.equal(afterDelete.body.picture, null);
});

/** Runs `fn` with the clock `days` ahead, then puts it back. */
async function later<T>(days: number, fn: () => Promise<T>): Promise<T> {
  const real = server.deps.now;
  server.deps.now = () => new Date(real().getTime() + days * 86_400_000);
  try {
    return await fn();
  } finally {
    server.deps.now = real;
  }
}

test('a link lives QUOTE_LINK_DAYS, but a shopper’s never past the day retention may delete the upload it shows', async () => {
  // The merchant's own upload is never deleted by retention: QUOTE_LINK_DAYS (10 here) sets the lifetime.
  const own = await shop.api.uploadBytes('/v2/file', new TextEncoder().encode(CUBE_OBJ), 'own.obj');
  const ownQuote = await shop.api.post(`/v2/file/quote/${own.body.file_id}`, {});
  assert.equal(ownQuote.status, 200, JSON.stringify(ownQuote.body));
  const ownLink = (await shop.api.post(`/v2/quotes/${ownQuote.body.quote_id}/link`, {})).body;
  const days = (iso: string) => (new Date(iso).getTime() - server.deps.now().getTime()) / 86_400_000;
  assert.ok(
    Math.abs(days(ownLink.expires_at) - 10) < 0.001,
    `QUOTE_LINK_DAYS sets the lifetime (${ownLink.expires_at})`,
  );

  // A shopper's upload is deleted after the quote validity (7 days): the link ends with it, not 3 days later.
  const { s, quote } = await quotedShopper();
  const link = (await s.post(`/v2/quotes/${quote.quote_id}/link`, {})).body;
  assert.ok(Math.abs(days(link.expires_at) - 7) < 0.01, `the upload's retention bounds the link (${link.expires_at})`);
  assert.ok(new Date(link.expires_at) >= new Date(quote.expires_at), 'it lives at least as long as the price holds');
  const lastDay = days(link.expires_at) - 0.01;
  await later(lastDay, () => server.retention.sweepNow());
  const opened = await later(lastDay, () => s.get(link.url));
  assert.equal(opened.status, 200);
  assert.notEqual(opened.body.picture, null, 'on its last day the link still shows the part');
  // Once past, the sweep deletes the upload, and the link has expired: it never opens a quote whose part is gone.
  await later(days(link.expires_at) + 0.01, () => server.retention.sweepNow());
  assert.equal((await shop.api.get(`/v2/file/${quote.file_id}`)).status, 404, 'the upload is deleted');
  const expired = await later(days(link.expires_at) + 0.01, () => s.get(link.url));
  assert.equal(expired.status, 410);
  assert.equal((await later(8, () => shop.api.get(ownLink.url))).status, 200, 'the merchant’s link still opens');
});

test('a tampered link is 400 quote_link_invalid, an expired one 410 quote_link_expired, with plain words', async () => {
  const { s, quote } = await quotedShopper();
  const { token } = (await s.post(`/v2/quotes/${quote.quote_id}/link`, { quantity: 2 })).body as { token: string };
  const [id, expiry, quantity, mac] = token.split('.') as [string, string, string, string];
  assert.equal(quantity, '2', 'the link keeps its quantity');
  const flipped = mac[0] === 'A' ? `B${mac.slice(1)}` : `A${mac.slice(1)}`;
  // The last character's 2 unused bits: decodes to the same mac, yet the link was altered.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(mac.at(-1)!);
  const samebits = `${mac.slice(0, -1)}${alphabet[last ^ 1]}`;
  for (const bad of [
    `${id}.${expiry}.${quantity}.${flipped}`,
    `${id}.${expiry}.${quantity}.${samebits}`,
    `${id}.${Number(expiry) + 86_400}.${quantity}.${mac}`, // a longer life, same mac
    `${id}.0${expiry}.${quantity}.${mac}`, // the same expiry spelt with a leading zero: another link, not this one
    `${id}.${expiry}.20.${mac}`, // another quantity, same mac
    `${id}.${expiry}.02.${mac}`, // the same quantity with a leading zero
    `${id}.${expiry}.${mac}`, // the quantity left out: a link of the older form, which this mac is not
    `${quote.quote_id.replace(/.$/, (c: string) => (c === 'a' ? 'b' : 'a'))}.${expiry}.${quantity}.${mac}`,
    'not-a-link',
    `${id}.${expiry}.${quantity}.${mac}x`,
  ]) {
    const res = await shop.api.get(`/v2/kept-quotes/${encodeURIComponent(bad)}`);
    assert.equal(res.status, 400, bad);
    assert.equal(res.body.error.code, 'quote_link_invalid');
    assert.match(res.body.error.message, /damaged/);
    assert.equal((await shop.api.get(`/v2/kept-quotes/${encodeURIComponent(bad)}/pdf`)).status, 400);
  }
  const realNow = server.deps.now;
  server.deps.now = () => new Date(realNow().getTime() + 11 * 86_400_000);
  try {
    const res = await shop.api.get(`/v2/kept-quotes/${token}`);
    assert.equal(res.status, 410);
    assert.equal(res.body.error.code, 'quote_link_expired');
    assert.match(res.body.error.message, /expired on \d{4}-\d{2}-\d{2}/);
    assert.equal((await shop.api.get(`/v2/kept-quotes/${token}/pdf`)).status, 410);
  } finally {
    server.deps.now = realNow;
  }
  // A deleted quote's link opens nothing.
  assert.equal((await shop.api.delete(`/v2/quotes/${quote.quote_id}`)).status, 200);
  assert.equal((await shop.api.get(`/v2/kept-quotes/${token}`)).status, 404);
});

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('the PDF is a quotation: shop and contact, quote number, part, dimensions, options, quantity, line total, validity, a link back; no cost breakdown', async () => {
  const { s, quote } = await quotedShopper();
  const link = (await s.post(`/v2/quotes/${quote.quote_id}/link`, { quantity: 2 })).body;
  const page = `${SHOP}/products/custom-print?ref=mail#top`;
  const res = await s.get(`${link.pdf_url}?page=${encodeURIComponent(page)}`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/pdf');
  assert.match(res.headers.get('content-disposition') ?? '', /attachment; filename="quote-.+\.pdf"/);
  const text = await pdfText(res.raw);
  const line = (await s.get(link.url)).body.line;
  const { digits, currency } = quote.price_breakdown;
  const money = (v: number) => escaped(pdfAmount(v, digits, currency));
  assert.equal(line.quantity, 2);
  for (const expected of [
    /^Print shop$/m, // no shop name set: the default
    new RegExp(`^Quotation ${quote.quote_id}$`, 'm'),
    /^cube\.obj$/m,
    /Dimensions\n20\.0 × 20\.0 × 20\.0 mm/,
    new RegExp(`Material\\n${quote.choices.material}`),
    new RegExp(`Quality\\n${escaped(quote.choices.quality_label)}`),
    new RegExp(`Infill\\n${quote.choices.infill} %`),
    /Delivery\nAsk the shop/,
    new RegExp(`Unit price\\n${money(quote.total_price)}`),
    /Quantity\n2\n/,
    new RegExp(`Total\\n${money(line.total_price)}`),
    new RegExp(`Price valid until ${quote.expires_at.slice(0, 10)}`),
    new RegExp(`This price is valid until ${quote.expires_at.slice(0, 10)}`),
  ])
    assert.match(text, expected, text);
  assert.doesNotMatch(text, COST_WORDS, 'no cost breakdown unless the merchant shows it');
  assert.doesNotMatch(text, /Contact|keep-shop@example/, 'no contact in the offer: none, never the login e-mail');
  // The link back: the shop page with the kept link in it (the fragment dropped), as text and as a PDF link.
  const back = new URL(page);
  back.searchParams.set('sq-quote', link.token);
  back.hash = '';
  const raw = Buffer.from(res.raw).toString('latin1');
  assert.ok(raw.includes(`/URI (${back.toString()})`), `the PDF links to ${back}`);
  // The picture is embedded.
  assert.match(raw, /\/Subtype \/Image/);
  // A widget names only pages of its own origin; the merchant's token any web page, or none.
  const foreign = await s.get(`${link.pdf_url}?page=${encodeURIComponent('https://evil.example/')}`);
  assert.equal(foreign.status, 400);
  assert.equal(foreign.body.error.details.fields[0].field, 'page');
  assert.equal((await s.get(`${link.pdf_url}?page=javascript:alert(1)`)).status, 400);
  assert.equal(
    (await shop.api.get(`${link.pdf_url}?page=${encodeURIComponent('https://shop.example/p')}`)).status,
    200,
  );
  assert.doesNotMatch(await pdfText((await shop.api.get(link.pdf_url)).raw), /Order it or see it again/);
});

test('the kept link keeps the quantity, choices, delivery option and line total; another browser orders it at that quantity and total', async () => {
  const s = widgetShopper(server, terms.key, TERMS);
  const fileId = await s.upload(new TextEncoder().encode(CUBE_OBJ), 'cube.obj');
  const q = await s.post(`/v2/file/quote/${fileId}`, { choices: { lead_time: 'express' } });
  assert.equal(q.status, 200, JSON.stringify(q.body));
  const link = await s.post(`/v2/quotes/${q.body.quote_id}/link`, { quantity: 3 });
  assert.equal(link.status, 201, JSON.stringify(link.body));
  assert.equal(link.body.quantity, 3);
  assert.equal(link.body.price_expires_at, q.body.expires_at, "the link states the price's validity");
  assert.ok(link.body.expires_at >= link.body.price_expires_at, 'the link opens at least as long as the price holds');

  // Another browser opens it: the same choices, delivery option and quantity, the line as the cart prices it.
  const other = widgetShopper(server, terms.key, TERMS);
  const opened = await other.get(link.body.url);
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  assert.equal(opened.body.quantity, 3);
  assert.deepEqual(opened.body.quote.choices, q.body.choices);
  const line = opened.body.line;
  assert.deepEqual(
    [line.quantity, line.unit_price, line.discount_percent, line.lead_time.id, line.currency],
    [3, q.body.total_price, 10, 'express', q.body.currency],
  );
  assert.ok(line.quantity_discount > 0 && line.lead_time_surcharge > 0, 'the break and the surcharge apply');
  assert.match(line.lead_time.ships_by, /^\d{4}-\d{2}-\d{2}$/);

  // Ordering needs a shopper session (the widget asks for one first); then it is an add like any other.
  assert.equal((await other.post(opened.body.cart_url, {})).status, 400);
  await other.session();
  const order = await other.post(opened.body.cart_url, {});
  assert.equal(order.status, 201, JSON.stringify(order.body));
  assert.deepEqual(
    [order.body.quote_id, order.body.quantity, order.body.total_price, order.body.lead_time.id],
    [q.body.quote_id, 3, line.total_price, 'express'],
    'ordered at the kept quantity and the total the link showed',
  );
  const again = await other.post(opened.body.cart_url, {});
  assert.equal(again.body.cart_line_id, order.body.cart_line_id, 'a replay adds nothing');
  const orders = (await terms.api.get(`/v2/widget/cart?quote_id=${q.body.quote_id}`)).body.data;
  assert.deepEqual(
    orders.map((o: { quantity: number; total_price: number }) => [o.quantity, o.total_price]),
    [[3, line.total_price]],
  );
  // The PDF names the same line.
  const text = await pdfText((await other.get(opened.body.pdf_url)).raw);
  const money = (v: number) => escaped(pdfAmount(v, q.body.price_breakdown.digits, q.body.currency));
  assert.match(text, /Quantity\n3\n/, text);
  assert.match(text, /Quantity break: 10 % off/);
  assert.match(text, /Delivery surcharge \(Express\)/);
  assert.match(text, new RegExp(`Ships by\\n${line.lead_time.ships_by} if ordered today`));
  assert.match(text, new RegExp(`Total\\n${money(line.total_price)}`));

  // A quantity the offer does not sell is not kept.
  for (const quantity of [0, 1001, 2.5]) {
    const refused = await s.post(`/v2/quotes/${q.body.quote_id}/link`, { quantity });
    assert.equal(refused.status, 400, String(quantity));
    assert.equal(refused.body.error.details.fields[0].field, 'quantity');
  }
});

test('the link holds while the price does not: an expired price opens marked expired, and cannot be ordered', async () => {
  const own = await terms.api.uploadBytes('/v2/file', new TextEncoder().encode(CUBE_OBJ), 'own.obj');
  const q = await terms.api.post(`/v2/file/quote/${own.body.file_id}`, {});
  assert.equal(q.status, 200, JSON.stringify(q.body));
  const link = (await terms.api.post(`/v2/quotes/${q.body.quote_id}/link`, { quantity: 2 })).body;
  assert.ok(link.price_expires_at < link.expires_at, 'the price (7 days) ends before the link (10 days)');
  const s = widgetShopper(server, terms.key, TERMS);
  await s.session();
  const opened = await later(8, () => s.get(link.url));
  assert.equal(opened.status, 200);
  assert.equal(opened.body.quote.expired, true);
  const order = await later(8, () => s.post(link.cart_url, {}));
  assert.equal(order.status, 410);
  assert.equal(order.body.error.code, 'quote_expired');
});

test('a link made before links kept a quantity still opens, at the offer’s smallest quantity', async () => {
  const { s, quote } = await quotedShopper();
  // The older form: `<quote id>.<expiry>.<mac>`, the mac over the id and the expiry alone.
  const secret = server.deps.config.jwtSecret;
  const key = createHmac('sha256', secret).update('slicequote kept-quote link v1').digest();
  const expiry = Math.floor(new Date(quote.expires_at).getTime() / 1000);
  const mac = createHmac('sha256', key).update(`${quote.quote_id}.${expiry}`).digest('base64url');
  const opened = await s.get(`/v2/kept-quotes/${quote.quote_id}.${expiry}.${mac}`);
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  assert.equal(opened.body.quantity, 1);
  assert.equal(opened.body.line.total_price, quote.total_price);
});

test('names in other scripts print transliterated in the PDF, never as mojibake; its properties keep them as they are', async () => {
  for (const [name, printed] of <[string, string][]>[
    ['модель детали.obj', 'model detali.obj'],
    ['Ελληνικό.obj', 'Elliniko.obj'],
    ['模型.obj', '??.obj'],
  ]) {
    const s = widgetShopper(server, shop.key, SHOP);
    const fileId = await s.upload(new TextEncoder().encode(CUBE_OBJ), name);
    const q = await s.post(`/v2/file/quote/${fileId}`, { choices: {} });
    assert.equal(q.status, 200, JSON.stringify(q.body));
    const link = (await s.post(`/v2/quotes/${q.body.quote_id}/link`, {})).body;
    const res = await s.get(link.pdf_url);
    assert.equal(res.status, 200);
    const text = await pdfText(res.raw);
    assert.ok(text.split('\n').includes(printed), `${name} prints as ${printed}: ${text}`);
    assert.equal((await PDFDocument.load(res.raw)).getSubject(), name);
  }
});

test('the kept quote and its PDF name the delivery option the shopper chose', async () => {
  const { source: _source, ...current } = (await stranger.api.get('/v2/offer')).body;
  const saved = await stranger.api.put('/v2/offer', {
    ...current,
    lead_times: [
      { id: 'standard', label: 'Standard', business_days: 5 },
      { id: 'express', label: 'Express', business_days: 2, surcharge_percent: 20 },
    ],
    default_lead_time: 'standard',
  });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  const s = widgetShopper(server, stranger.key, OTHER);
  const fileId = await s.upload(new TextEncoder().encode(CUBE_OBJ), 'cube.obj');
  const q = await s.post(`/v2/file/quote/${fileId}`, { choices: { lead_time: 'express' } });
  assert.equal(q.status, 200, JSON.stringify(q.body));
  const link = (await s.post(`/v2/quotes/${q.body.quote_id}/link`, {})).body;
  assert.equal((await s.get(link.url)).body.lead_time, 'Express (2 business days)');
  assert.match(await pdfText((await s.get(link.pdf_url)).raw), /Delivery\nExpress \(2 business days\)/);
});

test('an unknown quote cannot be kept: 404', async () => {
  assert.equal((await shop.api.post('/v2/quotes/qt_doesnotexist000000/link', {})).status, 404);
});

test('the first-run checklist ticks itself: key, offer, prices, a test order, and the cart once it takes a line', async () => {
  const fresh = await server.newAccount();
  const api = server.client(fresh.token);
  const first = (await api.get('/v2/setup')).body;
  assert.deepEqual(
    [first.widget_key.done, first.offer.done, first.prices.done, first.cart.done, first.test_order.done],
    [false, false, false, false, false],
  );
  assert.equal(first.prices.currency, 'USD');
  assert.equal(first.complete, false);

  let setup = (await shop.api.get('/v2/setup')).body;
  assert.equal(setup.widget_key.done, true);
  assert.equal(setup.test_order.done, false);
  // An order no cart took: the test order is there, the cart is not connected.
  const { s, quote } = await quotedShopper();
  const line = await s.post('/v2/widget/cart', { quote_id: quote.quote_id, quantity: 1 });
  assert.equal(line.status, 201);
  setup = (await shop.api.get('/v2/setup')).body;
  assert.deepEqual([setup.test_order.done, setup.cart.done, setup.cart.not_connected], [true, false, true]);
  const ack = await s.post('/v2/widget/cart/acknowledge', { cart_line_ids: [line.body.cart_line_id] });
  assert.equal(ack.status, 200);
  setup = (await shop.api.get('/v2/setup')).body;
  assert.deepEqual([setup.cart.done, setup.cart.not_connected], [true, false]);

  // Its own offer and prices.
  const offer = (await shop.api.get('/v2/offer')).body;
  const { source: _source, ...saved } = offer;
  // PLA alone offered, so its own price is every offered material's (test/api/setup.test.ts: the price step).
  const pla = saved.materials.filter((m: { material: string }) => m.material === 'PLA');
  const put = await shop.api.put('/v2/offer', {
    ...saved,
    materials: pla,
    default_material: 'PLA',
    minimum_price: 2.5,
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const material = await shop.api.post('/v2/profiles/material', {
    name: 'PLA',
    settings: { filament_type: 'PLA', price_per_kg: 30 },
  });
  assert.equal(material.status, 201, JSON.stringify(material.body));
  setup = (await shop.api.get('/v2/setup')).body;
  assert.deepEqual([setup.offer.done, setup.prices.done, setup.prices.minimum_price], [true, true, 2.5]);
  assert.equal(setup.complete, true);
  // Another account's state is its own.
  assert.equal((await api.get('/v2/setup')).body.test_order.done, false);
});

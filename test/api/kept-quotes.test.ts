// Quotes shoppers can keep: a signed, expiring link that opens a completed quote with the same shop's key only,
// and its PDF, which parses and names the price. And the first-run checklist, which ticks itself from what the
// shop has done.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, PDFRawStream, decodePDFRawStream } from 'pdf-lib';
import { startTestServer, merchantShop, type TestServer } from '../helpers/server.ts';
import { widgetShopper } from '../helpers/shopper.ts';
import { CUBE_OBJ } from '../helpers/meshes.ts';

const SHOP = 'https://keep.example';
const OTHER = 'https://other.example';
let server: TestServer;
let shop: Awaited<ReturnType<typeof merchantShop>>;
let stranger: Awaited<ReturnType<typeof merchantShop>>;

before(async () => {
  server = await startTestServer({ RATE_LIMIT_ANON_PLAN: 'business', QUOTE_LINK_DAYS: '10' });
  shop = await merchantShop(server, 'keep-shop@example.test', SHOP);
  stranger = await merchantShop(server, 'keep-stranger@example.test', OTHER);
});
after(() => server.stop());

async function quotedShopper() {
  const s = widgetShopper(server, shop.key, SHOP);
  const fileId = await s.upload(new TextEncoder().encode(CUBE_OBJ), 'cube.obj');
  const q = await s.post(`/v2/file/quote/${fileId}`, { choices: {} });
  assert.equal(q.status, 200, JSON.stringify(q.body));
  return { s, quote: q.body };
}

/** Every text string the PDF's pages draw, in order (pdfkit writes hex strings in TJ arrays). */
async function pdfText(bytes: Uint8Array): Promise<string> {
  const pdf = await PDFDocument.load(bytes);
  assert.equal(pdf.getPageCount(), 1);
  const out: string[] = [];
  for (const [, obj] of pdf.context.enumerateIndirectObjects()) {
    if (!(obj instanceof PDFRawStream)) continue;
    const content = Buffer.from(decodePDFRawStream(obj).decode()).toString('latin1');
    for (const tj of content.matchAll(/\[([^\]]*)\]\s*TJ/g))
      out.push(
        [...tj[1]!.matchAll(/<([0-9a-f]*)>/gi)].map((h) => Buffer.from(h[1]!, 'hex').toString('latin1')).join(''),
      );
  }
  return out.join('\n');
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
  const { token } = (await s.post(`/v2/quotes/${quote.quote_id}/link`, {})).body as { token: string };
  const [id, expiry, mac] = token.split('.') as [string, string, string];
  const flipped = mac[0] === 'A' ? `B${mac.slice(1)}` : `A${mac.slice(1)}`;
  // The last character's 2 unused bits: decodes to the same mac, yet the link was altered.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(mac.at(-1)!);
  const samebits = `${mac.slice(0, -1)}${alphabet[last ^ 1]}`;
  for (const bad of [
    `${id}.${expiry}.${flipped}`,
    `${id}.${expiry}.${samebits}`,
    `${id}.${Number(expiry) + 86_400}.${mac}`, // a longer life, same mac
    `${id}.0${expiry}.${mac}`, // the same expiry spelt with a leading zero: another link, not this one
    `${quote.quote_id.replace(/.$/, (c: string) => (c === 'a' ? 'b' : 'a'))}.${expiry}.${mac}`,
    'not-a-link',
    `${id}.${expiry}.${mac}x`,
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

test('the PDF parses, names the part, the choices, the price of one part and until when it holds', async () => {
  const { s, quote } = await quotedShopper();
  const link = (await s.post(`/v2/quotes/${quote.quote_id}/link`, {})).body;
  const res = await s.get(link.pdf_url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/pdf');
  assert.match(res.headers.get('content-disposition') ?? '', /attachment; filename="quote-.+\.pdf"/);
  const text = await pdfText(res.raw);
  const b = quote.price_breakdown;
  const total = `${(b.minor_units.total / 10 ** b.digits).toFixed(b.digits)} ${b.currency}`;
  assert.match(text, new RegExp(`Price of one part\\n${total.replace('.', '\\.')}`), text);
  assert.match(text, /cube\.obj/);
  assert.match(text, new RegExp(quote.choices.material));
  assert.match(text, new RegExp(`price valid until ${quote.expires_at.slice(0, 10)}`));
  assert.match(text, /Lead time\nAsk the shop/);
  // The picture is embedded.
  assert.match(Buffer.from(res.raw).toString('latin1'), /\/Subtype \/Image/);
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
  assert.match(await pdfText((await s.get(link.pdf_url)).raw), /Lead time\nExpress \(2 business days\)/);
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

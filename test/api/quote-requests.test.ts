// Request a quote: a shopper's part the widget could not sell at once (no cart, no automatic price, above the
// merchant's rule) reaches the shop's requests and a signed webhook; the merchant prices it by hand (a quote signed
// like every quote), the link is e-mailed through a real SMTP server on loopback, and the shopper orders it from the
// link in another browser. And what a stranger with the shop's public key cannot do.

import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import { REQUEST_LIMITS } from '../../server/quote-requests/limits.ts';
import { boxesObj, CUBE_OBJ } from '../helpers/meshes.ts';
import { eventually } from '../helpers/poll.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import { merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';
import { widgetShopper } from '../helpers/shopper.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../helpers/smtp-receiver.ts';

const SHOP = 'https://rfq.example';
const OTHER = 'https://other-rfq.example';
const PAGE = `${SHOP}/custom-prints?ref=ad`;
let server: TestServer;
let smtp: SmtpReceiver;
let hooks: Receiver;
let hookSecret: string;
let shop: Awaited<ReturnType<typeof merchantShop>>;
let stranger: Awaited<ReturnType<typeof merchantShop>>;

before(async () => {
  smtp = await startSmtpReceiver();
  hooks = await startReceiver();
  server = await startTestServer({
    RATE_LIMIT_ANON_PLAN: 'business',
    WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
    SMTP_URL: smtp.url,
    SMTP_FROM: 'quotes@rfq.example',
  });
  shop = await merchantShop(server, 'rfq-shop@example.test', SHOP);
  stranger = await merchantShop(server, 'rfq-stranger@example.test', OTHER);
  const hook = await shop.api.post('/v2/webhooks', {
    url: hooks.url,
    events: ['quote_request.created', 'quote_request.priced', 'widget.added_to_cart'],
  });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  hookSecret = hook.body.secret;
});
after(async () => {
  await server.stop();
  await hooks.close();
  await smtp.close();
});

const encode = (text: string) => new TextEncoder().encode(text);

async function quotedShopper() {
  const s = widgetShopper(server, shop.key, SHOP);
  const fileId = await s.upload(encode(CUBE_OBJ), 'cube.obj');
  const q = await s.post(`/v2/file/quote/${fileId}`, { choices: {} });
  assert.equal(q.status, 200, JSON.stringify(q.body));
  return { s, fileId, quote: q.body };
}

const contact = { name: 'Ada Lovelace', email: 'ada@example.test', note: 'Two of them, please.\nMatte if you can.' };

/** The webhook deliveries of one event, once `n` have arrived, each checked against its signature. */
async function delivered(event: string, n: number) {
  return eventually(
    async () => {
      const got = hooks.requests.filter((r) => r.json?.event === event);
      return got.length >= n ? got : null;
    },
    20_000,
    `${n} ${event} deliveries`,
  ).then((got) => {
    for (const g of got) {
      const expected = `sha256=${createHmac('sha256', hookSecret).update(g.body).digest('hex')}`;
      assert.equal(g.headers['x-webhook-signature'], expected, 'signed with the webhook secret');
    }
    return got;
  });
}

test('a request from a page with no cart reaches the shop and its webhook; the price set by hand is signed, e-mailed, and ordered from the link', async () => {
  const { s, fileId, quote } = await quotedShopper();
  const sent = await s.post('/v2/quote-requests', {
    file_id: fileId,
    quote_id: quote.quote_id,
    quantity: 2,
    reason: 'no_cart',
    ...contact,
    page: PAGE,
  });
  assert.equal(sent.status, 201, JSON.stringify(sent.body));
  assert.equal(sent.body.status, 'requested');
  const id = sent.body.request_id;

  // In the shop's requests (the dashboard's Orders), with the quote's choices and the contact.
  const listed = await shop.api.get('/v2/quote-requests?status=requested');
  assert.equal(listed.status, 200);
  const mine = listed.body.data.find((r: { request_id: string }) => r.request_id === id);
  assert.equal(mine.status, 'requested');
  assert.equal(mine.reason, 'no_cart');
  assert.equal(mine.quantity, 2);
  assert.equal(mine.choices.material, quote.choices.material);
  assert.equal(mine.choices.quantity, 2);
  assert.deepEqual([mine.name, mine.email, mine.note], [contact.name, contact.email, contact.note]);
  assert.equal(mine.origin, SHOP);
  assert.equal(mine.price, null);
  assert.equal(mine.email_delivery.configured, true);
  const [created] = await delivered('quote_request.created', 1);
  assert.equal(created!.json.data.requestId, id);
  assert.equal(created!.json.data.email, contact.email);
  assert.equal(created!.json.data.quoteId, quote.quote_id);

  // The merchant prices it: 12.50 a part, valid 3 days; the line is 2 × 12.50 exactly.
  const priced = await shop.api.post(`/v2/quote-requests/${id}/price`, { unit_price: 12.5, valid_days: 3 });
  assert.equal(priced.status, 200, JSON.stringify(priced.body));
  assert.equal(priced.body.status, 'priced');
  const price = priced.body.price;
  assert.equal(price.unit_price, 12.5);
  assert.equal(price.total_price, 25);
  const days = (new Date(price.expires_at).getTime() - server.deps.now().getTime()) / 86_400_000;
  assert.ok(Math.abs(days - 3) < 0.01, `valid 3 days (${price.expires_at})`);
  const orderUrl = new URL(price.order_url);
  assert.equal(`${orderUrl.origin}${orderUrl.pathname}`, `${SHOP}/custom-prints`);
  assert.equal(orderUrl.searchParams.get('ref'), 'ad');
  assert.equal(orderUrl.searchParams.get('sq-quote'), price.token);
  assert.ok(priced.body.email_delivery.sent_at, 'e-mailed');
  assert.equal(priced.body.email_delivery.error, null);

  // The e-mail reached the SMTP server: to the shopper, with the line and the link.
  const [mail] = await smtp.waitFor(1);
  assert.equal(mail!.from, 'quotes@rfq.example');
  assert.deepEqual(mail!.to, [contact.email]);
  assert.match(mail!.headers.subject!, /Your quote from .*: cube\.obj/);
  assert.match(mail!.text, /Hello Ada Lovelace/);
  assert.match(mail!.text, /2 × 12\.50 USD = 25\.00 USD/);
  assert.ok(mail!.text.includes(price.order_url), mail!.text);

  // The quote is signed like every quote, with the shop's signing secret: 1250 cents a part.
  const secret = (await shop.dashboard.get('/dashboard/api/quote-signing-secret')).body.secret;
  const manual = await shop.api.get(`/v2/quotes/${price.quote_id}`);
  assert.equal(manual.body.manual, true);
  assert.equal(manual.body.total_price, 12.5);
  const { payload, hmac_sha256 } = manual.body.signature;
  assert.equal(createHmac('sha256', secret).update(payload).digest('hex'), hmac_sha256);
  const fields = payload.split(':');
  assert.deepEqual([fields[1], fields[2], fields[8], fields[9]], [price.quote_id, fileId, '1250', 'USD']);
  const [pricedEvent] = await delivered('quote_request.priced', 1);
  assert.deepEqual(pricedEvent!.json.data.signature, manual.body.signature);
  assert.equal(pricedEvent!.json.data.totalPrice, 25);

  // Another browser opens the link and orders it: the line at 2 pieces, 25.00, recorded as any add.
  const other = widgetShopper(server, shop.key, SHOP);
  const opened = await other.get(`/v2/kept-quotes/${price.token}`);
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  assert.equal(opened.body.quantity, 2);
  assert.equal(opened.body.line.total_price, 25);
  assert.equal(opened.body.quote.manual, true);
  await other.session();
  const ordered = await other.post(`/v2/kept-quotes/${price.token}/cart`, {});
  assert.equal(ordered.status, 201, JSON.stringify(ordered.body));
  assert.equal(ordered.body.total_price, 25);
  assert.equal(ordered.body.quote_id, price.quote_id);
  const [cartEvent] = await delivered('widget.added_to_cart', 1);
  assert.equal(cartEvent!.json.data.quoteId, price.quote_id);

  // Now ordered: it cannot be priced again.
  assert.equal((await shop.api.get(`/v2/quote-requests/${id}`)).body.status, 'ordered');
  const again = await shop.api.post(`/v2/quote-requests/${id}/price`, { unit_price: 10 });
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, 'quote_request_ordered');
});

test('a part that cannot be priced automatically becomes a request, priced by hand and orderable', async () => {
  const s = widgetShopper(server, shop.key, SHOP);
  const fileId = await s.upload(encode(boxesObj([[0, 0, 0, 900, 900, 900]])), 'hull.obj');
  const failed = await s.post(`/v2/file/quote/${fileId}`, { choices: {} });
  assert.equal(failed.status, 422);
  assert.equal(failed.body.error.code, 'exceeds_build_volume');
  const sent = await s.post('/v2/quote-requests', {
    file_id: fileId,
    reason: 'not_priceable',
    reason_code: 'exceeds_build_volume',
    choices: {},
    name: 'Grace Hopper',
    email: 'grace@example.test',
    page: `${SHOP}/`,
  });
  assert.equal(sent.status, 201, JSON.stringify(sent.body));
  const priced = await shop.api.post(`/v2/quote-requests/${sent.body.request_id}/price`, { unit_price: 480 });
  assert.equal(priced.status, 200, JSON.stringify(priced.body));
  const token = priced.body.price.token;
  const opened = await s.get(`/v2/kept-quotes/${token}`);
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  assert.equal(opened.body.line.total_price, 480);
  assert.equal(opened.body.quote.estimated_time_seconds, 0, 'no print figures: nothing was sliced');
  const ordered = await s.post(`/v2/kept-quotes/${token}/cart`, {});
  assert.equal(ordered.status, 201, JSON.stringify(ordered.body));
  const listed = await shop.api.get('/v2/widget/cart');
  assert.ok(listed.body.data.some((o: { quote_id: string }) => o.quote_id === priced.body.price.quote_id));
});

test('a kept link ordered where no cart took it is requested by the link: its quote and quantity, from another browser', async () => {
  const { s, fileId, quote: priced } = await quotedShopper();
  const kept = await s.post(`/v2/quotes/${priced.quote_id}/link`, { quantity: 3 });
  assert.equal(kept.status, 201, JSON.stringify(kept.body));
  const quote = { quote_id: priced.quote_id as string, token: kept.body.token as string, fileId };
  // Another browser: no upload of its own, only the link, which it ordered (no cart on the page took the line).
  const other = widgetShopper(server, shop.key, SHOP);
  await other.session();
  assert.equal((await other.post(`/v2/kept-quotes/${quote.token}/cart`, {})).status, 201);
  const body = { link: quote.token, reason: 'no_cart', ...contact, email: 'linked@example.test', page: PAGE };
  const sent = await other.post('/v2/quote-requests', body);
  assert.equal(sent.status, 201, JSON.stringify(sent.body));
  const request = (await shop.api.get(`/v2/quote-requests/${sent.body.request_id}`)).body;
  assert.deepEqual(
    [request.file_id, request.quote_id, request.quantity, request.choices.quantity, request.reason],
    [quote.fileId, quote.quote_id, 3, 3, 'no_cart'],
  );
  // The webhook tells the shop.
  await eventually(
    async () =>
      hooks.requests.find(
        (r) => r.json?.event === 'quote_request.created' && r.json.data.requestId === sent.body.request_id,
      ) ?? null,
    20_000,
    'quote_request.created of the linked request',
  );

  // The link names the part: not with file_id, nor with a quote, choices or quantity of its own.
  for (const [extra, field] of [
    [{ file_id: quote.fileId }, 'file_id'],
    [{ quantity: 5 }, 'quantity'],
    [{ quote_id: quote.quote_id }, 'quote_id'],
    [{ choices: {} }, 'choices'],
  ] as const) {
    const res = await other.post('/v2/quote-requests', { ...body, ...extra });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error.details.fields[0].field, field);
  }
  const { link: _link, ...neither } = body;
  const none = await other.post('/v2/quote-requests', neither);
  assert.equal(none.status, 400);
  assert.equal(none.body.error.details.fields[0].field, 'file_id');
  // An altered link is refused as when opening it; another shop's key does not know the quote.
  const altered = quote.token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
  const bad = await other.post('/v2/quote-requests', { ...body, link: altered });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'quote_link_invalid');
  const foreign = widgetShopper(server, stranger.key, OTHER);
  await foreign.session();
  assert.equal((await foreign.post('/v2/quote-requests', { ...body, page: `${OTHER}/` })).status, 404);
});

test('hostile input: bad e-mail, oversized note, blank name, another shop’s or shopper’s things, a price from the shopper', async () => {
  const { s, fileId, quote } = await quotedShopper();
  const base = { file_id: fileId, quote_id: quote.quote_id, reason: 'no_cart', ...contact, page: PAGE };
  const refused = async (body: Record<string, unknown>, field: string) => {
    const res = await s.post('/v2/quote-requests', body);
    assert.equal(res.status, 400, `${field}: ${JSON.stringify(res.body)}`);
    assert.ok(
      JSON.stringify(res.body.error.details?.fields ?? res.body.error).includes(field),
      `names ${field}: ${JSON.stringify(res.body)}`,
    );
  };
  for (const email of [
    'not-an-email',
    'a@b',
    'ada@example.test\r\nBcc: all@example.test',
    '<ada@example.test>',
    'a b@c.de',
  ])
    await refused({ ...base, email }, 'email');
  await refused({ ...base, note: 'x'.repeat(2001) }, 'note');
  await refused({ ...base, name: '   ' }, 'name');
  await refused({ ...base, name: 'Ada\r\nBcc: x@y.z' }, 'name');
  await refused({ ...base, reason_code: 'slice_failed' }, 'reason_code');
  await refused({ ...base, reason: 'because' }, 'reason');
  await refused({ ...base, page: `${OTHER}/phish` }, 'page');
  await refused({ ...base, unit_price: 0.01 }, 'unit_price'); // a shopper never sets a price
  await refused({ ...base, quantity: 0 }, 'quantity');

  // Another shopper's upload or quote, and another shop's key: 404 as for anything not theirs.
  const other = widgetShopper(server, shop.key, SHOP);
  await other.session();
  assert.equal((await other.post('/v2/quote-requests', base)).status, 404);
  const { fileId: otherFile } = await quotedShopper();
  assert.equal((await s.post('/v2/quote-requests', { ...base, file_id: otherFile })).status, 404);
  const foreign = widgetShopper(server, stranger.key, OTHER);
  await foreign.session();
  assert.equal((await foreign.post('/v2/quote-requests', { ...base, page: `${OTHER}/` })).status, 404);
  // Without a shopper session: refused, naming the header.
  const anonymous = widgetShopper(server, shop.key, SHOP);
  assert.equal((await anonymous.post('/v2/quote-requests', base)).status, 400);

  const sent = await s.post('/v2/quote-requests', base);
  assert.equal(sent.status, 201, JSON.stringify(sent.body));
  const id = sent.body.request_id;
  // The shop's public key can neither read the requests nor price one.
  assert.equal((await s.get('/v2/quote-requests')).status, 403);
  assert.equal((await s.get(`/v2/quote-requests/${id}`)).status, 403);
  assert.equal((await s.post(`/v2/quote-requests/${id}/price`, { unit_price: 0.01 })).status, 403);
  // Another account's request answers 404.
  assert.equal((await stranger.api.get(`/v2/quote-requests/${id}`)).status, 404);
  assert.equal((await stranger.api.post(`/v2/quote-requests/${id}/price`, { unit_price: 1 })).status, 404);
  assert.equal((await stranger.api.get('/v2/quote-requests')).body.total, 0);
  // Prices the currency cannot hold exactly, or none at all.
  for (const unit_price of [12.345, 0, -1])
    assert.equal(
      (await shop.api.post(`/v2/quote-requests/${id}/price`, { unit_price })).status,
      400,
      String(unit_price),
    );

  // Sending again replaces the unpriced request; past 25 an hour per shopper session (a request for each part of the
  // largest widget), 429.
  assert.equal(REQUEST_LIMITS.perSession, 25);
  for (let i = 1; i < REQUEST_LIMITS.perSession; i++)
    assert.equal((await s.post('/v2/quote-requests', base)).status, 201, `request ${i + 1}`);
  const limited = await s.post('/v2/quote-requests', base);
  assert.equal(limited.status, 429);
  assert.equal(limited.body.error.code, 'rate_limited');
  const mineNow = (await shop.api.get('/v2/quote-requests?limit=100')).body.data.filter(
    (r: { file_id: string }) => r.file_id === fileId,
  );
  assert.equal(mineNow.length, 1, 'one request per upload and shopper while unpriced');
});

test('the offer’s rule is in the widget’s configuration; a requested upload is kept like a carted one', async () => {
  const { source: _source, ...current } = (await shop.api.get('/v2/offer')).body;
  const bad = await shop.api.put('/v2/offer', { ...current, request_quote_above: { hours: null, amount: null } });
  assert.equal(bad.status, 400);
  assert.match(JSON.stringify(bad.body), /request_quote_above/);
  const saved = await shop.api.put('/v2/offer', { ...current, request_quote_above: { hours: 10, amount: null } });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  const s = widgetShopper(server, shop.key, SHOP);
  assert.deepEqual((await s.get('/v2/widget/config')).body.request_quote_above, { hours: 10, amount: null });
  assert.equal((await shop.api.put('/v2/offer', { ...current, request_quote_above: null })).status, 200);

  // A shopper upload nobody carted is deleted after the quote validity (7 days); one with a request is kept.
  const { s: asker, fileId, quote } = await quotedShopper();
  const { fileId: idle } = await quotedShopper();
  const sent = await asker.post('/v2/quote-requests', {
    file_id: fileId,
    quote_id: quote.quote_id,
    reason: 'merchant_rule',
    ...contact,
  });
  assert.equal(sent.status, 201, JSON.stringify(sent.body));
  server.clock.advance(9 * 86_400_000);
  await server.retention.sweepNow();
  assert.equal((await shop.api.get(`/v2/file/${idle}`)).status, 404, 'the idle upload is gone');
  assert.equal((await shop.api.get(`/v2/file/${fileId}`)).status, 200, 'the requested one is kept');
});

test('analytics count the requests apart from the orders, by status and reason, as the list has them', async () => {
  const analytics = await shop.api.get('/v2/analytics/quotes');
  assert.equal(analytics.status, 200, JSON.stringify(analytics.body));
  const counted = analytics.body.quote_requests;
  const all = (await shop.api.get('/v2/quote-requests?limit=100')).body.data as { status: string; reason: string }[];
  assert.ok(all.length >= 4, 'the requests of the tests above');
  const of = (test: (r: { status: string; reason: string }) => boolean) => all.filter(test).length;
  assert.deepEqual(counted, {
    requests: all.length,
    requested: of((r) => r.status === 'requested'),
    priced: of((r) => r.status === 'priced'),
    ordered: of((r) => r.status === 'ordered'),
    by_reason: {
      no_cart: of((r) => r.reason === 'no_cart'),
      not_priceable: of((r) => r.reason === 'not_priceable'),
      merchant_rule: of((r) => r.reason === 'merchant_rule'),
    },
  });
  assert.ok(counted.ordered >= 2 && counted.requested >= 1, JSON.stringify(counted));
  // Another shop counts none of them.
  assert.equal((await stranger.api.get('/v2/analytics/quotes')).body.quote_requests.requests, 0);
});

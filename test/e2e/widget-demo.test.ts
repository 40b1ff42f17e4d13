// The demo merchant backend on its own: the page it serves and its webhook receiver's signature checks.

import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type DemoShop, startDemoShop } from '../../demo/server.ts';

const SECRET = 'whsec-demo-test-0123456789';
let shop: DemoShop;

before(async () => {
  shop = await startDemoShop({ apiUrl: 'http://127.0.0.1:4000/', widgetKey: 'pk_test"<key>', webhookSecret: SECRET });
});
after(() => shop.close());

const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const cartEvent = (quoteId: string) =>
  JSON.stringify({
    event: 'widget.added_to_cart',
    timestamp: new Date().toISOString(),
    data: { quoteId, quantity: 1, totalPrice: 2.5, currency: 'USD' },
  });

function deliver(body: string, headers: Record<string, string>) {
  return fetch(shop.webhookUrl, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
}

test('the shop page embeds the widget by script tag with the API URL and the key filled in, escaped', async () => {
  const res = await fetch(shop.url);
  const html = await res.text();
  assert.match(html, /<script type="module" src="http:\/\/127\.0\.0\.1:4000\/widget\/slice-quote\.js"><\/script>/);
  assert.match(html, /<slice-quote api="http:\/\/127\.0\.0\.1:4000" key="pk_test&quot;&lt;key&gt;">/);
  const csp = res.headers.get('content-security-policy')!;
  assert.match(csp, /script-src 'self' http:\/\/127\.0\.0\.1:4000/);
  assert.doesNotMatch(csp, /unsafe-inline/);
});

test('/parts embeds the same widget with `multiple`; the two pages link to each other', async () => {
  const parts = await fetch(`${shop.url}/parts`);
  const html = await parts.text();
  assert.match(html, /<slice-quote multiple api="http:\/\/127\.0\.0\.1:4000" key="pk_test&quot;&lt;key&gt;">/);
  assert.match(html, /<a href="\/">Quote a single part<\/a>/);
  assert.doesNotMatch(parts.headers.get('content-security-policy')!, /unsafe-inline/);
  assert.match(await (await fetch(shop.url)).text(), /<a href="\/parts">Quote a whole project at once<\/a>/);
});

test('a correctly signed widget.added_to_cart is kept as an order, once per delivery', async () => {
  const body = cartEvent('qt_good');
  for (let i = 0; i < 2; i++) {
    const res = await deliver(body, { 'x-webhook-signature': sign(body), 'x-webhook-delivery': 'dlv_1' });
    assert.equal(res.status, 200);
  }
  assert.deepEqual(
    shop.orders().map((o) => o.data.quoteId),
    ['qt_good'],
  );
  const served = await (await fetch(`${shop.url}/orders`)).json();
  assert.equal(served.data[0].data.quoteId, 'qt_good');
});

test('bad, missing or wrongly keyed signatures are refused with 401 and not kept', async () => {
  const body = cartEvent('qt_forged');
  const tampered = body.replace('2.5', '0.01');
  for (const signature of [
    sign(body, 'another secret'),
    sign(body).slice(0, -2),
    'sha256=zz',
    sign(body).replace('sha256=', 'sha1='),
    '',
  ]) {
    const res = await deliver(body, signature ? { 'x-webhook-signature': signature } : {});
    assert.equal(res.status, 401, `signature ${JSON.stringify(signature)}`);
  }
  assert.equal(
    (await deliver(tampered, { 'x-webhook-signature': sign(body) })).status,
    401,
    'a body changed after signing',
  );
  assert.ok(!shop.orders().some((o) => o.data.quoteId === 'qt_forged'));
});

test('other verified events are acknowledged but are not orders', async () => {
  const body = JSON.stringify({
    event: 'quote.completed',
    timestamp: new Date().toISOString(),
    data: { quoteId: 'qt_other' },
  });
  assert.equal((await deliver(body, { 'x-webhook-signature': sign(body) })).status, 200);
  assert.ok(!shop.orders().some((o) => o.data.quoteId === 'qt_other'));
});

test("the backend checks each order's quote signature with the quote signing secret", async () => {
  const quoteSecret = 'qss_demo-test-secret';
  const backend = await startDemoShop({
    apiUrl: 'http://127.0.0.1:4000/',
    widgetKey: 'pk_x',
    webhookSecret: SECRET,
    quoteSigningSecret: quoteSecret,
  });
  try {
    const quoteSig = (expires: number, secret = quoteSecret) => {
      const payload = `v2:qt_sig:file_sig:2:in:1:turned:${'a'.repeat(64)}:1234:EUR:${expires}`;
      return { payload, hmac_sha256: createHmac('sha256', secret).update(payload).digest('hex') };
    };
    const later = Math.floor(Date.now() / 1000) + 3600;
    const cases = [
      ['dlv_ok', quoteSig(later), 'verified'],
      ['dlv_wrong_key', quoteSig(later, 'another secret'), 'invalid'],
      ['dlv_tampered', { ...quoteSig(later), payload: quoteSig(later).payload.replace(':1234:', ':1:') }, 'invalid'],
      ['dlv_old', quoteSig(Math.floor(Date.now() / 1000) - 60), 'expired'],
      ['dlv_missing', undefined, 'invalid'],
    ] as const;
    for (const [delivery, signature] of cases) {
      const body = JSON.stringify({
        event: 'widget.added_to_cart',
        timestamp: new Date().toISOString(),
        data: { quoteId: delivery, signature },
      });
      const res = await fetch(backend.webhookUrl, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'x-webhook-signature': sign(body),
          'x-webhook-delivery': delivery,
        },
      });
      assert.equal(res.status, 200);
    }
    const statuses = backend.orders().map((o) => [o.delivery_id, o.quote.status]);
    assert.deepEqual(
      statuses,
      cases.map(([d, , status]) => [d, status]),
    );
    const [first] = backend.orders();
    assert.ok(first);
    const ok = first.quote;
    assert.ok(
      ok.status === 'verified' &&
        ok.signed.unitAmountMinor === 1234 &&
        ok.signed.currency === 'EUR' &&
        ok.signed.quoteId === 'qt_sig' &&
        ok.signed.fileRevision === 2 &&
        ok.signed.unit === 'in',
    );
  } finally {
    await backend.close();
  }
});

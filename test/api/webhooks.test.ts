// Webhook management: create/list/get/update/delete, validation, save-time URL rules (with
// WEBHOOK_ALLOW_PRIVATE_CIDRS empty, as in production), secrets shown once, and cross-account 404s.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApiError } from '../../server/http/errors.ts';
import { newId } from '../../server/ids.ts';
import { createEventPump } from '../../server/webhooks/dispatcher.ts';
import { checkReceiverUrl } from '../../server/webhooks/manage.ts';
import { insertDelivery } from '../../server/webhooks/sql.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// A public literal: accepted without DNS. Nothing in this file emits events, so nothing is ever sent to it.
const PUBLIC_URL = 'https://93.184.215.14/hooks/slicequote';

let server: TestServer;
let loopback: Receiver;
before(async () => {
  server = await startTestServer();
  loopback = await startReceiver();
});
after(async () => {
  await loopback.close();
  await server.stop();
});

test('create returns 201 with the secret once; list and get never show it; get carries statistics', async () => {
  const { token } = await server.newAccount();
  const api = server.client(token);
  const created = await api.post('/v2/webhooks', {
    url: PUBLIC_URL,
    events: ['quote.completed', 'file.uploaded', 'quote.completed'],
  });
  assert.equal(created.status, 201);
  assert.match(created.body.webhook_id, /^wh_/);
  assert.match(created.body.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(created.body.events, ['quote.completed', 'file.uploaded'], 'duplicates dropped, order kept');
  assert.equal(created.body.active, true);
  assert.equal(created.body.token_id, null);

  const list = await api.get('/v2/webhooks');
  assert.equal(list.status, 200);
  assert.equal(list.body.total, 1);
  assert.equal('secret' in list.body.data[0], false);

  const one = await api.get(`/v2/webhooks/${created.body.webhook_id}`);
  assert.equal(one.status, 200);
  assert.equal('secret' in one.body, false);
  assert.deepEqual(one.body.stats, {
    total: 0,
    delivered: 0,
    failed: 0,
    pending: 0,
    success_rate: null,
    last_delivery_at: null,
    last_attempt_at: null,
  });
});

test('a given secret is kept; too short a secret is refused naming the field', async () => {
  const { token } = await server.newAccount();
  const api = server.client(token);
  const mine = 'my own secret of enough length';
  const created = await api.post('/v2/webhooks', { url: PUBLIC_URL, events: ['usage.alert'], secret: mine });
  assert.equal(created.status, 201);
  assert.equal(created.body.secret, mine);
  const short = await api.post('/v2/webhooks', { url: PUBLIC_URL, events: ['usage.alert'], secret: 'short' });
  assert.equal(short.status, 400);
  assert.equal(short.body.error.details.fields[0].field, 'secret');
});

test('events are validated against the seven event names; the error names the field', async () => {
  const { token } = await server.newAccount();
  const api = server.client(token);
  const bad = await api.post('/v2/webhooks', { url: PUBLIC_URL, events: ['quote.completed', 'quote.exploded'] });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'validation_failed');
  assert.equal(bad.body.error.details.fields[0].field, 'events.1');
  const empty = await api.post('/v2/webhooks', { url: PUBLIC_URL, events: [] });
  assert.equal(empty.status, 400);
  assert.equal(empty.body.error.details.fields[0].field, 'events');
  const missing = await api.post('/v2/webhooks', { events: ['file.deleted'] });
  assert.equal(missing.body.error.details.fields[0].field, 'url');
  const extra = await api.post('/v2/webhooks', { url: PUBLIC_URL, events: ['file.deleted'], retries: 9 });
  assert.equal(extra.body.error.details.fields[0].field, 'retries');
  const all = [
    'quote.completed',
    'quote.failed',
    'file.uploaded',
    'file.deleted',
    'job.status_changed',
    'widget.added_to_cart',
    'usage.alert',
  ];
  const ok = await api.post('/v2/webhooks', { url: PUBLIC_URL, events: all });
  assert.equal(ok.status, 201);
  assert.deepEqual(ok.body.events, all);
});

test('with WEBHOOK_ALLOW_PRIVATE_CIDRS empty, a loopback receiver is refused at save time (400)', async () => {
  const { token } = await server.newAccount();
  const api = server.client(token);
  const res = await api.post('/v2/webhooks', { url: `http://127.0.0.1:${loopback.port}/`, events: ['file.uploaded'] });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, 'url_private_address');
  assert.equal(res.body.error.details.fields[0].field, 'url');
  // The refusal names the operator setting that would allow it, and where it is explained.
  assert.match(
    res.body.error.message,
    /^url: address 127\.0\.0\.1 is not public \(loopback\); .*WEBHOOK_ALLOW_PRIVATE_CIDRS/,
  );
  assert.match(res.body.error.details.fields[0].message, /WEBHOOK_ALLOW_PRIVATE_CIDRS \(docs\/webhooks\.md/);
  assert.equal(res.body.error.details.setting, 'WEBHOOK_ALLOW_PRIVATE_CIDRS');
  assert.equal(res.body.error.details.docs, 'docs/webhooks.md#local-development-webhook_allow_private_cidrs');
  assert.equal(loopback.requests.length, 0);
});

test('save-time URL rules answer 400 with the rule as the code', async () => {
  const { token } = await server.newAccount();
  const api = server.client(token);
  const cases: [string, string][] = [
    ['ftp://example.com/hook', 'url_scheme'],
    ['file:///etc/passwd', 'url_scheme'],
    ['https://user:pass@93.184.215.14/', 'url_credentials'],
    ['http://localhost/hook', 'url_private_address'],
    ['http://169.254.169.254/latest/meta-data/', 'url_private_address'],
    ['http://0x7f.1/', 'url_private_address'],
    ['http://2130706433/', 'url_private_address'],
    ['http://10.0.0.7/', 'url_private_address'],
    ['http://100.64.0.1/', 'url_private_address'],
    ['http://[::1]/', 'url_private_address'],
    ['http://[::ffff:192.168.0.1]/', 'url_private_address'],
    ['http://no-such-host.invalid/', 'url_unresolvable'],
    ['not a url', 'url_invalid'],
    [`https://example.com/${'a'.repeat(2100)}`, 'url_too_long'],
  ];
  for (const [url, code] of cases) {
    const res = await api.post('/v2/webhooks', { url, events: ['file.uploaded'] });
    assert.equal(res.status, 400, url);
    assert.equal(res.body.error.code, code, url);
    // Only a private address is the operator's to allow; the other rules are the URL's own mistakes.
    assert.equal(
      res.body.error.details.setting,
      code === 'url_private_address' ? 'WEBHOOK_ALLOW_PRIVATE_CIDRS' : undefined,
    );
  }
  assert.equal((await api.get('/v2/webhooks')).body.total, 0);
});

test('PUT changes url, events, active and the token link; fields left out stay; the URL is checked again', async () => {
  const { token, accountId } = await server.newAccount();
  const api = server.client(token);
  const second = await server.newToken(accountId, 'shop B');
  assert.ok(second.row);
  const created = (await api.post('/v2/webhooks', { url: PUBLIC_URL, events: ['file.uploaded'] })).body;
  const path = `/v2/webhooks/${created.webhook_id}`;

  const linked = await api.put(path, { token_id: second.row.id, events: ['file.deleted', 'usage.alert'] });
  assert.equal(linked.status, 200);
  assert.equal(linked.body.token_id, second.row.id);
  assert.deepEqual(linked.body.events, ['file.deleted', 'usage.alert']);
  assert.equal(linked.body.url, PUBLIC_URL, 'unchanged');
  assert.equal('secret' in linked.body, false, 'no secret unless it changed');

  const paused = await api.put(path, { active: false, url: 'https://1.1.1.1/other' });
  assert.equal(paused.body.active, false);
  assert.equal(paused.body.url, 'https://1.1.1.1/other');
  assert.equal(paused.body.token_id, second.row.id);

  const unlinked = await api.put(path, { token_id: null });
  assert.equal(unlinked.body.token_id, null);

  const privateUrl = await api.put(path, { url: 'http://192.168.1.10/hook' });
  assert.equal(privateUrl.status, 400);
  assert.equal(privateUrl.body.error.code, 'url_private_address');
  assert.equal((await api.get(path)).body.url, 'https://1.1.1.1/other', 'a refused update changes nothing');

  assert.equal((await api.put(path, {})).status, 400, 'an empty update is refused');
  const badEvent = await api.put(path, { events: ['nope'] });
  assert.equal(badEvent.body.error.details.fields[0].field, 'events.0');
});

test('rotate_secret returns a new secret once; secret and rotate_secret together are refused', async () => {
  const { token } = await server.newAccount();
  const api = server.client(token);
  const created = (await api.post('/v2/webhooks', { url: PUBLIC_URL, events: ['file.uploaded'] })).body;
  const path = `/v2/webhooks/${created.webhook_id}`;
  const rotated = await api.put(path, { rotate_secret: true });
  assert.equal(rotated.status, 200);
  assert.match(rotated.body.secret, /^whsec_/);
  assert.notEqual(rotated.body.secret, created.secret);
  assert.equal('secret' in (await api.get(path)).body, false);
  const chosen = await api.put(path, { secret: 'a chosen secret, long enough' });
  assert.equal(chosen.body.secret, 'a chosen secret, long enough');
  const both = await api.put(path, { secret: 'a chosen secret, long enough', rotate_secret: true });
  assert.equal(both.status, 400);
  assert.equal(both.body.error.details.fields[0].field, 'rotate_secret');
  const noop = await api.put(path, { rotate_secret: false });
  assert.equal('secret' in noop.body, false);
});

test('token_id must be a live token of the same account', async () => {
  const a = await server.newAccount();
  const b = await server.newAccount();
  const api = server.client(a.token);
  for (const tokenId of [b.tokenId, 'tok_doesnotexist']) {
    const res = await api.post('/v2/webhooks', { url: PUBLIC_URL, events: ['file.uploaded'], token_id: tokenId });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.details.fields[0].field, 'token_id');
  }
  const own = await api.post('/v2/webhooks', { url: PUBLIC_URL, events: ['file.uploaded'], token_id: a.tokenId });
  assert.equal(own.status, 201);
  assert.equal(own.body.token_id, a.tokenId);
});

test('list is paginated newest first', async () => {
  const { token } = await server.newAccount();
  const api = server.client(token);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++)
    ids.push(
      (await api.post('/v2/webhooks', { url: `${PUBLIC_URL}/${i}`, events: ['file.uploaded'] })).body.webhook_id,
    );
  const first = await api.get('/v2/webhooks?limit=2');
  assert.deepEqual(
    first.body.data.map((w: { webhook_id: string }) => w.webhook_id),
    [ids[2], ids[1]],
  );
  assert.equal(first.body.has_more, true);
  const second = await api.get('/v2/webhooks?limit=2&page=2');
  assert.deepEqual(
    second.body.data.map((w: { webhook_id: string }) => w.webhook_id),
    [ids[0]],
  );
  assert.equal(second.body.has_more, false);
  assert.equal((await api.get('/v2/webhooks?limit=500')).status, 400);
});

test('delete removes the webhook; a second delete is 404', async () => {
  const { token } = await server.newAccount();
  const api = server.client(token);
  const created = (await api.post('/v2/webhooks', { url: PUBLIC_URL, events: ['file.uploaded'] })).body;
  const del = await api.delete(`/v2/webhooks/${created.webhook_id}`);
  assert.equal(del.status, 200);
  assert.deepEqual(del.body, { webhook_id: created.webhook_id, deleted: true });
  assert.equal((await api.get(`/v2/webhooks/${created.webhook_id}`)).status, 404);
  assert.equal((await api.delete(`/v2/webhooks/${created.webhook_id}`)).status, 404);
});

test("another account's webhook or delivery answers 404 on every route with an id, and nothing changes", async () => {
  const a = await server.newAccount();
  const b = await server.newAccount();
  const apiA = server.client(a.token);
  const apiB = server.client(b.token);
  const hookA = (await apiA.post('/v2/webhooks', { url: PUBLIC_URL, events: ['file.uploaded'] })).body;
  const hookB = (await apiB.post('/v2/webhooks', { url: PUBLIC_URL, events: ['file.uploaded'] })).body;
  // A delivery of A's webhook, written directly (no event is emitted in this file). It is marked failed so the
  // pump never tries the public address.
  const deliveryA = await insertDelivery(server.deps.db, {
    id: newId('dlv'),
    webhook_id: hookA.webhook_id,
    account_id: a.accountId,
    event_id: newId('evt'),
    event: 'file.uploaded',
    body: '{}',
    signature: 'sha256=00',
    resent_from: null,
  });
  await server.deps.db.query(`UPDATE webhook_deliveries SET state = 'failed', attempts = 3 WHERE id = $1`, [
    deliveryA.id,
  ]);

  const wa = `/v2/webhooks/${hookA.webhook_id}`;
  const checks: [string, string, unknown?][] = [
    ['GET', wa],
    ['PUT', wa, { active: false }],
    ['DELETE', wa],
    ['GET', `${wa}/deliveries`],
    ['POST', `${wa}/deliveries/${deliveryA.id}/resend`],
    // B's own webhook with A's delivery id: still not B's delivery.
    ['POST', `/v2/webhooks/${hookB.webhook_id}/deliveries/${deliveryA.id}/resend`],
  ];
  for (const [method, path, json] of checks) {
    const res = await apiB.request(method, path, json === undefined ? {} : { json });
    assert.equal(res.status, 404, `${method} ${path}`);
    assert.equal(res.body.error.code, 'not_found');
  }
  const still = await apiA.get(wa);
  assert.equal(still.status, 200);
  assert.equal(still.body.active, true);
  assert.equal((await apiA.get(`${wa}/deliveries`)).body.total, 1, 'no resend happened');
  assert.equal((await apiB.get('/v2/webhooks')).body.total, 1, 'B sees only its own');
});

test('every route needs authentication', async () => {
  const anon = server.client();
  for (const [method, path] of [
    ['GET', '/v2/webhooks'],
    ['POST', '/v2/webhooks'],
    ['GET', '/v2/webhooks/wh_x'],
    ['GET', '/v2/webhooks/wh_x/deliveries'],
    ['POST', '/v2/webhooks/wh_x/deliveries/dlv_x/resend'],
  ] as const) {
    assert.equal((await anon.request(method, path)).status, 401, `${method} ${path}`);
  }
});

test('a name resolving to a private address is refused without revealing the address', async () => {
  const ctx = {
    deps: server.deps,
    policy: { allowPrivateCidrs: [] },
    resolver: async () => ['93.184.215.14', '10.1.2.3'],
  };
  await assert.rejects(checkReceiverUrl(ctx, 'https://db.internal.example/hook'), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 400);
    assert.equal(err.code, 'url_private_address');
    assert.match(err.message, /host "db\.internal\.example" resolves to a non-public address \(private\)/);
    assert.doesNotMatch(err.message, /10\.1\.2\.3/);
    return true;
  });
  await checkReceiverUrl({ ...ctx, resolver: async () => ['93.184.215.14'] }, 'https://shop.example/hook');
});

test('a malformed WEBHOOK_ALLOW_PRIVATE_CIDRS stops start-up, naming the variable', () => {
  for (const bad of ['10.0.0.0/33', '127.0.0.1', 'localhost/8', '0x7f.1/8']) {
    assert.throws(
      () => createEventPump({ ...server.deps, config: { ...server.deps.config, webhookAllowPrivateCidrs: bad } }),
      /WEBHOOK_ALLOW_PRIVATE_CIDRS/,
      bad,
    );
  }
});

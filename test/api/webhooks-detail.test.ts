// The delivery detail (GET /v2/webhooks/{id}/deliveries/{id}: the request sent, each attempt's status, timing and
// answer) and "send a test event" (POST /v2/webhooks/{id}/ping), against real receivers on 127.0.0.1.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { verify } from '@octokit/webhooks-methods';
import { newId } from '../../server/ids.ts';
import { writeEvent } from '../../server/outbox/sql.ts';
import { signBody } from '../../server/webhooks/signature.ts';
import { insertDelivery } from '../../server/webhooks/sql.ts';
import { assertWebhookBody } from '../helpers/contract.ts';
import { type Answer, eventually, type Receiver, startReceiver } from '../helpers/receiver.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const receivers: Receiver[] = [];
before(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32', WEBHOOK_SWEEP_INTERVAL_MS: '200' });
});
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await server.stop();
});

async function receiver(answer?: (i: number) => Answer) {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

async function hook(api: ApiClient, url: string, events: string[]) {
  const res = await api.post('/v2/webhooks', { url, events });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { webhook_id: string; secret: string };
}

const detail = (api: ApiClient, webhookId: string, deliveryId: string) =>
  api.get(`/v2/webhooks/${webhookId}/deliveries/${deliveryId}`);

const settledDetail = (api: ApiClient, webhookId: string, deliveryId: string) =>
  eventually(
    async () => {
      const res = await detail(api, webhookId, deliveryId);
      assert.equal(res.status, 200);
      return res.body.state === 'pending' ? null : res.body;
    },
    30_000,
    'a settled delivery',
  );

async function loggedIn(email: string, password: string) {
  const c = server.client();
  const res = await c.post('/dashboard/api/login', { email, password });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  c.csrf = res.body.csrf_token;
  return c;
}

test('the detail shows the signed request and each attempt with its status, timing and send time', async () => {
  const { token, accountId } = await server.newAccount();
  const api = server.client(token);
  // First attempt: a slow 500; second: 200.
  const r = await receiver((i) =>
    i === 0 ? { status: 500, delayMs: 300, body: 'database unavailable' } : { status: 200 },
  );
  const h = await hook(api, r.url, ['usage.alert']);
  const data = { resource: 'quotes' as const, level: 80 as const, used: 80, limit: 100, period: '2026-11' };
  await server.deps.db.transaction((tx) =>
    writeEvent(tx, { account_id: accountId, token_id: null, event: 'usage.alert', data, at: server.deps.now() }),
  );
  server.deps.events.wake();
  const got = await r.waitFor(2);
  const deliveryId = got[0].headers['x-webhook-delivery'] as string;
  const d = await settledDetail(api, h.webhook_id, deliveryId);

  assert.deepEqual([d.state, d.attempts, d.event], ['delivered', 2, 'usage.alert']);
  // The request: exactly the bytes the receiver got, with the headers it got.
  assert.equal(d.request.method, 'POST');
  assert.equal(d.request.url, r.url);
  assert.equal(d.request.body, got[1].body);
  assert.equal(await verify(h.secret, d.request.body, d.request.headers['x-webhook-signature']), true);
  for (const name of [
    'content-type',
    'user-agent',
    'x-webhook-signature',
    'x-webhook-event',
    'x-webhook-delivery',
    'x-webhook-timestamp',
    'content-length',
  ]) {
    assert.equal(d.request.headers[name], got[1].headers[name], name);
  }
  // Each attempt: its own timestamp (as sent), status, error and a duration that includes the receiver's delay.
  assert.equal(d.attempt_log.length, 2);
  const [first, second] = d.attempt_log;
  assert.deepEqual([first.attempt, first.status_code, first.error], [1, 500, 'receiver answered 500']);
  assert.deepEqual([second.attempt, second.status_code, second.error], [2, 200, null]);
  assert.equal(first.sent_at, got[0].headers['x-webhook-timestamp']);
  assert.equal(second.sent_at, got[1].headers['x-webhook-timestamp']);
  // (No upper bound: on a loaded host an attempt's round trip takes what it takes.)
  assert.ok(first.duration_ms >= 300, `first attempt took ${first.duration_ms} ms`);
  assert.ok(Number.isInteger(second.duration_ms) && second.duration_ms >= 0, `second took ${second.duration_ms} ms`);
  // A loopback receiver is a private address: its answer is never kept, however it was allowed.
  assert.deepEqual([first.response_snippet, second.response_snippet], [null, null]);
  // The list still leaves body and signature out.
  const list = await api.get(`/v2/webhooks/${h.webhook_id}/deliveries`);
  assert.equal(list.body.data[0].request, undefined);
  assert.equal(list.body.data[0].attempt_log, undefined);
});

test('a pending delivery has no attempts and no timestamp header yet; unknown, foreign or mismatched ids answer 404', async () => {
  const a = await server.newAccount();
  const b = await server.newAccount();
  const apiA = server.client(a.token);
  const apiB = server.client(b.token);
  const r = await receiver();
  const paused = await hook(apiA, r.url, ['file.deleted']);
  const other = await hook(apiA, r.url, ['file.deleted']);
  assert.equal((await apiA.put(`/v2/webhooks/${paused.webhook_id}`, { active: false })).status, 200);
  // A delivery waiting on a paused webhook, as the dispatcher writes one.
  const body = JSON.stringify({
    event: 'file.deleted',
    timestamp: new Date().toISOString(),
    data: { fileId: 'file_x', fileName: 'x.stl', sizeBytes: 1 },
  });
  const waiting = await insertDelivery(server.deps.db, {
    id: newId('dlv'),
    webhook_id: paused.webhook_id,
    account_id: a.accountId,
    event_id: newId('evt'),
    event: 'file.deleted',
    body,
    signature: signBody(paused.secret, body),
    resent_from: null,
  });
  const pending = await detail(apiA, paused.webhook_id, waiting.id);
  assert.equal(pending.status, 200);
  assert.deepEqual([pending.body.state, pending.body.attempt_log], ['pending', []]);
  assert.equal(pending.body.request.body, body);
  assert.equal(pending.body.request.headers['x-webhook-timestamp'], undefined);
  assert.equal(pending.body.request.headers['x-webhook-event'], 'file.deleted');

  const ping = await apiA.post(`/v2/webhooks/${other.webhook_id}/ping`);
  assert.equal(ping.status, 202);
  assert.equal((await settledDetail(apiA, other.webhook_id, ping.body.delivery_id)).attempt_log.length, 1);
  const notFound = async (res: Awaited<ReturnType<typeof detail>>) => {
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
  };
  await notFound(await detail(apiB, other.webhook_id, ping.body.delivery_id)); // another account's
  await notFound(await detail(apiA, other.webhook_id, 'dlv_nothere'));
  await notFound(await detail(apiA, paused.webhook_id, ping.body.delivery_id)); // a delivery of another webhook
  await notFound(await apiB.post(`/v2/webhooks/${other.webhook_id}/ping`));
  assert.equal(
    (await server.client().get(`/v2/webhooks/${other.webhook_id}/deliveries/${ping.body.delivery_id}`)).status,
    401,
  );
});

test('send a test event: a signed ping with "test": true, to any webhook, in the log; paused webhooks refuse it', async () => {
  const { token, email, password } = await server.newAccount();
  const api = server.client(token);
  const r = await receiver();
  const h = await hook(api, r.url, ['widget.added_to_cart']); // not subscribed to anything a ping could be
  const res = await api.post(`/v2/webhooks/${h.webhook_id}/ping`);
  assert.equal(res.status, 202);
  assert.deepEqual([res.body.event, res.body.state, res.body.attempts], ['ping', 'pending', 0]);
  const [got] = await r.waitFor(1);
  assert.equal(got.headers['x-webhook-event'], 'ping');
  assert.equal(got.headers['x-webhook-delivery'], res.body.delivery_id);
  assert.equal(await verify(h.secret, got.body, got.headers['x-webhook-signature'] as string), true);
  assert.deepEqual(Object.keys(got.json), ['event', 'timestamp', 'test', 'data']);
  assert.deepEqual(
    [got.json.event, got.json.test, got.json.data.webhookId, got.json.data.events],
    ['ping', true, h.webhook_id, ['widget.added_to_cart']],
  );
  assertWebhookBody('WebhookEventPing', got.json);
  const d = await settledDetail(api, h.webhook_id, res.body.delivery_id);
  assert.deepEqual([d.state, d.attempt_log[0].status_code], ['delivered', 200]);
  const list = (await api.get(`/v2/webhooks/${h.webhook_id}/deliveries`)).body.data;
  assert.deepEqual(
    list.map((x: any) => [x.delivery_id, x.event]),
    [[res.body.delivery_id, 'ping']],
  );

  // The dashboard's session may do the same (with its CSRF header).
  const dashboard = await loggedIn(email, password);
  const viaSession = await dashboard.post(`/v2/webhooks/${h.webhook_id}/ping`);
  assert.equal(viaSession.status, 202);
  assert.equal(
    (await dashboard.get(`/v2/webhooks/${h.webhook_id}/deliveries/${viaSession.body.delivery_id}`)).status,
    200,
  );
  dashboard.csrf = null;
  assert.equal((await dashboard.post(`/v2/webhooks/${h.webhook_id}/ping`)).status, 403);

  assert.equal((await api.put(`/v2/webhooks/${h.webhook_id}`, { active: false })).status, 200);
  const paused = await api.post(`/v2/webhooks/${h.webhook_id}/ping`);
  assert.deepEqual([paused.status, paused.body.error.code], [409, 'webhook_inactive']);
  assert.equal((await api.post('/v2/webhooks/wh_nothere/ping')).status, 404);
});

test('a ping to a receiver that fails is retried like any delivery and ends failed with every attempt logged', async () => {
  const { token } = await server.newAccount();
  const api = server.client(token);
  const r = await receiver(() => ({ status: 503, body: 'maintenance' }));
  const h = await hook(api, r.url, ['quote.completed']);
  const res = await api.post(`/v2/webhooks/${h.webhook_id}/ping`);
  const d = await settledDetail(api, h.webhook_id, res.body.delivery_id);
  assert.deepEqual([d.state, d.attempts, d.last_status_code], ['failed', 3, 503]);
  assert.deepEqual(
    d.attempt_log.map((a: any) => [a.attempt, a.status_code, a.error]),
    [1, 2, 3].map((n) => [n, 503, 'receiver answered 503']),
  );
  assert.equal(new Set((await r.waitFor(3)).map((g) => g.body)).size, 1, 'the same bytes on every attempt');
});

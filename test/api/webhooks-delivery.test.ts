// Webhook deliveries to real receivers on 127.0.0.1 (reached through WEBHOOK_ALLOW_PRIVATE_CIDRS=127.0.0.1/32):
// every event signed so that @octokit/webhooks-methods verifies it, retries, resend, token links,
// a slow receiver next to a fast one, statistics, and URLs refused at attempt time.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { verify } from '@octokit/webhooks-methods';
import { type EventName, writeEvent } from '../../server/outbox/sql.ts';
import { SCHEMA_OF_EVENT } from '../../server/webhooks/openapi.ts';
import { signBody } from '../../server/webhooks/signature.ts';
import { assertWebhookBody } from '../helpers/contract.ts';
import { corpusPath } from '../helpers/corpus.ts';
import { type Answer, eventually, type Receiver, startReceiver } from '../helpers/receiver.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

const ALL_EVENTS = [
  'quote.completed',
  'quote.failed',
  'file.uploaded',
  'file.deleted',
  'job.status_changed',
  'widget.added_to_cart',
  'usage.alert',
  'quote_request.created',
  'quote_request.priced',
];
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const MODELS = corpusPath();

function assertEventShape(body: unknown) {
  const event = (body as { event: string }).event;
  const schema = SCHEMA_OF_EVENT[event];
  assert.ok(schema, `no schema for the event ${event}`);
  assertWebhookBody(schema, body);
}

/** Sample data as the emitting code writes it (see docs/webhooks.md). */
const SAMPLE: Record<string, Record<string, unknown>> = {
  'quote.completed': {
    jobId: 'job_abc',
    quoteId: 'job_abc',
    status: 'completed',
    fileName: 'cube.stl',
    fileId: 'file_abc',
    processingTimeMs: 1834,
    cached: false,
    result: {
      quote_id: 'job_abc',
      total_price: 4.37,
      currency: 'EUR',
      estimated_time: '1h 2m',
      estimated_time_seconds: 3720,
      filament_weight: 12.41,
      printInfo: { technology: 'FDM', material: 'PLA', color: 'black' },
    },
    error: null,
  },
  'quote.failed': {
    jobId: 'job_def',
    quoteId: 'job_def',
    status: 'failed',
    fileName: 'broken.stl',
    fileId: 'file_def',
    processingTimeMs: 95,
    cached: false,
    result: null,
    error: { code: 'slicer_failed', message: 'PrusaSlicer could not slice the model.' },
  },
  'file.uploaded': {
    fileId: 'file_abc',
    fileName: 'cube.stl',
    format: 'stl',
    sizeBytes: 684,
    sha256: 'a'.repeat(64),
    source: 'api',
    measurements: {
      triangles: 12,
      bounding_box: { min: [0, 0, 0], max: [20, 20, 20], size: [20, 20, 20] },
      volume_mm3: 8000,
      surface_area_mm2: 2400,
      watertight: true,
      bodies: 1,
    },
  },
  'file.deleted': { fileId: 'file_abc', fileName: 'cube.stl', sizeBytes: 684 },
  'job.status_changed': {
    jobId: 'job_abc',
    quoteId: 'job_abc',
    fileId: 'file_abc',
    fileName: 'cube.stl',
    status: 'processing',
    previousStatus: 'queued',
    progress: 10,
    attempts: 1,
  },
  'widget.added_to_cart': {
    cartLineId: 'cl_abc',
    widgetKeyId: 'wk_abc',
    fileId: 'file_abc',
    fileName: 'cube.stl',
    fileRevision: 1,
    placement: {
      unit: 'mm',
      scale: 1,
      orientation: 'as_uploaded',
      rotation: { x: 0, y: 0, z: 0 },
      dimensions: { x: 20, y: 20, z: 20 },
    },
    quoteId: 'qt_abc',
    quantity: 2,
    material: 'PETG',
    color: 'orange',
    choices: {
      material: 'PETG',
      color: 'orange',
      quality: 'standard',
      quality_label: 'Standard',
      infill: 20,
      quantity: 1,
    },
    unitPrice: 4.37,
    subtotal: 8.74,
    minimumLineAdjustment: 0,
    totalPrice: 8.74,
    currency: 'EUR',
    origin: 'https://shop.example.com',
    expiresAt: '2026-11-30T12:00:00.000Z',
    signature: {
      payload: `v2:qt_abc:file_abc:1:mm:1:as_uploaded:${'0'.repeat(64)}:437:EUR:1796040000`,
      hmac_sha256: 'f'.repeat(64),
    },
    quote: {
      quote_id: 'qt_abc',
      total_price: 4.37,
      currency: 'EUR',
      estimated_time: '1h 2m',
      estimated_time_seconds: 3720,
      filament_weight: 11.8,
      printInfo: { technology: 'FDM', material: 'PETG', color: 'orange' },
    },
  },
  'usage.alert': { resource: 'quotes', level: 80, used: 80, limit: 100, period: '2026-11' },
  'quote_request.created': {
    requestId: 'rq_abc',
    reason: 'not_priceable',
    reasonCode: 'exceeds_build_volume',
    fileId: 'file_abc',
    fileName: 'hull.stl',
    quoteId: 'qt_abc',
    choices: {
      material: 'PETG',
      color: 'orange',
      quality: 'standard',
      quality_label: 'Standard',
      infill: 20,
      quantity: 2,
    },
    quantity: 2,
    name: 'Ada Lovelace',
    email: 'ada@example.test',
    note: 'Could you print it in two halves?',
    origin: 'https://shop.example',
    page: 'https://shop.example/print',
    widgetKeyId: 'wk_abc',
  },
  'quote_request.priced': {
    requestId: 'rq_abc',
    quoteId: 'qt_def',
    fileId: 'file_abc',
    fileName: 'hull.stl',
    quantity: 2,
    unitPrice: 12.5,
    totalPrice: 25,
    currency: 'EUR',
    expiresAt: '2026-12-01T10:00:00.000Z',
    signature: {
      payload: `v3:qt_def:file_abc:1:mm:1:as_uploaded:${'0'.repeat(64)}:1250:EUR::0:1796119200`,
      hmac_sha256: 'a'.repeat(64),
    },
    token: 'qt_def.1796119200.2.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    orderUrl: 'https://shop.example/print?sq-quote=qt_def.1796119200.2.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    email: 'ada@example.test',
  },
};

let server: TestServer;
const receivers: Receiver[] = [];
/** The retries' jitter (the server's `random`): 0.5 puts a first retry 150 ms after its failure (base 200 ms). */
let jitter = 0.5;
before(async () => {
  server = await startTestServer(
    { WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32', WEBHOOK_SWEEP_INTERVAL_MS: '200' },
    { random: () => jitter },
  );
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

async function hook(api: ApiClient, url: string, events: string[], extra: Record<string, unknown> = {}) {
  const res = await api.post('/v2/webhooks', { url, events, ...extra });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { webhook_id: string; secret: string };
}

/** Writes an event the way the emitting code does (in a transaction), then wakes the pump. */
async function emit(
  s: TestServer,
  accountId: string,
  event: string,
  tokenId: string | null = null,
  data = SAMPLE[event],
) {
  assert.ok(data, `no sample data for the event ${event}`);
  const id = await s.deps.db.transaction((tx) =>
    writeEvent(tx, {
      account_id: accountId,
      token_id: tokenId,
      event: event as EventName,
      data: data as never,
      at: s.deps.now(),
    }),
  );
  s.deps.events.wake();
  return id;
}

/** Waits until the pump fanned the event out (its deliveries, if any, exist), then runs one full pass. */
async function passedThrough(s: TestServer, eventId: string) {
  await eventually(
    async () => {
      const [row] = await s.deps.db.query<{ dispatched_at: Date | null }>(
        'SELECT dispatched_at FROM outbox_events WHERE id = $1',
        [eventId],
      );
      return row?.dispatched_at;
    },
    20_000,
    `event ${eventId} dispatched`,
  );
  await s.deps.events.sweep();
}

async function deliveries(api: ApiClient, webhookId: string, query = '') {
  const res = await api.get(`/v2/webhooks/${webhookId}/deliveries${query}`);
  assert.equal(res.status, 200);
  return res.body.data as any[];
}

const settled = (api: ApiClient, webhookId: string, n: number) =>
  eventually(
    async () => {
      const list = await deliveries(api, webhookId);
      return list.length === n && list.every((d) => d.state !== 'pending') ? list : null;
    },
    30_000,
    `${n} settled deliveries`,
  );

test("GitHub's published test vector: our signature format is the one @octokit/webhooks-methods verifies", async () => {
  const secret = "It's a Secret to Everybody";
  const expected = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
  assert.equal(signBody(secret, 'Hello, World!'), expected);
  assert.equal(await verify(secret, 'Hello, World!', expected), true);
});

test('every event type is delivered with the documented headers and a signature octokit verifies', async () => {
  const { token, accountId } = await server.newAccount();
  const api = server.client(token);
  const r = await receiver();
  const h = await hook(api, r.url, ALL_EVENTS);
  for (const event of ALL_EVENTS) await emit(server, accountId, event);
  const got = await r.waitFor(ALL_EVENTS.length);
  assert.deepEqual(got.map((g) => g.json.event).sort(), [...ALL_EVENTS].sort());
  for (const g of got) {
    assert.equal(
      await verify(h.secret, g.body, g.headers['x-webhook-signature'] as string),
      true,
      `${g.json.event} verifies`,
    );
    assert.equal(await verify('another secret entirely', g.body, g.headers['x-webhook-signature'] as string), false);
    assert.equal(g.headers['content-type'], 'application/json');
    assert.equal(g.headers['user-agent'], 'slicequote-webhooks/1');
    assert.equal(g.headers['x-webhook-event'], g.json.event);
    assert.match(g.headers['x-webhook-delivery'] as string, /^dlv_[a-z0-9]+$/);
    assert.match(g.headers['x-webhook-timestamp'] as string, ISO_MS);
    assert.deepEqual(Object.keys(g.json), ['event', 'timestamp', 'data']);
    assert.match(g.json.timestamp, ISO_MS);
    assert.deepEqual(g.json.data, SAMPLE[g.json.event]);
    assertEventShape(g.json);
  }
  const list = await settled(api, h.webhook_id, ALL_EVENTS.length);
  for (const d of list) {
    assert.equal(d.state, 'delivered');
    assert.equal(d.attempts, 1);
    assert.equal(d.last_status_code, 200);
    assert.equal(d.last_error, null);
    assert.equal(d.response_snippet, null, 'never kept from a private address, even an allowed one');
    assert.match(d.delivered_at, ISO_MS);
    assert.equal(d.next_attempt_at, null);
  }
  assert.deepEqual(new Set(list.map((d) => d.delivery_id)), new Set(got.map((g) => g.headers['x-webhook-delivery'])));
});

const parsersReady = existsSync(path.resolve(import.meta.dirname, '../../shared/model/index.ts'));
test('file.uploaded and file.deleted from real API calls, carrying the token that caused them', {
  skip: !parsersReady && 'model parsers (shared/model/index.ts) not merged yet',
}, async () => {
  const { token, tokenId } = await server.newAccount();
  const api = server.client(token);
  const r = await receiver();
  // Linked to the uploading token: it fires only if the events carry that token.
  const linked = await hook(api, r.url, ['file.uploaded', 'file.deleted'], { token_id: tokenId });
  const up = await api.upload('/v2/file', path.join(MODELS, 'stl/cube20_ascii.stl'));
  assert.equal(up.status, 201, JSON.stringify(up.body));
  assert.equal((await api.delete(`/v2/file/${up.body.file_id}`)).status, 200);
  const [uploaded, deleted] = await r.waitFor(2);
  for (const g of [uploaded, deleted]) {
    assert.equal(await verify(linked.secret, g.body, g.headers['x-webhook-signature'] as string), true);
    assertEventShape(g.json);
    assert.equal(g.json.data.fileId, up.body.file_id);
  }
  assert.equal(uploaded.json.event, 'file.uploaded');
  assert.equal(uploaded.json.data.sha256, up.body.sha256);
  assert.equal(deleted.json.event, 'file.deleted');
});

const slicerReady = (() => {
  try {
    execFileSync('prusa-slicer', ['--help'], { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
})();
test("real quotes: quote.completed, quote.failed and the async job's job.status_changed are delivered as documented", {
  skip: !(parsersReady && slicerReady) && 'needs the model parsers and prusa-slicer',
}, async () => {
  const { token } = await server.newAccount();
  const api = server.client(token);
  const r = await receiver();
  const h = await hook(api, r.url, ['quote.completed', 'quote.failed', 'job.status_changed']);
  const file = await api.upload('/v2/file', path.join(MODELS, 'stl/cube20_ascii.stl'));
  assert.equal(file.status, 201);
  const ok = await api.post(`/v2/file/quote/${file.body.file_id}`, { material_config: { filament_type: 'PLA' } });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const bad = await api.post(`/v2/file/quote/${file.body.file_id}`, {
    printer_config: { bed_size_x: 10, bed_size_y: 10 },
  });
  assert.equal(bad.status, 422);
  const job = await api.post(`/v2/file/quote/${file.body.file_id}/async`, { printer_config: { fill_density: 21 } });
  assert.equal(job.status, 202);
  const list = await eventually(
    async () => {
      const l = await deliveries(api, h.webhook_id, '?limit=100');
      const done = l.filter((d) => d.state === 'delivered');
      return done.length === l.length &&
        l.some((d) => d.event === 'quote.failed') &&
        l.filter((d) => d.event === 'quote.completed').length === 2
        ? l
        : null;
    },
    60_000,
    'quote deliveries',
  );
  assert.equal(r.requests.length, list.length);
  for (const g of r.requests) {
    assert.equal(await verify(h.secret, g.body, g.headers['x-webhook-signature'] as string), true);
    assertEventShape(g.json);
  }
  const completed = r.requests.find((g) => g.json.event === 'quote.completed')!.json;
  assert.equal(completed.data.jobId, ok.body.quote_id);
  assert.equal(completed.data.quoteId, completed.data.jobId);
  assert.equal(completed.data.status, 'completed');
  assert.equal(completed.data.fileId, file.body.file_id);
  assert.equal(completed.data.fileName, 'cube20_ascii.stl');
  assert.equal(completed.data.error, null);
  assert.equal(completed.data.result.total_price, ok.body.total_price);
  const failed = r.requests.find((g) => g.json.event === 'quote.failed')!.json;
  assert.equal(failed.data.quoteId, bad.body.error.details.quote_id);
  assert.equal(failed.data.result, null);
  const transitionsOf = (id: string) =>
    r.requests
      .filter((g) => g.json.event === 'job.status_changed' && g.json.data.jobId === id)
      .map((g) => g.json.data.status);
  assert.deepEqual(transitionsOf(ok.body.quote_id), [], 'a synchronous quote answers in the response: no job events');
  assert.deepEqual(transitionsOf(bad.body.error.details.quote_id), []);
  assert.deepEqual(transitionsOf(job.body.job_id).sort(), ['completed', 'processing', 'queued']);
});

test('a failing receiver gets exactly 3 attempts with identical body and signature; then failed, visible', async () => {
  const { token, accountId } = await server.newAccount();
  const api = server.client(token);
  const r = await receiver(() => ({ status: 500, body: 'database on fire' }));
  const h = await hook(api, r.url, ['quote.failed']);
  await emit(server, accountId, 'quote.failed');
  const [d] = await settled(api, h.webhook_id, 1);
  // Far past any retry delay, a full pass attempts whatever is still due: nothing may be.
  server.clock.advance(3_600_000);
  await server.deps.events.sweep();
  assert.equal(r.requests.length, 3);
  const [first, ...rest] = r.requests;
  assert.ok(first);
  for (const again of rest) {
    assert.equal(again.body, first.body, 'identical body bytes');
    assert.equal(again.headers['x-webhook-signature'], first.headers['x-webhook-signature'], 'identical signature');
    assert.equal(again.headers['x-webhook-delivery'], first.headers['x-webhook-delivery'], 'same delivery id');
  }
  assert.equal(await verify(h.secret, first.body, first.headers['x-webhook-signature'] as string), true);
  assert.equal(d.state, 'failed');
  assert.equal(d.attempts, 3);
  assert.equal(d.max_attempts, 3);
  assert.equal(d.last_status_code, 500);
  assert.equal(d.last_error, 'receiver answered 500');
  assert.equal(d.response_snippet, null);
  assert.equal(d.delivered_at, null);
  assert.equal(d.next_attempt_at, null);
  assert.equal((await deliveries(api, h.webhook_id, '?state=failed')).length, 1);
  assert.equal((await deliveries(api, h.webhook_id, '?state=delivered')).length, 0);
  assert.equal((await api.get(`/v2/webhooks/${h.webhook_id}/deliveries?state=lost`)).status, 400);
});

test('a transient failure is retried by the sweep and then delivered', async () => {
  const { token, accountId } = await server.newAccount();
  const api = server.client(token);
  const r = await receiver((i) => ({ status: i === 0 ? 503 : 204 }));
  const h = await hook(api, r.url, ['usage.alert']);
  await emit(server, accountId, 'usage.alert');
  const [d] = await settled(api, h.webhook_id, 1);
  assert.equal(d.state, 'delivered');
  assert.equal(d.attempts, 2);
  assert.equal(d.last_status_code, 204);
  assert.equal(d.last_error, null);
  const [attempt, retry] = r.requests;
  assert.ok(attempt && retry, 'both attempts reached the receiver');
  assert.equal(attempt.body, retry.body);
  assert.ok(retry.at - attempt.at >= 150, 'the retry waited for its delay (150 ms with jitter 0.5)');
});

test('retries back off exponentially with jitter: each delay drawn from the upper half of a doubling step', async () => {
  const { token, accountId } = await server.newAccount();
  const api = server.client(token);
  const r = await receiver(() => ({ status: 503 }));
  const h = await hook(api, r.url, ['usage.alert']);
  let failedAt = 0;
  const nextAt = async () => {
    const [d] = await deliveries(api, h.webhook_id);
    return [d.attempts, d.next_attempt_at && Date.parse(d.next_attempt_at) - failedAt];
  };
  server.clock.freeze(); // every attempt fails at this instant until the test moves the clock
  failedAt = server.clock.now().getTime();
  try {
    jitter = 0.5;
    await passedThrough(server, await emit(server, accountId, 'usage.alert'));
    // Step 200 ms (the base): half of it, plus half of it × 0.5.
    assert.deepEqual(await nextAt(), [1, 150]);
    server.clock.advance(149);
    await server.deps.events.sweep();
    assert.deepEqual(await nextAt(), [1, 150], 'not before its time');
    server.clock.advance(1);
    failedAt = server.clock.now().getTime();
    jitter = 0.25;
    await server.deps.events.sweep();
    // Step 400 ms: 200 + 200 × 0.25.
    assert.deepEqual(await nextAt(), [2, 250]);
    server.clock.advance(250);
    await server.deps.events.sweep();
    assert.deepEqual(await nextAt(), [3, null], 'the third failure closes the delivery');
    assert.equal(r.requests.length, 3);
  } finally {
    jitter = 0.5;
    server.clock.resume();
  }
});

test('resend creates a new pending record (202) with the same body; an inactive webhook refuses with 409', async () => {
  const { token, accountId } = await server.newAccount();
  const api = server.client(token);
  let status = 500;
  const r = await receiver(() => ({ status }));
  const h = await hook(api, r.url, ['widget.added_to_cart']);
  await emit(server, accountId, 'widget.added_to_cart');
  const [failed] = await settled(api, h.webhook_id, 1);
  assert.equal(failed.state, 'failed');
  const [original] = r.requests;
  assert.ok(original, 'the failed attempts reached the receiver');
  const originalBody = original.body;

  status = 200;
  const resent = await api.post(`/v2/webhooks/${h.webhook_id}/deliveries/${failed.delivery_id}/resend`);
  assert.equal(resent.status, 202);
  assert.notEqual(resent.body.delivery_id, failed.delivery_id);
  assert.equal(resent.body.state, 'pending');
  assert.equal(resent.body.attempts, 0);
  assert.equal(resent.body.resent_from, failed.delivery_id);
  assert.equal(resent.body.event_id, failed.event_id);
  const [, , , again] = await r.waitFor(4);
  assert.equal(again.body, originalBody, 'same body bytes');
  assert.equal(again.headers['x-webhook-delivery'], resent.body.delivery_id);
  assert.equal(await verify(h.secret, again.body, again.headers['x-webhook-signature'] as string), true);
  const list = await settled(api, h.webhook_id, 2);
  assert.deepEqual(
    list.map((d) => [d.delivery_id, d.state]),
    [
      [resent.body.delivery_id, 'delivered'],
      [failed.delivery_id, 'failed'],
    ],
  );

  // Resending a delivered one is allowed too (a receiver lost it on its side).
  assert.equal(
    (await api.post(`/v2/webhooks/${h.webhook_id}/deliveries/${resent.body.delivery_id}/resend`)).status,
    202,
  );
  await r.waitFor(5);

  assert.equal((await api.put(`/v2/webhooks/${h.webhook_id}`, { active: false })).status, 200);
  const refused = await api.post(`/v2/webhooks/${h.webhook_id}/deliveries/${failed.delivery_id}/resend`);
  assert.equal(refused.status, 409);
  assert.equal(refused.body.error.code, 'webhook_inactive');
  assert.equal((await api.post(`/v2/webhooks/${h.webhook_id}/deliveries/dlv_nosuchdelivery/resend`)).status, 404);

  // An inactive webhook gets no deliveries for new events.
  await passedThrough(server, await emit(server, accountId, 'widget.added_to_cart'));
  assert.equal((await deliveries(api, h.webhook_id)).length, 3);
  assert.equal(r.requests.length, 5);
});

test("a webhook linked to a token fires only for that token's events; an unlinked one for all", async () => {
  const { token, accountId, tokenId } = await server.newAccount();
  const api = server.client(token);
  const second = await server.newToken(accountId, 'second shop');
  assert.ok(second.row);
  const rLinked = await receiver();
  const rAll = await receiver();
  const linked = await hook(api, rLinked.url, ['job.status_changed'], { token_id: second.row.id });
  const all = await hook(api, rAll.url, ['job.status_changed']);
  const progress = (n: number) => ({ ...SAMPLE['job.status_changed'], progress: n });
  await emit(server, accountId, 'job.status_changed', tokenId, progress(1)); // first token
  await emit(server, accountId, 'job.status_changed', second.row.id, progress(2)); // the linked token
  await emit(server, accountId, 'job.status_changed', null, progress(3)); // no token (e.g. a dashboard session)
  await settled(api, all.webhook_id, 3);
  await settled(api, linked.webhook_id, 1); // exactly one: every event was fanned out once all's three settled
  assert.deepEqual(
    rLinked.requests.map((g) => g.json.data.progress),
    [2],
  );
  assert.deepEqual(rAll.requests.map((g) => g.json.data.progress).sort(), [1, 2, 3]);
  const [linkedGot] = rLinked.requests;
  assert.ok(linkedGot);
  assert.equal(await verify(linked.secret, linkedGot.body, linkedGot.headers['x-webhook-signature'] as string), true);

  // Unlinking widens it to the whole account from the next event on.
  await api.put(`/v2/webhooks/${linked.webhook_id}`, { token_id: null });
  await emit(server, accountId, 'job.status_changed', tokenId, progress(4));
  const [, unlinkedGot] = await rLinked.waitFor(2);
  assert.equal(unlinkedGot.json.data.progress, 4);
});

test('a receiver that sleeps 5 s delays neither another receiver nor the API response', async () => {
  const { token, accountId } = await server.newAccount();
  const api = server.client(token);
  const slow = await receiver(() => ({ status: 200, delayMs: 5000 }));
  const fast = await receiver();
  const hSlow = await hook(api, slow.url, ['quote.completed', 'usage.alert']);
  await hook(api, fast.url, ['quote.completed']);
  // A backlog for the slow receiver first, then one event both receive.
  for (let i = 0; i < 6; i++) await emit(server, accountId, 'usage.alert');
  await emit(server, accountId, 'quote.completed');
  const [got] = await fast.waitFor(1);
  // The slow receiver holds each of its attempts for 5 s; the fast one must not wait for any of them.
  assert.equal(slow.answered, 0, 'the fast receiver got its event before the slow one answered anything');
  assert.equal(got.json.event, 'quote.completed');
  await slow.waitFor(1);
  const [first] = await deliveries(api, hSlow.webhook_id, '?state=pending');
  const resend = await api.post(`/v2/webhooks/${hSlow.webhook_id}/deliveries/${first.delivery_id}/resend`);
  assert.equal(resend.status, 202);
  const [resent] = (await deliveries(api, hSlow.webhook_id, '?limit=100')).filter(
    (d) => d.delivery_id === resend.body.delivery_id,
  );
  assert.equal(resent?.state, 'pending', 'the API answered without waiting for the 5 s delivery');
});

test('statistics on GET /v2/webhooks/{id}', async () => {
  const { token, accountId } = await server.newAccount();
  const api = server.client(token);
  // Answers by body: usage.alert succeeds, quote.failed always fails.
  const r = await startReceiver((_i, req) => ({ status: req.json?.event === 'usage.alert' ? 200 : 500 }));
  receivers.push(r);
  const h = await hook(api, r.url, ['usage.alert', 'quote.failed']);
  await emit(server, accountId, 'usage.alert');
  await emit(server, accountId, 'usage.alert');
  await emit(server, accountId, 'quote.failed');
  await settled(api, h.webhook_id, 3);
  const { body } = await api.get(`/v2/webhooks/${h.webhook_id}`);
  assert.equal(body.stats.total, 3);
  assert.equal(body.stats.delivered, 2);
  assert.equal(body.stats.failed, 1);
  assert.equal(body.stats.pending, 0);
  assert.equal(body.stats.success_rate, 0.6667);
  assert.match(body.stats.last_delivery_at, ISO_MS);
  assert.match(body.stats.last_attempt_at, ISO_MS);
});

test('a URL refused at attempt time fails each attempt with the recorded reason and never connects', async () => {
  const { token, accountId } = await server.newAccount();
  const api = server.client(token);
  const r = await receiver();
  const h = await hook(api, r.url, ['file.deleted']);
  // Stands for a name whose DNS now points inside: the stored URL is no longer acceptable.
  await server.deps.db.query(`UPDATE webhooks SET url = $1 WHERE id = $2`, [
    `http://169.254.169.254:${r.port}/latest/meta-data/`,
    h.webhook_id,
  ]);
  await emit(server, accountId, 'file.deleted');
  const [d] = await settled(api, h.webhook_id, 1);
  assert.equal(d.state, 'failed');
  assert.equal(d.attempts, 3);
  assert.match(d.last_error, /^url_private_address: /);
  assert.equal(d.last_status_code, null);
  assert.equal(d.response_snippet, null);
  assert.equal(r.requests.length, 0);
});

test('after rotating the secret, new deliveries are signed with the new one', async () => {
  const { token, accountId } = await server.newAccount();
  const api = server.client(token);
  const r = await receiver();
  const h = await hook(api, r.url, ['file.uploaded']);
  const rotated = (await api.put(`/v2/webhooks/${h.webhook_id}`, { rotate_secret: true })).body;
  await emit(server, accountId, 'file.uploaded');
  const [g] = await r.waitFor(1);
  const sig = g.headers['x-webhook-signature'] as string;
  assert.equal(await verify(rotated.secret, g.body, sig), true);
  assert.equal(await verify(h.secret, g.body, sig), false);
});

test("events reach only the account's own webhooks, and a deleted webhook gets nothing", async () => {
  const a = await server.newAccount();
  const b = await server.newAccount();
  const rA = await receiver();
  const rB = await receiver();
  const hA = await hook(server.client(a.token), rA.url, ['quote.completed']);
  await hook(server.client(b.token), rB.url, ['quote.completed']);
  await emit(server, a.accountId, 'quote.completed');
  await rA.waitFor(1);
  assert.equal((await server.client(a.token).delete(`/v2/webhooks/${hA.webhook_id}`)).status, 200);
  await passedThrough(server, await emit(server, a.accountId, 'quote.completed'));
  assert.equal(rA.requests.length, 1);
  assert.equal(rB.requests.length, 0);
});

test('the first attempt does not wait for the sweep', async () => {
  const slowSweep = await startTestServer({
    WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
    WEBHOOK_SWEEP_INTERVAL_MS: '86400000', // a day: a delivery within this test can only come from the wake
  });
  try {
    const { token, accountId } = await slowSweep.newAccount();
    const r = await receiver();
    await hook(slowSweep.client(token), r.url, ['quote.completed']);
    await emit(slowSweep, accountId, 'quote.completed');
    const [g] = await r.waitFor(1);
    assert.equal(g.json.event, 'quote.completed', 'delivered although the sweep runs once a day');
  } finally {
    await slowSweep.stop();
  }
});

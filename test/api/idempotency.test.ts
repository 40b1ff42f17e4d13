// Idempotency-Key on POST /v2/file, POST /v2/file/quote/{id}, its async form and POST /v2/webhooks: a retry with
// the same key and request returns the first answer and creates nothing twice; the same key with another request
// is 422; a duplicate while the first runs is 409; keys are per account and expire after 24 hours.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { boxesObj, CUBE_OBJ, T_SHAPE_OBJ } from '../helpers/meshes.ts';
import { type ApiClient, type ApiResponse, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: ApiClient;
const enc = (s: string) => new TextEncoder().encode(s);
const PUBLIC_URL = 'https://93.184.215.14/hooks/idempotent';

before(async () => {
  server = await startTestServer();
  api = server.client((await server.newAccount()).token);
});
after(() => server.stop());

function withKey(client: ApiClient, key: string) {
  return {
    post: (p: string, json: unknown) => client.request('POST', p, { json, headers: { 'idempotency-key': key } }),
    upload: (p: string, bytes: Uint8Array, name: string) => {
      const form = new FormData();
      form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
      return client.request('POST', p, { form, headers: { 'idempotency-key': key } });
    },
  };
}
const text = (r: ApiResponse) => new TextDecoder().decode(r.raw);

test('POST /v2/webhooks: a retry returns the first answer byte for byte and creates no second webhook', async () => {
  const keyed = withKey(api, 'hook-create-1');
  const body = { url: PUBLIC_URL, events: ['quote.completed'] };
  const first = await keyed.post('/v2/webhooks', body);
  assert.equal(first.status, 201);
  assert.equal(first.headers.get('idempotent-replayed'), null);
  const retry = await keyed.post('/v2/webhooks', body);
  assert.equal(retry.status, 201);
  assert.equal(retry.headers.get('idempotent-replayed'), 'true');
  assert.equal(text(retry), text(first), 'the same webhook id and the same secret');
  assert.equal((await api.get('/v2/webhooks')).body.total, 1);

  const reused = await keyed.post('/v2/webhooks', { ...body, events: ['file.uploaded'] });
  assert.equal(reused.status, 422);
  assert.equal(reused.body.error.code, 'idempotency_key_reused');
  assert.equal(reused.body.error.details.fields[0].field, 'Idempotency-Key');
  assert.equal((await api.get('/v2/webhooks')).body.total, 1);
});

test("keys belong to their account: another account's use of the same key is its own", async () => {
  const other = server.client((await server.newAccount()).token);
  const body = { url: PUBLIC_URL, events: ['file.uploaded'] };
  const mine = await withKey(api, 'shared-key').post('/v2/webhooks', body);
  const theirs = await withKey(other, 'shared-key').post('/v2/webhooks', body);
  assert.equal(mine.status, 201);
  assert.equal(theirs.status, 201);
  assert.notEqual(mine.body.webhook_id, theirs.body.webhook_id);
  assert.equal(theirs.headers.get('idempotent-replayed'), null);
});

test('POST /v2/file: the same upload retried stores one file; another file under the key is 422', async () => {
  const keyed = withKey(api, 'upload-7f3a');
  const before = (await api.get('/v2/user/uploads?limit=100')).body.total;
  const first = await keyed.upload('/v2/file', enc(CUBE_OBJ), 'cube.obj');
  assert.equal(first.status, 201);
  const retry = await keyed.upload('/v2/file', enc(CUBE_OBJ), 'cube.obj');
  assert.equal(retry.status, 201);
  assert.equal(retry.body.file_id, first.body.file_id);
  assert.equal((await api.get('/v2/user/uploads?limit=100')).body.total, before + 1);
  const different = await keyed.upload('/v2/file', enc(T_SHAPE_OBJ), 'cube.obj');
  assert.equal(different.status, 422);
  assert.equal(different.body.error.code, 'idempotency_key_reused');
  assert.equal((await api.get('/v2/user/uploads?limit=100')).body.total, before + 1);
});

test('quotes, sync and async: a retry answers the first quote or job; a duplicate in flight is 409', async () => {
  const fileId = (await api.uploadBytes('/v2/file', enc(boxesObj([[0, 0, 0, 17, 13, 9]])), 'box.obj')).body.file_id;
  const countQuotes = async () => (await api.get('/v2/quotes?limit=100')).body.total;
  const start = await countQuotes();
  const body = { material_config: { filament_type: 'PLA' } };

  // Both sent at once: one runs (slicing takes a while), the other finds the key in use.
  const keyed = withKey(api, 'quote-sync-1');
  const [a, b] = await Promise.all([
    keyed.post(`/v2/file/quote/${fileId}`, body),
    keyed.post(`/v2/file/quote/${fileId}`, body),
  ]);
  const statuses = [a.status, b.status].sort();
  assert.deepEqual(statuses, [200, 409], `${a.status} ${JSON.stringify(a.body).slice(0, 200)} / ${b.status}`);
  const [done, busy] = a.status === 200 ? [a, b] : [b, a];
  assert.equal(busy.body.error.code, 'idempotency_key_in_use');
  assert.ok(Number(busy.headers.get('retry-after')) >= 1);
  const retry = await keyed.post(`/v2/file/quote/${fileId}`, body);
  assert.equal(retry.status, 200);
  assert.equal(retry.body.quote_id, done.body.quote_id);
  assert.equal(await countQuotes(), start + 1);

  const asyncKeyed = withKey(api, 'quote-async-1');
  const job = await asyncKeyed.post(`/v2/file/quote/${fileId}/async`, body);
  assert.equal(job.status, 202);
  const jobRetry = await asyncKeyed.post(`/v2/file/quote/${fileId}/async`, body);
  assert.equal(jobRetry.status, 202);
  assert.equal(jobRetry.body.job_id, job.body.job_id);
  assert.equal(jobRetry.headers.get('location'), `/v2/jobs/${job.body.job_id}`);
  assert.equal(await countQuotes(), start + 2);
  // The sync route's key does not answer for the async route: a different request.
  assert.equal((await keyed.post(`/v2/file/quote/${fileId}/async`, body)).status, 422);
});

test('a key expires after 24 hours; a malformed key is 400 naming the header', async () => {
  const keyed = withKey(api, 'expiring-key');
  const first = await keyed.post('/v2/webhooks', { url: PUBLIC_URL, events: ['usage.alert'] });
  assert.equal(first.status, 201);
  const realNow = server.deps.now;
  server.deps.now = () => new Date(realNow().getTime() + 24 * 3600_000 + 1000);
  try {
    const fresh = await keyed.post('/v2/webhooks', { url: PUBLIC_URL, events: ['file.deleted'] });
    assert.equal(fresh.status, 201, 'after 24 h the key is free for a new request');
    assert.notEqual(fresh.body.webhook_id, first.body.webhook_id);
  } finally {
    server.deps.now = realNow;
  }
  const bad = await withKey(api, 'x'.repeat(256)).post('/v2/webhooks', { url: PUBLIC_URL, events: ['usage.alert'] });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'invalid_idempotency_key');
  assert.equal(bad.body.error.details.fields[0].field, 'Idempotency-Key');
});

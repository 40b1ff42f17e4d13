// Retention (docs/limits.md, "Retention"): a shopper's upload nobody carted is deleted after the quote validity,
// with its stored objects (local disk and S3) and slices, and stops counting against the merchant's storage;
// what the merchant still needs stays (a carted upload, an API upload, a file a valid quote holds, undispatched
// events). Expired upload ids and sessions, slices no live quote names and old dispatched events are purged.
// Uploads are refused with 507 below the disk's free-space floor. The clock is the injected one (deps.now); the
// sweep runs when the test calls it (and once on its schedule). Real slices, a real S3-protocol server, the real filesystem.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../server/config.ts';
import { writeEvent } from '../../server/outbox/sql.ts';
import { freeBytes } from '../../server/storage/disk-floor.ts';
import { boxesObj } from '../helpers/meshes.ts';
import { until } from '../helpers/poll.ts';
import { startTestS3 } from '../helpers/s3-server.ts';
import { merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';

const DAY = 86_400_000;
const SHOP = 'https://retention-shop.example';
// One quality, one infill: each shopper upload prefetches a single slice.
const LEAN_OFFER = {
  materials: [{ material: 'PLA', colors: ['White'] }],
  default_material: 'PLA',
  qualities: [{ id: 'standard', label: 'Standard', printer_config: {} }],
  default_quality: 'standard',
  infill_options: [15],
  default_infill: 15,
  quantity: { min: 1, max: 20 },
  minimum_price: null,
  minimum_line_price: null,
  lead_time: null,
};
/** A plan whose storage allowance holds three of the attacker's uploads, not a fourth. */
const TINY_STORAGE = 3 * 40_000 + 10_000;

let server: TestServer;

function plansWithTinyPlan(dir: string): string {
  const plans = JSON.parse(readFileSync(new URL('../../server/plans.json', import.meta.url), 'utf8'));
  plans.tiny = { ...plans.free, label: 'Tiny', storage_bytes: TINY_STORAGE };
  const file = path.join(dir, 'plans.json');
  writeFileSync(file, JSON.stringify(plans));
  return file;
}

const plansDir = mkdtempSync(path.join(tmpdir(), 'sq-plans-'));
after(() => rmSync(plansDir, { recursive: true, force: true }));

before(async () => {
  server = await startTestServer({
    RATE_LIMIT_ANON_PLAN: 'business',
    SLICER_CONCURRENCY: '1',
    PLANS_FILE: plansWithTinyPlan(plansDir),
  });
});
after(() => server.stop());

/** A shop with the lean offer; its shoppers upload through the widget. */
async function shop(on: TestServer, email: string) {
  const s = await merchantShop(on, email, SHOP);
  assert.equal((await s.api.put('/v2/offer', LEAN_OFFER)).status, 200);
  return s;
}

function shopper(on: TestServer, key: string) {
  const c = on.client();
  let token = '';
  const headers = () => ({ 'x-widget-key': key, origin: SHOP, ...(token ? { 'x-shopper-token': token } : {}) });
  return {
    async upload(bytes: Uint8Array, name = 'part.obj'): Promise<string> {
      const ticket = await c.request('GET', '/v2/file/upload-id', { headers: headers() });
      token = ticket.body.shopper_token;
      const up = await c.uploadBytes(`/v2/file/public/${ticket.body.upload_id}`, bytes, name);
      assert.equal(up.status, 201, JSON.stringify(up.body));
      return up.body.file_id;
    },
    async quote(fileId: string): Promise<string> {
      const q = await c.request('POST', `/v2/file/quote/${fileId}`, { json: {}, headers: headers() });
      assert.equal(q.status, 200, JSON.stringify(q.body));
      assert.equal(q.body.status, 'completed');
      return q.body.quote_id;
    },
    async cart(quoteId: string) {
      const res = await c.request('POST', '/v2/widget/cart', { json: { quote_id: quoteId }, headers: headers() });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    },
  };
}

/** A box of its own size: a mesh (and so a slice) of its own. */
const part = (mm: number) => new TextEncoder().encode(boxesObj([[0, 0, 0, mm, mm, mm / 2]]));
/** An OBJ of about `bytes` bytes: a box padded with comment lines (the attacker's large upload, small here). */
const padded = (mm: number, bytes: number) => {
  const obj = boxesObj([[0, 0, 0, mm, mm, mm]]);
  return new TextEncoder().encode(obj + `# ${'x'.repeat(78)}\n`.repeat(Math.ceil((bytes - obj.length) / 81)));
};

const sql = <T>(on: TestServer, text: string, params: unknown[] = []) => on.deps.db.query<T>(text, params);
const fileRow = async (on: TestServer, id: string) => (await sql(on, 'SELECT id FROM files WHERE id = $1', [id]))[0];
const fileDir = (on: TestServer, id: string) => path.join(on.dataDir, 'files', id.slice(5, 7), id);
const sliceOf = async (on: TestServer, quoteId: string) =>
  (await sql<{ slicing_key: string }>(on, 'SELECT slicing_key FROM quotes WHERE id = $1', [quoteId]))[0]!.slicing_key;
const sliceStored = async (on: TestServer, key: string) =>
  (await sql(on, 'SELECT 1 FROM slices WHERE key = $1', [key])).length === 1;
/** Prefetches slice in the background: a sweep waits until each has its slice, as a later one would find them. */
const prefetchesDone = (on: TestServer, accountId: string) =>
  until('prefetches sliced', 120_000, async () => {
    const waiting = await sql(
      on,
      'SELECT 1 FROM prefetches p WHERE p.account_id = $1 AND NOT EXISTS (SELECT 1 FROM slices s WHERE s.key = p.slicing_key)',
      [accountId],
    );
    return waiting.length === 0 ? true : undefined;
  });

/** Runs `fn` with the clock `days` ahead, then puts it back. */
async function later<T>(on: TestServer, days: number, fn: () => Promise<T>): Promise<T> {
  const real = on.deps.now;
  on.deps.now = () => new Date(Date.now() + days * DAY);
  try {
    return await fn();
  } finally {
    on.deps.now = real;
  }
}

test('an uncarted shopper upload goes after the quote validity with its objects and slices; what the merchant needs stays', async () => {
  const s = await shop(server, 'retention-keep@example.test');
  const expired = shopper(server, s.key);
  const gone = await expired.upload(part(11));
  const goneSlice = await sliceOf(server, await expired.quote(gone));
  const carted = shopper(server, s.key);
  const kept = await carted.upload(part(12));
  await carted.cart(await carted.quote(kept));
  const apiUpload = (await s.api.uploadBytes('/v2/file', part(13), 'own.obj')).body.file_id as string;
  // Uploaded now, quoted six days on: that quote can still be bought when the others have expired.
  const holder = shopper(server, s.key);
  const held = await holder.upload(part(14));
  const heldSlice = await later(server, 6, async () => sliceOf(server, await holder.quote(held)));
  await prefetchesDone(server, s.accountId);
  assert.ok(existsSync(fileDir(server, gone)) && (await sliceStored(server, goneSlice)));

  // Within the quote validity (7 days by default) nothing goes.
  await later(server, 6, () => server.retention.sweepNow());
  assert.ok(await fileRow(server, gone));

  const report = await later(server, 8, () => server.retention.sweepNow());
  assert.equal(await fileRow(server, gone), undefined, 'the expired shopper upload is deleted');
  assert.equal(existsSync(fileDir(server, gone)), false, 'with its stored objects');
  assert.equal(await sliceStored(server, goneSlice), false, 'and its slice');
  assert.ok(report.shopper_uploads >= 1 && report.slices >= 1);
  for (const id of [kept, apiUpload, held]) {
    assert.ok(await fileRow(server, id), `${id} is kept`);
    assert.ok(existsSync(fileDir(server, id)), `${id}'s objects are kept`);
  }
  assert.ok(await sliceStored(server, heldSlice), 'the slice of a quote that can still be bought is kept');
  const deleted = await sql<{ payload: { data: { fileId: string } } }>(
    server,
    `SELECT payload FROM outbox_events WHERE account_id = $1 AND event = 'file.deleted'`,
    [s.accountId],
  );
  assert.deepEqual(
    deleted.map((e) => e.payload.data.fileId),
    [gone],
    'the merchant is told (file.deleted), like any deletion',
  );
  // The held upload goes once its quote has expired too; the carted one follows the merchant's retention (keep).
  await later(server, 14, () => server.retention.sweepNow());
  assert.equal(await fileRow(server, held), undefined);
  assert.ok(await fileRow(server, kept));
  assert.ok(await fileRow(server, apiUpload));
});

test("the attacker's uploads filling the storage allowance are gone after the retention period; the merchant's upload then fits", async () => {
  const s = await shop(server, 'retention-attacked@example.test');
  await sql(server, `UPDATE accounts SET plan = 'tiny' WHERE id = $1`, [s.accountId]);
  const attacker = shopper(server, s.key);
  for (const mm of [21, 22, 23]) await attacker.upload(padded(mm, 40_000), 'huge.obj');
  const own = padded(24, 40_000);
  const refused = await s.api.uploadBytes('/v2/file', own, 'own.obj');
  assert.equal(refused.status, 402);
  assert.equal(refused.body.error.code, 'storage_quota_exceeded');
  await prefetchesDone(server, s.accountId);

  await later(server, 8, () => server.retention.sweepNow());
  assert.equal((await s.api.get('/v2/quota')).body.storage.used, 0, 'the shoppers no longer use the allowance');
  const accepted = await s.api.uploadBytes('/v2/file', own, 'own.obj');
  assert.equal(accepted.status, 201, JSON.stringify(accepted.body));
});

test("a carted upload follows the merchant's retention: kept by default, deleted after the days they set", async () => {
  const s = await shop(server, 'retention-carted@example.test');
  assert.deepEqual((await s.dashboard.get('/v2/retention')).body, {
    carted_upload_days: null,
    uncarted_upload_days: 7,
  });
  const bad = await s.dashboard.put('/v2/retention', { carted_upload_days: 0 });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.details.fields[0].field, 'carted_upload_days');
  const buyer = shopper(server, s.key);
  const carted = await buyer.upload(part(15));
  await buyer.cart(await buyer.quote(carted));
  await prefetchesDone(server, s.accountId);
  await later(server, 400, () => server.retention.sweepNow());
  assert.ok(await fileRow(server, carted), 'kept while the merchant set nothing');

  const set = await s.api.put('/v2/retention', { carted_upload_days: 500 });
  assert.deepEqual(set.body, { carted_upload_days: 500, uncarted_upload_days: 7 });
  await later(server, 499, () => server.retention.sweepNow());
  assert.ok(await fileRow(server, carted));
  await later(server, 501, () => server.retention.sweepNow());
  assert.equal(await fileRow(server, carted), undefined);
});

test('SHOPPER_UPLOAD_RETENTION_DAYS overrides the quote validity', async () => {
  const s = await shop(server, 'retention-days@example.test');
  const id = await shopper(server, s.key).upload(part(16));
  await prefetchesDone(server, s.accountId);
  server.deps.config.shopperUploadRetentionDays = 2;
  try {
    assert.equal((await s.api.get('/v2/retention')).body.uncarted_upload_days, 2);
    await later(server, 1, () => server.retention.sweepNow());
    assert.ok(await fileRow(server, id));
    await later(server, 3, () => server.retention.sweepNow());
    assert.equal(await fileRow(server, id), undefined);
  } finally {
    server.deps.config.shopperUploadRetentionDays = null;
  }
});

test('expired upload ids and sessions are purged; the id of a stored file stays (it names the shopper)', async () => {
  const s = await shop(server, 'retention-ids@example.test');
  const ticket = await server
    .client()
    .request('GET', '/v2/file/upload-id', { headers: { 'x-widget-key': s.key, origin: SHOP } });
  const unused = ticket.body.upload_id as string;
  const stored = await shopper(server, s.key).upload(part(17));
  await prefetchesDone(server, s.accountId);
  const uploadIds = async () =>
    (await sql<{ id: string }>(server, 'SELECT id FROM upload_ids WHERE account_id = $1', [s.accountId])).map(
      (r) => r.id,
    );
  const sessions = async () =>
    (await sql(server, 'SELECT 1 FROM sessions WHERE account_id = $1', [s.accountId])).length;
  assert.equal((await uploadIds()).length, 2);
  assert.equal(await sessions(), 1);
  // A day after expiry the unused id is forgotten: it answered 410 until then, now 404.
  await later(server, 1.5, () => server.retention.sweepNow());
  const left = await uploadIds();
  assert.equal(left.length, 1);
  assert.ok(!left.includes(unused));
  const forgotten = await server.client().uploadBytes(`/v2/file/public/${unused}`, part(17), 'late.obj');
  assert.equal(forgotten.status, 404);
  assert.equal(forgotten.body.error.code, 'upload_id_not_found');
  assert.equal((await sql(server, 'SELECT upload_id FROM files WHERE id = $1', [stored])).length, 1);
  assert.equal(await sessions(), 1, 'a dashboard session is kept while valid');
  await later(server, 60, () => server.retention.sweepNow());
  assert.equal(await sessions(), 0, 'an expired one is purged');
  assert.equal((await uploadIds()).length, 0, 'the upload gone, its id goes too');
});

test('uploads are refused with 507 insufficient_storage below the disk floor, before the body is read and after', async () => {
  const s = await shop(server, 'retention-disk@example.test');
  const floor = server.deps.config.diskFreeFloorBytes;
  try {
    server.deps.config.diskFreeFloorBytes = (await freeBytes(server.dataDir)) + 1024 ** 3;
    // Judged on the server: was the answer sent while the declared 16 MB body was still arriving?
    let answeredMidBody: boolean | undefined;
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      if (req.url === '/v2/file') res.once('finish', () => (answeredMidBody = !req.complete));
    };
    server.server.prependListener('request', onRequest);
    const big = new FormData();
    big.append('file', new Blob([new Uint8Array(16 * 1024 * 1024)]), 'big.stl');
    const refused = await fetch(`${server.url}/v2/file`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.api.token}` },
      body: big,
    }).catch(() => undefined); // the server may close before the client sent it all
    server.server.removeListener('request', onRequest);
    if (refused) {
      assert.equal(refused.status, 507);
      assert.equal((await refused.json()).error.code, 'insufficient_storage');
    }
    assert.equal(answeredMidBody, true, 'refused from the declared length, before the body was read');
    const ticket = await server
      .client()
      .request('GET', '/v2/file/upload-id', { headers: { 'x-widget-key': s.key, origin: SHOP } });
    const pub = await server.client().uploadBytes(`/v2/file/public/${ticket.body.upload_id}`, part(19), 'p.obj');
    assert.equal(pub.status, 507);
    const { limit, needed_bytes, room_bytes } = pub.body.error.details;
    assert.deepEqual(
      { limit, room_bytes },
      { limit: 'disk_floor', room_bytes: 0 },
      'the floor named, no room above it',
    );
    assert.ok(needed_bytes > 0, 'what the upload declared it needs');

    // Below the floor once the body has arrived (no length declared, so nothing to judge before).
    server.deps.config.diskFreeFloorBytes = 1;
    const boundary = 'sqfloor';
    let ctrl!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        ctrl = c;
      },
    });
    const enc = new TextEncoder();
    ctrl.enqueue(
      enc.encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="late.obj"\r\n\r\n`),
    );
    const answer = fetch(`${server.url}/v2/file`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.api.token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: 'half',
    } as RequestInit);
    const tmp = server.deps.storage.tmpDir;
    await until('the body is being read', 30_000, async () =>
      readdirSync(tmp).some((d) => d.startsWith('upload')) ? true : undefined,
    );
    server.deps.config.diskFreeFloorBytes = (await freeBytes(server.dataDir)) + 1024 ** 3;
    ctrl.enqueue(part(19));
    ctrl.enqueue(enc.encode(`\r\n--${boundary}--\r\n`));
    ctrl.close();
    const late = await answer;
    assert.equal(late.status, 507);
    assert.equal((await late.json()).error.code, 'insufficient_storage');
    assert.ok(!readdirSync(tmp).some((d) => d.startsWith('upload')), 'the received body is removed');
    const names = (await s.api.get('/v2/user/uploads')).body.data.map((f: { name: string }) => f.name);
    assert.deepEqual(names, [], 'nothing was stored');

    server.deps.config.diskFreeFloorBytes = Math.max(1, (await freeBytes(server.dataDir)) - 1024 ** 3);
    assert.equal((await s.api.uploadBytes('/v2/file', part(19), 'fits.obj')).status, 201, 'above the floor: accepted');
  } finally {
    server.deps.config.diskFreeFloorBytes = floor;
  }
});

test('dispatched outbox events older than OUTBOX_RETENTION_DAYS are purged, undispatched ones stay; the cart keeps its record', async () => {
  const s = await shop(server, 'retention-outbox@example.test');
  const buyer = shopper(server, s.key);
  const carted = await buyer.upload(part(18));
  await buyer.cart(await buyer.quote(carted));
  await prefetchesDone(server, s.accountId);
  const events = async () =>
    sql<{ event: string; dispatched: boolean }>(
      server,
      'SELECT event, dispatched_at IS NOT NULL AS dispatched FROM outbox_events WHERE account_id = $1 ORDER BY seq',
      [s.accountId],
    );
  await until('events dispatched', 30_000, async () =>
    (await events()).every((e) => e.dispatched) ? true : undefined,
  );
  // The pump stopped (the last test of this server that needs it), an event written now stays undispatched.
  await server.deps.events.stop();
  await writeEvent(server.deps.db, {
    account_id: s.accountId,
    token_id: null,
    event: 'file.uploaded',
    data: {} as never, // the sweep reads only the event's name and age
    at: server.deps.now(),
  });
  await later(server, 29, () => server.retention.sweepNow());
  assert.ok((await events()).length > 3);
  await later(server, 31, () => server.retention.sweepNow());
  assert.deepEqual(await events(), [{ event: 'file.uploaded', dispatched: false }]);
  // The order lives in the cart's own table, not in the outbox: the upload is still known as carted and kept.
  await later(server, 31, () => server.retention.sweepNow());
  assert.ok(await fileRow(server, carted), 'the carted upload is kept');
});

test('with S3 storage, the scheduled sweep takes the expired shopper upload out of the bucket', async () => {
  const s3 = await startTestS3();
  const other = await startTestServer({
    ...s3.env,
    RATE_LIMIT_ANON_PLAN: 'business',
    SLICER_CONCURRENCY: '1',
    RETENTION_SWEEP_INTERVAL_MS: '1000',
  });
  try {
    const s = await shop(other, 'retention-s3@example.test');
    const id = await shopper(other, s.key).upload(part(25));
    await prefetchesDone(other, s.accountId);
    assert.equal((await s3.keys(`sq/files/${id}/`)).length, 2);
    // No call: the sweep on its schedule finds the upload expired once the clock has moved on.
    await later(other, 8, () =>
      until('the scheduled sweep', 60_000, async () => ((await s3.keys(`sq/files/${id}/`)).length ? undefined : true)),
    );
    assert.equal(await fileRow(other, id), undefined);
    assert.equal(existsSync(fileDir(other, id)), false, 'and the local cache');
  } finally {
    await other.stop();
    await s3.stop();
  }
});

test('the settings are validated, naming the variable', () => {
  const env = { DATA_DIR: server.dataDir, JWT_SECRET: 'test-secret-that-is-long-enough-0123456789' };
  assert.throws(() => loadConfig({ ...env, DISK_FREE_FLOOR_MB: 'lots' }), /DISK_FREE_FLOOR_MB must be a whole number/);
  assert.throws(() => loadConfig({ ...env, SHOPPER_UPLOAD_RETENTION_DAYS: '0' }), /SHOPPER_UPLOAD_RETENTION_DAYS/);
  assert.throws(() => loadConfig({ ...env, OUTBOX_RETENTION_DAYS: '0' }), /OUTBOX_RETENTION_DAYS/);
  assert.throws(() => loadConfig({ ...env, RETENTION_SWEEP_INTERVAL_MS: '10' }), /RETENTION_SWEEP_INTERVAL_MS/);
  const defaults = loadConfig(env);
  assert.equal(defaults.diskFreeFloorBytes, 1024 * 1024 * 1024);
  assert.equal(defaults.shopperUploadRetentionDays, null, 'the quote validity');
  assert.equal(loadConfig({ ...env, DISK_FREE_FLOOR_MB: '0' }).diskFreeFloorBytes, 0);
});

// Storage is counted in the bytes a file stores, not the bytes uploaded (docs/limits.md, "Quotas"): a few KB of
// instanced 3MF expand into megabytes of canonical mesh. The attack: a shop's public widget key, shoppers at several
// 127.0.0.x addresses, each uploading such a file. Shown here: the quota, the widget budget and GET /v2/usage count
// the stored bytes; an expansion beyond the budget or the disk is refused before its mesh is written and leaves
// nothing on disk; the budget holds exactly under concurrency; and a key or an account at its share of the disk
// leaves the other merchants (and the same merchant's API) room to upload. The disk is made small as in
// retention.test.ts, the floor raised to just below the free space, on a disk this server alone writes to: the
// free space is read once, then lowered by what the server's data folder grows, so the other test processes
// sharing the machine's disk cannot move the floor under a test.

import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../server/config.ts';
import { freeBytes } from '../../server/storage/disk-floor.ts';
import { canonicalBytesAtLeast, parseModel } from '../../shared/model/index.ts';
import { largestAccepted3mf } from '../helpers/hostile.ts';
import { type ApiClient, merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';
import { storedBytesOf } from '../helpers/stored-bytes.ts';

const SHOP = 'https://stored-bytes.example';
/** A torus of 4,000 triangles placed 40 times: about 33 KB uploaded, megabytes of canonical mesh. */
const MODEL = largestAccepted3mf(50, 40, 40);
/** What it stores: the upload and its canonical mesh. */
const STORED = storedBytesOf(MODEL, '3mf');
/** The least the parse finds it needs before writing: the upload and the mesh's least size. */
const LEAST = MODEL.length + canonicalBytesAtLeast(parseModel(MODEL, '3mf').mesh, null);

let server: TestServer;
before(async () => {
  // Nothing is pre-sliced: these tests are about storage, and a slice of each upload would only load the machine.
  server = await startTestServer({ PREFETCH_MAX_SECONDS: '0' });
});
after(() => server.stop());

/** A shopper of the shop at its own client address, uploading through a fresh upload id. */
async function shopperUpload(key: string, address: string, bytes: Uint8Array = MODEL) {
  const client = server.client();
  client.localAddress = address;
  const ticket = await client.request('GET', '/v2/file/upload-id', { headers: { 'x-widget-key': key, origin: SHOP } });
  assert.equal(ticket.status, 200, JSON.stringify(ticket.body));
  return client.uploadBytes(`/v2/file/public/${ticket.body.upload_id}`, bytes, 'parts.3mf');
}

async function setStorageBudget(api: ApiClient, bytes: number) {
  const { source: _, ...offer } = (await api.get('/v2/offer')).body;
  const saved = await api.put('/v2/offer', { ...offer, widget_budget: { upload_storage_bytes: bytes } });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
}

/** Bytes a stored file's folder holds on disk (DATA_DIR/files/<shard>/<file_id>). */
function onDisk(fileId: string): number {
  const dir = path.join(server.dataDir, 'files', fileId.slice(5, 7), fileId);
  return readdirSync(dir).reduce((n, name) => n + statSync(path.join(dir, name)).size, 0);
}

/** Every file folder in the store, and the files this process is staging or receiving in its tmp folder. */
function leftovers() {
  const root = path.join(server.dataDir, 'files');
  const folders = readdirSync(root).flatMap((shard) => readdirSync(path.join(root, shard)));
  const tmp = readdirSync(server.deps.storage.tmpDir).filter((d) => d.startsWith('stage') || d.startsWith('upload'));
  return { folders: folders.sort(), tmp };
}

const widgetUsage = async (api: ApiClient) => (await api.get('/v2/usage')).body.widget_budgets[0].upload_storage;

/** Bytes of the files under `dir` now; a file removed while it is read counts as gone. */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    try {
      total += statSync(path.join(entry.parentPath, entry.name)).size;
    } catch {}
  }
  return total;
}

/**
 * Runs `body` with the disk made small: `headroom` bytes free above the floor, and the given shares. The disk is
 * this server's alone: what was free at the start, less what its data folder has grown since.
 */
async function withSmallDisk(
  setting: { headroom: number; accountShare?: number; widgetShare?: number },
  body: () => Promise<void>,
) {
  const { config, disk } = server.deps;
  const saved = { ...config };
  const realFree = disk.freeBytes;
  const free = await freeBytes(server.dataDir);
  const held = bytesUnder(server.dataDir);
  try {
    disk.freeBytes = async () => free - (bytesUnder(server.dataDir) - held);
    config.diskFreeFloorBytes = free - setting.headroom;
    config.diskAccountSharePercent = setting.accountShare ?? saved.diskAccountSharePercent;
    config.diskWidgetSharePercent = setting.widgetShare ?? saved.diskWidgetSharePercent;
    await body();
  } finally {
    disk.freeBytes = realFree;
    config.diskFreeFloorBytes = saved.diskFreeFloorBytes;
    config.diskAccountSharePercent = saved.diskAccountSharePercent;
    config.diskWidgetSharePercent = saved.diskWidgetSharePercent;
  }
}

test("a shopper's instanced 3MF counts what it stores, not what it uploaded: quota, widget budget and usage", async () => {
  assert.ok(STORED > 100 * MODEL.length, `the model expands: ${MODEL.length} bytes store ${STORED}`);
  const shop = await merchantShop(server, 'stored-count@example.test', SHOP);
  const up = await shopperUpload(shop.key, '127.0.0.2');
  assert.equal(up.status, 201, JSON.stringify(up.body));
  assert.equal(up.body.size_bytes, MODEL.length, 'the file is still described by its upload');
  assert.equal(onDisk(up.body.file_id), STORED, 'what the disk holds for it');
  assert.equal((await shop.api.get('/v2/quota')).body.storage.used, STORED);
  assert.equal((await widgetUsage(shop.api)).used_bytes, STORED);

  assert.equal((await shop.api.delete(`/v2/file/${up.body.file_id}`)).status, 200);
  assert.equal((await shop.api.get('/v2/quota')).body.storage.used, 0, 'deleting frees all of it at once');
  assert.equal((await widgetUsage(shop.api)).used_bytes, 0);
});

test("an expansion beyond the key's budget is refused before its mesh is written, and leaves nothing on disk", async () => {
  const shop = await merchantShop(server, 'stored-refuse@example.test', SHOP);
  const before = leftovers();
  // Room for the first upload and half of a second's least size: the parse refuses before writing a byte of mesh.
  const limit = STORED + Math.floor(LEAST / 2);
  await setStorageBudget(shop.api, limit);
  const first = await shopperUpload(shop.key, '127.0.0.3');
  assert.equal(first.status, 201, JSON.stringify(first.body));
  const refused = await shopperUpload(shop.key, '127.0.0.4');
  assert.equal(refused.status, 402, JSON.stringify(refused.body));
  assert.equal(refused.body.error.code, 'widget_storage_exhausted');
  assert.deepEqual(refused.body.error.details, { used_bytes: STORED, limit_bytes: limit, needed_bytes: LEAST });
  assert.match(refused.body.error.message, new RegExp(`needs ${LEAST} bytes of storage.*${limit} bytes`));

  // Room between its least size and its real size: the mesh stops where the room ends and is removed.
  const between = STORED + Math.floor((LEAST + STORED) / 2);
  await setStorageBudget(shop.api, between);
  const cut = await shopperUpload(shop.key, '127.0.0.4');
  assert.equal(cut.status, 402, JSON.stringify(cut.body));
  assert.equal(cut.body.error.code, 'widget_storage_exhausted');
  assert.ok(cut.body.error.details.needed_bytes > between - STORED, 'it needs more than the room left');

  const after = leftovers();
  assert.deepEqual(after.folders, [...before.folders, first.body.file_id].sort(), 'only the stored file is kept');
  assert.deepEqual(after.tmp, [], 'nothing staged is left');
  assert.equal((await shop.api.get('/v2/user/uploads')).body.total, 1);
  assert.equal((await widgetUsage(shop.api)).used_bytes, STORED);
});

test("shoppers at four addresses at once: the key's budget holds exactly; the merchant and another shop still upload", async () => {
  const shop = await merchantShop(server, 'stored-race@example.test', SHOP);
  const other = await merchantShop(server, 'stored-other@example.test', SHOP);
  const limit = 2 * STORED + Math.floor(STORED / 2);
  await setStorageBudget(shop.api, limit);
  const results = await Promise.all([5, 6, 7, 8].map((n) => shopperUpload(shop.key, `127.0.0.${n}`)));
  const statuses = results.map((r) => r.status).sort();
  assert.deepEqual(statuses, [201, 201, 402, 402], JSON.stringify(results.map((r) => r.body.error ?? r.status)));
  for (const r of results.filter((x) => x.status === 402)) assert.equal(r.body.error.code, 'widget_storage_exhausted');
  assert.deepEqual(await widgetUsage(shop.api), { used_bytes: 2 * STORED, limit_bytes: limit });

  assert.equal((await shop.api.uploadBytes('/v2/file', MODEL, 'own.3mf')).status, 201, "the merchant's own upload");
  assert.equal((await shopperUpload(other.key, '127.0.0.9')).status, 201, "another shop's shopper");
  assert.equal((await other.api.uploadBytes('/v2/file', MODEL, 'theirs.3mf')).status, 201, 'another merchant');
});

test('the disk floor is checked against what the parse will write, before it writes', async () => {
  const shop = await merchantShop(server, 'stored-floor@example.test', SHOP);
  const before = leftovers();
  // Shares of all of it, so the floor is the limit that binds.
  await withSmallDisk({ headroom: Math.floor(LEAST / 2), accountShare: 100, widgetShare: 100 }, async () => {
    const refused = await shopperUpload(shop.key, '127.0.0.10');
    assert.equal(refused.status, 507, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'insufficient_storage');
    assert.equal(refused.body.error.details.limit, 'disk_floor');
    assert.equal(refused.body.error.details.needed_bytes, LEAST, "refused from the mesh's least size");
  });
  assert.deepEqual(leftovers(), before, 'nothing written, nothing left');
});

test('a widget key, then an account, at its share of the disk leaves the other merchants room to upload', async () => {
  const shop = await merchantShop(server, 'stored-share@example.test', SHOP);
  const other = await merchantShop(server, 'stored-share-other@example.test', SHOP);
  // 25 files' worth above the floor: the key's shoppers may hold 10 % (2.5 files), the account 20 % (5 files).
  await withSmallDisk({ headroom: 25 * STORED, widgetShare: 10, accountShare: 20 }, async () => {
    const refusal = async (upload: (attempt: number) => Promise<{ status: number; body: any }>) => {
      for (let attempt = 0; attempt < 8; attempt++) {
        const r = await upload(attempt);
        if (r.status !== 201) return { stored: attempt, answer: r };
      }
      assert.fail('never refused');
    };
    const shoppers = await refusal((n) => shopperUpload(shop.key, `127.0.0.${20 + n}`));
    assert.equal(shoppers.answer.status, 507, JSON.stringify(shoppers.answer.body));
    assert.equal(shoppers.answer.body.error.code, 'insufficient_storage');
    assert.equal(shoppers.answer.body.error.details.limit, 'widget_disk_share');
    assert.equal(shoppers.answer.body.error.details.share_percent, 10);
    assert.ok(shoppers.stored >= 1 && shoppers.stored <= 3, `the key's shoppers stored ${shoppers.stored} files`);

    const merchant = await refusal(() => shop.api.uploadBytes('/v2/file', MODEL, 'own.3mf'));
    assert.equal(merchant.answer.status, 507, JSON.stringify(merchant.answer.body));
    assert.equal(merchant.answer.body.error.details.limit, 'account_disk_share');
    assert.ok(merchant.stored >= 1, 'the merchant still uploaded after its shoppers were stopped');
    const held = (await shop.api.get('/v2/quota')).body.storage.used;
    assert.ok(held <= 6 * STORED, `the account holds ${held / STORED} files' worth`);

    assert.equal((await other.api.uploadBytes('/v2/file', MODEL, 'theirs.3mf')).status, 201, 'another merchant');
    assert.equal((await shopperUpload(other.key, '127.0.0.30')).status, 201, "another shop's shopper");
    assert.ok((await server.deps.disk.freeBytes()) >= server.deps.config.diskFreeFloorBytes, 'the floor was kept');
  });
});

test('the disk shares are validated, naming the variable, and default to 50 % and 10 %', () => {
  const env = { DATA_DIR: server.dataDir, JWT_SECRET: 'test-secret-that-is-long-enough-0123456789' };
  assert.throws(() => loadConfig({ ...env, DISK_ACCOUNT_SHARE_PERCENT: '0' }), /DISK_ACCOUNT_SHARE_PERCENT/);
  assert.throws(() => loadConfig({ ...env, DISK_WIDGET_SHARE_PERCENT: '101' }), /DISK_WIDGET_SHARE_PERCENT/);
  const defaults = loadConfig(env);
  assert.equal(defaults.diskAccountSharePercent, 50);
  assert.equal(defaults.diskWidgetSharePercent, 10);
  assert.equal(loadConfig({ ...env, DISK_ACCOUNT_SHARE_PERCENT: '100' }).diskAccountSharePercent, 100);
});

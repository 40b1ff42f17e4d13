// Quotas and usage.alert: monthly quotes (402 refusal naming the reset date, no Retry-After, reset at the next UTC month through the
// injected clock), storage (refusal, freed at once by deletes), and each 80 / 100 / 0 crossing fired
// exactly once, also under concurrency (read back from outbox_events).

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { accountById } from '../../server/accounts/sql.ts';
import { insertFile } from '../../server/files/sql.ts';
import type { ApiError } from '../../server/http/errors.ts';
import { newId } from '../../server/ids.ts';
import { alertLevel, alertsOwed } from '../../server/limits/alerts.ts';
import { checkQuoteQuota, countQuote, recordStorageChange, settleNewPeriodForAll } from '../../server/limits/quota.ts';
import { eventsForAccount } from '../../server/outbox/sql.ts';
import { binaryStl } from '../helpers/binary-stl.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { storedBytesOf } from '../helpers/stored-bytes.ts';

// What an upload of k tetrahedra stores: the STL (84 + 200 k bytes) and its canonical mesh.
const stored = (k: number) => storedBytesOf(tetrahedra(k), 'stl');
// Storage allowances chosen so the uploads below land exactly on the bands.
const STORAGE = stored(10) + stored(5) + stored(2) + stored(1);
const CONCURRENT_STORAGE = 10 * stored(2);

const plansDir = mkdtempSync(path.join(tmpdir(), 'sq-plans-'));
after(() => rmSync(plansDir, { recursive: true, force: true }));

function plansFile(): string {
  const bundled = JSON.parse(readFileSync(new URL('../../server/plans.json', import.meta.url), 'utf8'));
  const rate_limits = bundled.pro.rate_limits;
  const plans = {
    ...bundled,
    tiny: { label: 'Tiny', monthly_quotes: 10, storage_bytes: STORAGE, rate_limits },
    tiny2: { label: 'Tiny 2', monthly_quotes: 10, storage_bytes: CONCURRENT_STORAGE, rate_limits },
  };
  const file = path.join(plansDir, 'plans.json');
  writeFileSync(file, JSON.stringify(plans));
  return file;
}

/** A binary STL of k separate closed tetrahedra: 84 + 200 k bytes, accepted by the parser. */
function tetrahedra(k: number): Uint8Array {
  const triangles: number[][] = [];
  for (let i = 0; i < k; i++) {
    const x = i * 10;
    const p = [
      [x, 0, 0],
      [x + 5, 0, 0],
      [x, 5, 0],
      [x, 0, 5],
    ] as const;
    for (const [a, b, c] of [
      [0, 2, 1],
      [0, 1, 3],
      [0, 3, 2],
      [1, 2, 3],
    ] as const)
      triangles.push([p[a], p[b], p[c]].flat());
  }
  return binaryStl(triangles, '');
}

let server: TestServer;
before(async () => {
  server = await startTestServer({ PLANS_FILE: plansFile() });
});
after(() => server.stop());
afterEach(() => {
  server.deps.now = () => new Date();
});

async function alerts(accountId: string) {
  const rows = await eventsForAccount(server.deps.db, accountId, 'usage.alert');
  return rows.map((r) => (r.payload as { data: Record<string, unknown> }).data);
}

const countOne = (accountId: string, tokenId: string | null = null) =>
  server.deps.db.transaction((tx) => countQuote(tx, server.deps, accountId, tokenId));

test('alert bands and transitions', () => {
  assert.deepEqual(
    [
      alertLevel(0, 10),
      alertLevel(7, 10),
      alertLevel(8, 10),
      alertLevel(9, 10),
      alertLevel(10, 10),
      alertLevel(11, 10),
    ],
    [0, 0, 80, 80, 100, 100],
  );
  assert.equal(alertLevel(3148, 3936), 0); // 79.98 %
  assert.equal(alertLevel(3149, 3936), 80);
  assert.deepEqual(alertsOwed({ level: 0, period: null }, 100, null), [100], 'a jump fires the band reached only');
  assert.deepEqual(alertsOwed({ level: 100, period: null }, 80, null), [], 'falling into the 80 band is silent');
  assert.deepEqual(alertsOwed({ level: 80, period: null }, 100, null), [100]);
  assert.deepEqual(alertsOwed({ level: 80, period: null }, 0, null), [0]);
  assert.deepEqual(alertsOwed({ level: 100, period: '2031-03' }, 0, '2031-04'), [0], 'a new month owes one 0');
  assert.deepEqual(alertsOwed({ level: 100, period: '2031-03' }, 80, '2031-04'), [0, 80]);
  assert.deepEqual(alertsOwed({ level: 80, period: '2031-04' }, 80, '2031-04'), []);
});

test('monthly quotes: 80 and 100 alerts once each, 402 refusal naming the reset date, reset and level 0 at the next UTC month', async () => {
  server.deps.now = () => new Date('2031-03-15T12:00:00.000Z');
  const { accountId, token, tokenId } = await server.newAccount({ plan: 'tiny' });
  const c = server.client(token);
  const account = (await accountById(server.deps.db, accountId))!;
  for (let i = 1; i <= 10; i++) {
    await checkQuoteQuota(server.deps, account);
    await countOne(accountId, tokenId);
    const fired = (await alerts(accountId)).map((a) => a.level);
    assert.deepEqual(fired, i < 8 ? [] : i < 10 ? [80] : [80, 100], `after quote ${i}`);
  }
  const [a80, a100] = await alerts(accountId);
  assert.deepEqual(a80, { resource: 'quotes', level: 80, used: 8, limit: 10, period: '2031-03' });
  assert.deepEqual(a100, { resource: 'quotes', level: 100, used: 10, limit: 10, period: '2031-03' });
  const rows = await eventsForAccount(server.deps.db, accountId, 'usage.alert');
  assert.ok(
    rows.every((r) => r.token_id === tokenId),
    'the alert names the token whose quote crossed',
  );

  // The 11th is refused, directly and through the quote route, until the month ends.
  await assert.rejects(checkQuoteQuota(server.deps, account), (err: ApiError) => {
    assert.equal(err.status, 402, 'an allowance is no rate limit: not 429');
    assert.equal(err.code, 'quote_allowance_exhausted');
    assert.equal(err.headers?.['Retry-After'], undefined);
    return true;
  });
  const file = await c.uploadBytes('/v2/file', tetrahedra(1), 'part.stl');
  assert.equal(file.status, 201);
  const refused = await c.post(`/v2/file/quote/${file.body.file_id}`, { material_config: { filament_type: 'PLA' } });
  assert.equal(refused.status, 402);
  assert.equal(refused.body.error.code, 'quote_allowance_exhausted');
  assert.deepEqual(refused.body.error.details, {
    used: 10,
    limit: 10,
    period: '2031-03',
    resets_at: '2031-04-01T00:00:00.000Z',
  });
  assert.match(refused.body.error.message, /resets at 2031-04-01T00:00:00\.000Z/);
  assert.equal(refused.headers.get('retry-after'), null, 'no Retry-After: retrying before the reset cannot succeed');
  assert.ok(refused.headers.get('x-ratelimit-remaining'), 'a quota refusal carries the rate-limit headers too');

  const quota = await c.get('/v2/quota');
  assert.equal(quota.status, 200);
  assert.deepEqual(quota.body.quotes, { used: 10, limit: 10, remaining: 0, percent: 100, alert_level: 100 });
  assert.equal(quota.body.period, '2031-03');
  assert.equal(quota.body.resets_at, '2031-04-01T00:00:00.000Z');
  assert.equal(quota.body.resets_in_seconds, 16.5 * 86_400);
  const user = await c.get('/v2/user');
  assert.deepEqual([user.body.quotes_used, user.body.quotes_limit], [10, 10]);

  // A new month: the allowance is back, and the level-0 alert fires once.
  server.deps.now = () => new Date('2031-04-01T00:00:05.000Z');
  await checkQuoteQuota(server.deps, account);
  const after = await c.get('/v2/quota');
  assert.deepEqual(after.body.quotes, { used: 0, limit: 10, remaining: 10, percent: 0, alert_level: 0 });
  assert.equal(after.body.resets_at, '2031-05-01T00:00:00.000Z');
  assert.equal((await c.get('/v2/user')).body.quotes_used, 0);
  await settleNewPeriodForAll(server.deps);
  const levels = await alerts(accountId);
  assert.deepEqual(
    levels.map((a) => a.level),
    [80, 100, 0],
  );
  assert.deepEqual(levels[2], { resource: 'quotes', level: 0, used: 0, limit: 10, period: '2031-04' });
  // ...and the new month's crossings fire again.
  for (let i = 0; i < 8; i++) await countOne(accountId);
  assert.deepEqual(
    (await alerts(accountId)).map((a) => [a.level, a.period]),
    [
      [80, '2031-03'],
      [100, '2031-03'],
      [0, '2031-04'],
      [80, '2031-04'],
    ],
  );
});

test('an account idle at the new month gets its level-0 alert from the periodic sweep, once', async () => {
  server.deps.now = () => new Date('2031-06-30T23:59:00.000Z');
  const { accountId } = await server.newAccount({ plan: 'tiny' });
  for (let i = 0; i < 9; i++) await countOne(accountId);
  assert.deepEqual(
    (await alerts(accountId)).map((a) => a.level),
    [80],
  );
  server.deps.now = () => new Date('2031-07-01T00:01:00.000Z');
  await Promise.all([settleNewPeriodForAll(server.deps), settleNewPeriodForAll(server.deps)]);
  await settleNewPeriodForAll(server.deps);
  assert.deepEqual(
    (await alerts(accountId)).map((a) => [a.level, a.used, a.period]),
    [
      [80, 8, '2031-06'],
      [0, 0, '2031-07'],
    ],
  );
});

test('concurrent quote counts fire 80 and 100 exactly once', async () => {
  server.deps.now = () => new Date('2031-08-10T00:00:00.000Z');
  const { accountId } = await server.newAccount({ plan: 'tiny' });
  await Promise.all(Array.from({ length: 12 }, () => countOne(accountId)));
  assert.deepEqual(
    (await alerts(accountId)).map((a) => [a.level, a.used]),
    [
      [80, 8],
      [100, 10],
    ],
  );
});

test('storage: refusal beyond the allowance, deletes free it at once, alerts at 80 / 100 / 0 once per crossing', async () => {
  const { accountId, token } = await server.newAccount({ plan: 'tiny' });
  const c = server.client(token);
  const upload = async (k: number) => {
    const res = await c.uploadBytes('/v2/file', tetrahedra(k), `part-${k}.stl`);
    return res;
  };
  const levels = async () => (await alerts(accountId)).map((a) => [a.level, a.used]);
  // Stored bytes, each upload's STL and canonical mesh, against the allowance.
  const at80 = stored(10) + stored(5);
  const below80 = STORAGE - stored(10);
  const a = await upload(10); // 53.7 %
  assert.equal(a.status, 201);
  assert.deepEqual(await levels(), []);
  assert.equal((await upload(5)).status, 201); // 81.3 %
  assert.deepEqual(await levels(), [[80, at80]]);
  assert.equal((await upload(2)).status, 201); // 93.2 %, level holds
  assert.deepEqual(await levels(), [[80, at80]]);
  const d = await upload(1); // exactly 100 %, allowed
  assert.equal(d.status, 201);
  assert.deepEqual(await levels(), [
    [80, at80],
    [100, STORAGE],
  ]);

  // With no room left, not even the original fits: refused before the parse, needing at least the original's bytes.
  const refused = await upload(1);
  assert.equal(refused.status, 402);
  assert.equal(refused.body.error.code, 'storage_quota_exceeded');
  assert.deepEqual(refused.body.error.details, {
    used_bytes: STORAGE,
    limit_bytes: STORAGE,
    needed_bytes: 284,
    free_at_least_bytes: 284,
  });
  assert.equal(refused.headers.get('retry-after'), null);
  assert.equal((await c.get('/v2/user/uploads')).body.total, 4, 'the refused upload was not stored');
  const full = await c.get('/v2/quota');
  assert.deepEqual(full.body.storage, { used: STORAGE, limit: STORAGE, remaining: 0, percent: 100, alert_level: 100 });

  // Public uploads count against the same allowance; a refused one leaves its upload id usable.
  const up = await c.get('/v2/file/upload-id');
  const form = () => {
    const f = new FormData();
    f.append('file', new Blob([tetrahedra(1) as Uint8Array<ArrayBuffer>]), 'public.stl');
    return f;
  };
  const publicRefused = await server.client().request('POST', `/v2/file/public/${up.body.upload_id}`, { form: form() });
  assert.equal(publicRefused.status, 402);
  assert.equal(publicRefused.body.error.code, 'storage_quota_exceeded');

  // Deleting frees storage at once and falls below 80 %: level 0.
  assert.equal((await c.delete(`/v2/file/${a.body.file_id}`)).status, 200);
  assert.equal((await c.get('/v2/quota')).body.storage.used, below80);
  assert.deepEqual(await levels(), [
    [80, at80],
    [100, STORAGE],
    [0, below80],
  ]);
  const publicOk = await server.client().request('POST', `/v2/file/public/${up.body.upload_id}`, { form: form() });
  assert.equal(publicOk.status, 201);
  assert.deepEqual(
    await levels(),
    [
      [80, at80],
      [100, STORAGE],
      [0, below80],
    ],
    '53 %: no alert',
  );
  assert.equal((await c.delete(`/v2/file/${publicOk.body.file_id}`)).status, 200);
  assert.deepEqual(
    await levels(),
    [
      [80, at80],
      [100, STORAGE],
      [0, below80],
    ],
    'still below 80 %: no repeated 0',
  );

  // Back to 100 % in one step: only 100 fires. Down into the 80 band: silent. Up again: a new crossing.
  const again = await upload(10);
  assert.equal(again.status, 201);
  assert.equal((await c.delete(`/v2/file/${d.body.file_id}`)).status, 200);
  assert.equal((await upload(1)).status, 201);
  const all = await alerts(accountId);
  assert.deepEqual(
    all.map((x) => [x.level, x.used]),
    [
      [80, at80],
      [100, STORAGE],
      [0, below80],
      [100, STORAGE],
      [100, STORAGE],
    ],
  );
  assert.ok(all.every((x) => x.resource === 'storage' && x.limit === STORAGE && x.period === null));
});

test('concurrent uploads: the allowance is exact and each crossing fires once', async () => {
  const { accountId, token } = await server.newAccount({ plan: 'tiny2' });
  const c = server.client(token);
  // One token per upload: a token has one file parsed at a time (docs/limits.md, "Fair parsing"), and these
  // uploads are to reach the storage check together.
  const tokens = await Promise.all(Array.from({ length: 11 }, (_, i) => server.newToken(accountId, `c${i}`)));
  const results = await Promise.all(
    tokens.map(({ token: t }, i) => server.client(t).uploadBytes('/v2/file', tetrahedra(2), `c${i}.stl`)),
  );
  const statuses = results.map((r) => r.status).sort();
  assert.deepEqual(statuses, [...Array(10).fill(201), 402], 'ten fit, the eleventh is refused');
  assert.deepEqual(
    (await alerts(accountId)).map((a) => [a.level, a.used]),
    [
      [80, 8 * stored(2)],
      [100, CONCURRENT_STORAGE],
    ],
  );
  assert.equal((await c.get('/v2/quota')).body.storage.used, CONCURRENT_STORAGE);
});

test('racing storage transactions (no parser in between) still admit exactly the allowance', async () => {
  const { accountId } = await server.newAccount({ plan: 'tiny2' });
  const store = () =>
    server.deps.db.transaction(async (tx) => {
      const file = await insertFile(tx, {
        id: newId('file'),
        account_id: accountId,
        name: 'race.stl',
        format: 'stl',
        content_type: 'model/stl',
        size_bytes: 484,
        stored_bytes: stored(2),
        sha256: '0'.repeat(64),
        mesh_sha256: '0'.repeat(64),
        measurements: {} as never,
        footprint: [],
        warnings: [],
        source: 'api',
        token_id: null,
        upload_id: null,
      });
      await tx.query('SELECT pg_sleep(0.02)'); // widen the window in which the transactions overlap
      await recordStorageChange(tx, server.deps, { accountId, tokenId: null, enforce: true, addedBytes: stored(2) });
      return file;
    });
  const results = await Promise.allSettled(Array.from({ length: 14 }, store));
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 10);
  for (const r of results)
    if (r.status === 'rejected') assert.equal((r.reason as ApiError).code, 'storage_quota_exceeded');
  assert.deepEqual(
    (await alerts(accountId)).map((a) => [a.level, a.used]),
    [
      [80, 8 * stored(2)],
      [100, CONCURRENT_STORAGE],
    ],
  );
});

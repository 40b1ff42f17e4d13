// Fair shares of the slicer (docs/limits.md, "Slicer time"): claims go to the account, then the caller, that used
// the slicer least recently; a worker's last free slot never goes to a long slice of an account that holds another
// of its slots; queues are bounded per account and per shopper, never across accounts; a shopper's part above the
// shop's slicer budget is refused before any slice, with the limit and the part's figure; a worker never claims
// again a job it is slicing itself whose lease lapsed. Nothing here slices: the server only queues
// (WORKER_ROLE=api), and claims are made by hand in transactions that are rolled back.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Queryable } from '../../server/db/index.ts';
import { fileByIdAnyAccount } from '../../server/files/sql.ts';
import { claimJob, type SlotRule } from '../../server/quotes/claim-sql.ts';
import { prefetchUpload } from '../../server/quotes/prefetch.ts';
import { boxesObj, CUBE_OBJ } from '../helpers/meshes.ts';
import { until } from '../helpers/poll.ts';
import { type ApiClient, merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';
import { widgetShopper } from '../helpers/shopper.ts';
import { tetraCloudObj } from '../helpers/solids.ts';

const SHOP = 'https://fair-shop.example';
const OTHER_SHOP = 'https://other-shop.example';
const HEAVY = new TextEncoder().encode(tetraCloudObj(8_000, 80, 1.5, 11));
const CUBE = new TextEncoder().encode(CUBE_OBJ);
/** A cube of its own size: slices are shared by content, so a test that counts prefetches needs a mesh of its own. */
const cubeOf = (mm: number) => new TextEncoder().encode(boxesObj([[0, 0, 0, mm, mm, mm]]));

let server: TestServer;

before(async () => {
  server = await startTestServer({
    WORKER_ROLE: 'api',
    QUOTE_SYNC_WAIT_MS: '0',
    SLICER_QUEUE_PER_ACCOUNT: '4',
    SLICER_QUEUE_PER_SHOPPER: '2',
    PREFETCH_MAX_SECONDS: '5',
    RATE_LIMIT_ANON_PLAN: 'business',
  });
});
after(() => server.stop());

/** A shop's shopper calling from one loopback address. */
const shopper = (key: string, origin: string, address = '127.0.0.1') => widgetShopper(server, key, origin, address);

async function upload(api: ApiClient, bytes: Uint8Array, name: string): Promise<string> {
  const up = await api.uploadBytes('/v2/file', bytes, name);
  assert.equal(up.status, 201, JSON.stringify(up.body));
  return up.body.file_id;
}

const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  server.deps.db.query<T>(text, params);

/** Claims made in a transaction that is rolled back: the order in which a worker would take the jobs. */
async function claimOrder(rule: SlotRule, setup: (tx: Queryable) => Promise<void>, n: number): Promise<string[]> {
  return server.deps.db
    .transaction(async (tx) => {
      await setup(tx);
      const claimed: string[] = [];
      for (let i = 0; i < n; i++) {
        const job = await claimJob(tx, 'w_test', 60_000, rule);
        if (job) claimed.push(job.id);
      }
      throw Object.assign(new Error('rollback'), { claimed });
    })
    .catch((err: { claimed?: string[] }) => {
      if (!err.claimed) throw err;
      return err.claimed;
    });
}

/** Queued jobs made by hand: id, account, caller, predicted seconds, age in seconds. */
async function queue(tx: Queryable, jobs: [string, string, string, number, number][]) {
  for (const [id, account, caller, predicted, age] of jobs) {
    await tx.query(
      `INSERT INTO quotes (id, account_id, file_id, file_name, mode, status, request, slicing_key, priority, caller,
         predicted_s, created_at)
       VALUES ($1, $2, 'file_fair', 'x.stl', 'async', 'queued', '{}', $1, 1, $3, $4, now() - make_interval(secs => $5))`,
      [id, account, caller, predicted, age],
    );
  }
}

const NO_RULE: SlotRule = { lastSlot: false, heldAccounts: [] };

test('the account that used the slicer least goes first, then its least-served caller, not the oldest job', async () => {
  const a = await server.newAccount({ email: 'fair-a@example.test' });
  const b = await server.newAccount({ email: 'fair-b@example.test' });
  await sql('DELETE FROM quotes WHERE status = $1', ['queued']);
  const order = await claimOrder(
    NO_RULE,
    async (tx) => {
      // A has sliced for 200 s in the last minutes, B for 10 s; within A, ip:x for 190 s and ip:y for 10 s.
      await tx.query(
        `INSERT INTO slicer_usage (account_id, caller, kind, outcome, seconds) VALUES
           ($1, 'ip:x', 'quote', 'timeout', 190), ($1, 'ip:y', 'quote', 'ok', 10), ($2, 'tok:b', 'quote', 'ok', 10)`,
        [a.accountId, b.accountId],
      );
      await queue(tx, [
        ['job_a_x_oldest', a.accountId, 'ip:x', 5, 300],
        ['job_a_y', a.accountId, 'ip:y', 5, 200],
        ['job_b_newest', b.accountId, 'tok:b', 5, 1],
      ]);
    },
    3,
  );
  // B first although newest; then within A, ip:y (10 s) before ip:x (190 s) although younger. Each claim also
  // counts as use (its predicted seconds), so the order is by share, not by a fixed rank.
  assert.deepEqual(order, ['job_b_newest', 'job_a_y', 'job_a_x_oldest']);
});

test('an account with slices running yields the next slot to one with none, whatever their recent use', async () => {
  const a = await server.newAccount({ email: 'busy-a@example.test' });
  const b = await server.newAccount({ email: 'busy-b@example.test' });
  await sql('DELETE FROM quotes WHERE status = $1', ['queued']);
  const order = await claimOrder(
    NO_RULE,
    async (tx) => {
      // B (an honest shop) sliced a lot in the last minutes; A (a new flood) little, but it holds a slot now.
      await tx.query(
        `INSERT INTO slicer_usage (account_id, caller, kind, outcome, seconds) VALUES ($1, 'ip:a', 'quote', 'ok', 1),
           ($2, 'tok:b', 'quote', 'ok', 300)`,
        [a.accountId, b.accountId],
      );
      await tx.query(
        `INSERT INTO quotes (id, account_id, file_id, file_name, mode, status, request, slicing_key, priority, caller,
           predicted_s, lease_owner, lease_expires_at)
         VALUES ('job_a_running', $1, 'file_fair', 'x.stl', 'async', 'processing', '{}', 'k_running', 1, 'ip:a', 0.5,
           'w_other', now() + interval '1 minute')`,
        [a.accountId],
      );
      await queue(tx, [
        ['job_a_next', a.accountId, 'ip:a', 0.5, 100],
        ['job_b', b.accountId, 'tok:b', 0.5, 1],
      ]);
    },
    1,
  );
  assert.deepEqual(order, ['job_b']);
});

test("a worker's last free slot never goes to an account that holds its other slot", async () => {
  const a = await server.newAccount({ email: 'slot-a@example.test' });
  const b = await server.newAccount({ email: 'slot-b@example.test' });
  await sql('DELETE FROM quotes WHERE status = $1', ['queued']);
  const jobs = async (tx: Queryable) =>
    queue(tx, [
      ['job_a_long', a.accountId, 'ip:x', 120, 100],
      ['job_a_short', a.accountId, 'ip:x', 3, 50],
      ['job_b_long', b.accountId, 'tok:b', 120, 1],
    ]);
  const last = { lastSlot: true, heldAccounts: [a.accountId] };
  // A holds the other slot: its slices wait, long or short; B's may go.
  assert.deepEqual(await claimOrder(last, jobs, 3), ['job_b_long']);
  // Not the last slot: A's long slice may go (after B's, which has used less).
  assert.deepEqual((await claimOrder(NO_RULE, jobs, 3)).sort(), ['job_a_long', 'job_a_short', 'job_b_long']);
});

test('a job whose lease lapsed while its worker still slices it is not claimed again by that worker; another may take it over', async () => {
  const a = await server.newAccount({ email: 'lapsed-a@example.test' });
  await sql('DELETE FROM quotes WHERE status = $1', ['queued']);
  const claims = await server.deps.db
    .transaction(async (tx) => {
      // w_test's heartbeat came late on a loaded host: its lease ran out a second ago, its slice runs on.
      await tx.query(
        `INSERT INTO quotes (id, account_id, file_id, file_name, mode, status, request, slicing_key, priority, caller,
           predicted_s, attempts, lease_owner, lease_expires_at)
         VALUES ('job_lapsed', $1, 'file_fair', 'x.stl', 'async', 'processing', '{}', 'k_lapsed', 1, 'ip:a', 0.5, 1,
           'w_test', now() - interval '1 second')`,
        [a.accountId],
      );
      const itself = await claimJob(tx, 'w_test', 60_000, NO_RULE, ['job_lapsed']);
      const other = await claimJob(tx, 'w_other', 60_000, NO_RULE, []);
      throw Object.assign(new Error('rollback'), { claims: { itself, other } });
    })
    .catch((err: { claims?: Record<string, Awaited<ReturnType<typeof claimJob>>> }) => {
      if (!err.claims) throw err;
      return err.claims;
    });
  // Its own slice is the job's one attempt: a second slice by the same worker would count one never lost.
  assert.equal(claims.itself, undefined);
  // Another worker takes it over, as from a dead one: its first slice counts as an attempt (the first worker's
  // heartbeat finds the lease gone and stops it).
  assert.equal(claims.other?.id, 'job_lapsed');
  assert.equal(claims.other?.attempts, 2);
  assert.equal(claims.other?.lease_owner, 'w_other');
});

test("one account's full queue answers 503 to that account only; one shopper's full queue 429 to that shopper only", async () => {
  const flooded = await merchantShop(server, 'flooded@example.test', SHOP);
  const other = await merchantShop(server, 'other@example.test', OTHER_SHOP);
  const attacker = shopper(flooded.key, SHOP, '127.0.0.2');
  const files = [await attacker.upload(CUBE, 'a.obj'), await attacker.upload(CUBE, 'b.obj')];
  const quotes = [];
  for (const [i, fileId] of files.entries())
    quotes.push(await attacker.post(`/v2/file/quote/${fileId}/async`, { choices: { infill: [10, 15][i] } }));
  assert.deepEqual(
    quotes.map((q) => q.status),
    [202, 202],
  );
  // The same address, a third waiting quote: refused for this shopper…
  const third = await attacker.post(`/v2/file/quote/${files[0]}/async`, { choices: { infill: 20 } });
  assert.equal(third.status, 429, JSON.stringify(third.body));
  assert.equal(third.body.error.code, 'caller_queue_full');
  assert.ok(Number(third.headers.get('retry-after')) > 0);
  // …while another address of the same shop still gets its quote queued.
  const neighbour = shopper(flooded.key, SHOP, '127.0.0.3');
  const theirs = await neighbour.upload(CUBE, 'c.obj');
  assert.equal((await neighbour.post(`/v2/file/quote/${theirs}/async`, {})).status, 202);
  // The shop's account now has 3 waiting; the merchant's 4th fills it, the 5th is refused with 503, for them only.
  const own = await upload(flooded.api, CUBE, 'own.obj');
  assert.equal((await flooded.api.post(`/v2/file/quote/${own}/async`, {})).status, 202);
  const refused = await flooded.api.post(`/v2/file/quote/${own}/async`, { quote_config: { currency: 'USD' } });
  assert.equal(refused.status, 503, JSON.stringify(refused.body));
  assert.equal(refused.body.error.code, 'queue_full');
  const elsewhere = await upload(other.api, CUBE, 'theirs.obj');
  const accepted = await other.api.post(`/v2/file/quote/${elsewhere}/async`, {});
  assert.equal(accepted.status, 202, 'another account is never refused for the flooded one');
});

test("a shopper's part above the shop's slicer budget is refused before any slice, and the merchant can raise it", async () => {
  const shop = await merchantShop(server, 'budget-shop@example.test', 'https://budget-shop.example');
  const offer = (await shop.api.get('/v2/offer')).body;
  assert.equal(offer.max_slice_seconds, null, 'the default budget applies');
  const { source: _, ...body } = offer;
  const setBudget = async (seconds: number | null) =>
    assert.equal((await shop.api.put('/v2/offer', { ...body, max_slice_seconds: seconds })).status, 200);
  await setBudget(5);
  const s = shopper(shop.key, 'https://budget-shop.example', '127.0.0.4');
  const heavy = await s.upload(HEAVY, 'cloud.obj');
  const refused = await s.post(`/v2/file/quote/${heavy}`, { choices: {} });
  assert.equal(refused.status, 422, JSON.stringify(refused.body));
  assert.equal(refused.body.error.code, 'model_too_complex');
  const d = refused.body.error.details;
  assert.equal(d.field, 'max_slice_seconds');
  assert.equal(d.limit_seconds, 5);
  assert.ok(d.predicted_seconds > 5, `predicted ${d.predicted_seconds} s`);
  assert.match(refused.body.error.message, / 5 s /);
  const [row] = await sql<{ status: string; attempts: number }>('SELECT status, attempts FROM quotes WHERE id = $1', [
    d.quote_id,
  ]);
  assert.deepEqual(row, { status: 'failed', attempts: 0 }, 'recorded as a failed quote, never claimed by a worker');
  assert.equal(d.over_limit.quality, body.default_quality, 'the refusal names the choice over the limit');

  // Over the limit is not a dead end: a choice over it is answered with the offer's qualities within it, finest
  // first (what the widget offers with one click), and the shopper can take one. The limit sits just above what
  // the standard quality was predicted to cost: Fine (0.1 mm, twice the layers) is over it, Standard and Draft are not.
  const standardS = d.predicted_seconds as number;
  const qualities = [
    { id: 'draft', label: 'Draft 0.3 mm', printer_config: { layer_height: 0.3 } },
    { id: 'standard', label: 'Standard 0.2 mm', printer_config: {} },
    { id: 'fine', label: 'Fine 0.1 mm', printer_config: { layer_height: 0.1 } },
  ];
  const limit = Math.ceil(standardS * 1.05);
  const put = await shop.api.put('/v2/offer', {
    ...body,
    qualities,
    default_quality: 'standard',
    max_slice_seconds: limit,
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const fine = await s.post(`/v2/file/quote/${heavy}`, { choices: { quality: 'fine' } });
  assert.equal(fine.status, 422, JSON.stringify(fine.body));
  const over = fine.body.error.details;
  assert.deepEqual(over.over_limit, { quality: 'fine', label: 'Fine 0.1 mm' });
  assert.deepEqual(
    over.within_limit.map((q: { quality: string }) => q.quality),
    ['standard', 'draft'],
    JSON.stringify(over),
  );
  for (const q of over.within_limit) assert.ok(q.predicted_seconds <= limit, JSON.stringify(q));
  assert.match(fine.body.error.message, /With Fine 0\.1 mm this part .* Standard 0\.2 mm is within it\./);
  const instead = await s.post(`/v2/file/quote/${heavy}/async`, { choices: { quality: 'standard' } });
  assert.equal(instead.status, 202, JSON.stringify(instead.body));

  // The merchant raises the budget in the offer: the same part is queued for slicing.
  await setBudget(1800);
  const queued = await s.post(`/v2/file/quote/${heavy}/async`, { choices: {} });
  assert.equal(queued.status, 202, JSON.stringify(queued.body));
  // The merchant's own API is not bound by the shop's budget.
  await setBudget(5);
  const own = await upload(shop.api, HEAVY, 'own-cloud.obj');
  assert.equal((await shop.api.post(`/v2/file/quote/${own}/async`, {})).status, 202);
});

test("a cheap upload is pre-sliced on the shop's own prefetch budget, never the shopper's; a costly one never is; a spent budget stops prefetching, not pricing", async () => {
  const shop = await merchantShop(server, 'prefetch-shop@example.test', 'https://prefetch-shop.example');
  const s = shopper(shop.key, 'https://prefetch-shop.example', '127.0.0.5');
  const shopCaller = `prefetch:${shop.accountId}`;
  const cube = await s.upload(cubeOf(17), 'cube.obj');
  const heavy = await s.upload(HEAVY, 'cloud.obj');
  const rows = async (fileId: string) =>
    sql<{ caller: string; predicted_s: number }>('SELECT caller, predicted_s FROM prefetches WHERE file_id = $1', [
      fileId,
    ]);
  // Planned after the upload's answer: wait for it.
  const planned = await until('the cube prefetches', 30_000, async () => {
    const r = await rows(cube);
    return r.length ? r : undefined;
  });
  // A prefetch's slicer time is charged to its row's caller (prefetch-worker.ts): the shop's, never the shopper's.
  for (const p of planned) {
    assert.equal(p.caller, shopCaller);
    assert.ok(p.predicted_s > 0 && p.predicted_s <= 20, `predicted ${p.predicted_s} s`);
  }
  // The costly upload: planning it again queues nothing.
  const file = (await fileByIdAnyAccount(server.deps.db, heavy))!;
  const upload = { widgetKeyId: shop.keyId, expiresAt: new Date(Date.now() + 600_000), caller: 'ip:127.0.0.5' };
  assert.equal(await prefetchUpload(server.deps, file, upload), 0);
  assert.equal((await rows(heavy)).length, 0);

  // The shop's prefetch budget for the hour spent: a cheap upload is no longer pre-sliced, and its shopper is
  // still priced when they ask.
  await sql(
    `INSERT INTO slicer_usage (account_id, caller, kind, outcome, seconds, at) VALUES ($1, $2, 'prefetch', 'ok', $3, $4)`,
    [shop.accountId, shopCaller, server.deps.config.prefetchSecondsPerShopHour, server.deps.now()],
  );
  const later = await s.upload(cubeOf(19), 'later.obj');
  const laterFile = (await fileByIdAnyAccount(server.deps.db, later))!;
  assert.equal(await prefetchUpload(server.deps, laterFile, upload), 0, 'nothing planned on a spent budget');
  assert.equal((await rows(later)).length, 0);
  const priced = await s.post(`/v2/file/quote/${later}`, { choices: {} });
  assert.ok([200, 202].includes(priced.status), JSON.stringify(priced.body)); // priced, or queued with its estimate
});

test("work for a file stops with it: a rescale ends the shopper's slices of the old size, a delete ends all", async () => {
  const shop = await merchantShop(server, 'stop-shop@example.test', 'https://stop-shop.example');
  const s = shopper(shop.key, 'https://stop-shop.example', '127.0.0.6');
  const fileId = await s.upload(cubeOf(13), 'cube.obj');
  await until('the prefetches', 30_000, async () =>
    (await sql('SELECT 1 FROM prefetches WHERE file_id = $1', [fileId])).length ? true : undefined,
  );
  const mine = await s.post(`/v2/file/quote/${fileId}/async`, { choices: { infill: 20 } });
  const merchants = await shop.api.post(`/v2/file/quote/${fileId}/async`, {});
  assert.equal(mine.status, 202);
  assert.equal(merchants.status, 202);
  const status = async (id: string) =>
    (
      await sql<{ status: string; error: { code: string } | null }>('SELECT status, error FROM quotes WHERE id = $1', [
        id,
      ])
    )[0];

  const rescaled = await s.post(`/v2/file/scale/${fileId}`, { scale: 2 });
  assert.equal(rescaled.status, 200, JSON.stringify(rescaled.body));
  assert.deepEqual(await status(mine.body.job_id), {
    status: 'failed',
    error: {
      code: 'superseded',
      message: 'The model was rescaled before this quote was ready; quote it again at its new size.',
      status: 409,
    },
  });
  assert.equal((await status(merchants.body.job_id))?.status, 'queued', "the merchant's quote states its own size");

  const deleted = await shop.api.delete(`/v2/file/${fileId}`);
  assert.equal(deleted.status, 200);
  const after = await status(merchants.body.job_id);
  assert.equal(after?.status, 'failed');
  assert.equal(after?.error?.code, 'file_deleted');
  assert.equal((await sql('SELECT 1 FROM prefetches WHERE file_id = $1', [fileId])).length, 0);
  const job = await shop.api.get(`/v2/jobs/${merchants.body.job_id}`);
  assert.equal(job.body.status, 'failed');
});

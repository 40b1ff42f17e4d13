// The first price fast (docs/instant-price.md): a shopper's upload starts the slices of the offer's likely
// choices, bounded per upload; the shopper's first quote is then answered from the cache; a quote that asks for a
// slice already being made joins it; a shopper's quote is sliced before a merchant's waiting ones; a prefetch makes
// way for a quote; a slicing job shows the slicer's stage and its expected remaining time. The slicer starts on the
// whole upload, checked (read as it arrived or after): a file that fails the check never reaches it. Real slices.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { createModelParser, parserOptions } from '../../server/mesh/index.ts';
import { claimJob } from '../../server/quotes/claim-sql.ts';
import { PREFETCH_PER_ACCOUNT, PREFETCH_PER_UPLOAD } from '../../server/quotes/prefetch.ts';
import { parseModel, writeCanonicalObj } from '../../shared/model/index.ts';
import { binaryStl, meshTriangles } from '../helpers/binary-stl.ts';
import { boxesObj } from '../helpers/meshes.ts';
import { until } from '../helpers/poll.ts';
import { type ApiClient, merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';
import { widgetShopper } from '../helpers/shopper.ts';
import { askUntilHeld, holdNextSlicer, holdSlicers, someSlicers } from '../helpers/slicer-hold.ts';
import { sphereObj } from '../helpers/solids.ts';

const SHOP = 'https://instant-shop.example';
const BENCHY = readFileSync(new URL('../fixtures/models/stl/3DBenchy.stl', import.meta.url));

/**
 * A binary STL above the size whose upload is parsed as it arrives (1 MiB): a sphere of 25,740 triangles (1.3 MB),
 * whose slice and prefetch planning cost a small share of 3DBenchy's.
 */
const STREAMED_STL = binaryStl(
  meshTriangles(parseModel(new TextEncoder().encode(sphereObj(12, 100, 130)), 'obj').mesh),
);
const OFFER = {
  materials: [{ material: 'PLA', colors: ['White', 'Black'] }],
  default_material: 'PLA',
  qualities: [
    { id: 'standard', label: 'Standard 0.2 mm', printer_config: {} },
    { id: 'draft', label: 'Draft 0.3 mm', printer_config: { layer_height: 0.3 } },
    { id: 'fine', label: 'Fine 0.15 mm', printer_config: { layer_height: 0.15 } },
  ],
  default_quality: 'standard',
  infill_options: [15, 20, 25, 30, 40],
  default_infill: 15,
  quantity: { min: 1, max: 20 },
  minimum_price: null,
  minimum_line_price: null,
  lead_time: null,
};

const METRICS_TOKEN = 'scrape-secret';
let server: TestServer;
let api: ApiClient;
let key: string;

before(async () => {
  // One slicer at a time (and no short lane beside it), so that order and preemption are observable; short leases,
  // so a prefetch whose session ended is stopped within a couple of seconds. Every part is prefetched however slow
  // a loaded machine makes its predicted slice (the bound on costly prefetches is fair-share.test.ts's).
  server = await startTestServer({
    RATE_LIMIT_ANON_PLAN: 'business',
    SLICER_CONCURRENCY: '1',
    SLICER_SHORT_LANE: '0',
    PREFETCH_MAX_SECONDS: '3600',
    JOB_LEASE_MS: '6000',
    METRICS_TOKEN,
  });
  ({ api, key } = await merchantShop(server, 'instant-shop@example.test', SHOP));
  assert.equal((await api.put('/v2/offer', OFFER)).status, 200);
});
after(() => server.stop());

const shopper = () => widgetShopper(server, key, SHOP);

const sql = <T>(text: string, params: unknown[] = []) => server.deps.db.query<T>(text, params);
/**
 * Waits until a job has ended, reading its row, and answers it as the API shows it. Polling the API itself would
 * spend the token's read limit (300 a minute on this plan: 15 s of polls), and a slow slice's wait then read only
 * 429s, never the job it waited for.
 */
const jobEnded = async (on: TestServer, client: ApiClient, id: string, budgetMs: number) => {
  await until(`job ${id} to end`, budgetMs, async () => ((await hasEnded(on, id)) ? true : undefined));
  return (await client.get(`/v2/jobs/${id}`)).body;
};
/** Whether a job has ended, read from its row. */
const hasEnded = async (on: TestServer, id: string) => {
  const [row] = await on.deps.db.query<{ status: string }>('SELECT status FROM quotes WHERE id = $1', [id]);
  return row?.status === 'completed' || row?.status === 'failed';
};
const prefetchesOf = (fileId: string) =>
  sql<{ slicing_key: string; rank: number }>('SELECT slicing_key, rank FROM prefetches WHERE file_id = $1', [fileId]);
const scrape = async (on: TestServer) =>
  (await fetch(`${on.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
const metric = async (on: TestServer, pattern: RegExp) => Number(pattern.exec(await scrape(on))?.[1] ?? 0);
const slicesRun = (on: TestServer) => metric(on, /slicequote_slice_duration_seconds_count\{outcome="ok"\} (\d+)/);
/** A gauge of this server (it must be served). The waits below: what was started has ended. */
const gauge = async (name: string) => {
  const found = new RegExp(`^${name} (\\d+)$`, 'm').exec(await scrape(server));
  assert.ok(found, `the metric ${name} is served`);
  return Number(found[1]);
};
// A hang guard as generous as this file's waits for a slice: planning 3DBenchy's likely choices (placement and
// predicted cost of each) is seconds of CPU, many more on a loaded host.
const planningDone = () =>
  until('prefetch planning to finish', 240_000, async () =>
    (await gauge('slicequote_prefetch_planning')) === 0 ? true : undefined,
  );
const noPrefetchRunning = () =>
  until('no prefetch slicing', 120_000, async () =>
    (await gauge('slicequote_prefetches_running')) === 0 ? true : undefined,
  );
const prefetched = (outcome: string) =>
  metric(server, new RegExp(`slicequote_prefetches_total\\{outcome="${outcome}"\\} (\\d+)`));
/**
 * No slice in the background: every prefetch planned by an earlier test (planning runs after an upload's answer, so
 * a prefetch may be queued after a test deleted its file's rows) is dropped and has stopped. The next slicer to run
 * is then the one the test starts.
 */
const quiet = async () => {
  await planningDone();
  await sql('DELETE FROM prefetches');
  await noPrefetchRunning(); // a running prefetch notices at its next heartbeat
};
const part = (size: number) => new TextEncoder().encode(boxesObj([[0, 0, 0, size, size, size / 2]]));

test("a shopper's upload prefetches the likely slices; the first price comes from the cache", async () => {
  const s = shopper();
  const sliced = await prefetched('sliced');
  const fileId = await s.upload(part(14), 'bracket.obj');
  // The default choices and the likeliest changes (seven candidates here), within the per-upload bound.
  await until('prefetches sliced', 120_000, async () =>
    (await prefetched('sliced')) - sliced === PREFETCH_PER_UPLOAD ? true : undefined,
  );
  assert.equal((await prefetchesOf(fileId)).length, 0, 'a sliced prefetch leaves the queue');
  const first = await s.post(`/v2/file/quote/${fileId}`, { choices: {} });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.cached, true, 'the default choices were sliced before the shopper asked');
  const draft = await s.post(`/v2/file/quote/${fileId}`, { choices: { quality: 'draft' } });
  assert.equal(draft.body.cached, true, 'the likeliest change too');
  // A merchant's API upload is not a shopper's: nothing is prefetched for it.
  const merchant = await api.uploadBytes('/v2/file', part(15), 'merchant.obj');
  await planningDone(); // a planning would have started before the answer
  assert.equal((await prefetchesOf(merchant.body.file_id)).length, 0);
});

test('the slicer starts on the whole upload, checked: the canonical mesh of every byte the shopper sent', async () => {
  await quiet();
  const s = shopper();
  assert.ok(STREAMED_STL.length > 2 ** 20, 'parsed as it arrives');
  const fileId = await s.upload(STREAMED_STL, 'sphere.stl');
  // Held the moment it runs: what it reads is still there to compare, however fast or loaded the machine.
  const pids = await until('the default choices slicing', 60_000, () => someSlicers());
  const held = holdSlicers(pids);
  try {
    const input = readFileSync(`/proc/${pids[0]}/cwd/model.obj`);
    const whole = writeCanonicalObj(parseModel(STREAMED_STL, 'stl').mesh);
    assert.ok(input.equals(whole), 'the mesh of the whole file, welded');
    const [file] = await sql<{ mesh_sha256: string }>('SELECT mesh_sha256 FROM files WHERE id = $1', [fileId]);
    assert.equal(createHash('sha256').update(input).digest('hex'), file!.mesh_sha256);
  } finally {
    // Deleted, the upload's slices stop (the held one too) and its prefetches go.
    assert.equal((await s.request('DELETE', `/v2/file/${fileId}`)).status, 200);
    held.release();
    await quiet();
  }
});

/** Benchy with its 1001st triangle's first corner made NaN: a binary STL of the right size that fails its check. */
const withNaN = () => {
  const bytes = Buffer.from(BENCHY);
  bytes.writeFloatLE(Number.NaN, 84 + 50 * 1000 + 12);
  return bytes;
};

test('an upload that fails its check never reaches the slicer: cut short, malformed, over its parse budget', async () => {
  await quiet();
  const s = shopper();
  const slicedBefore = await slicesRun(server);
  const refused = async (bytes: Uint8Array, code: string) => {
    const ticket = await s.get('/v2/file/upload-id');
    const res = await server.client().uploadBytes(`/v2/file/public/${ticket.body.upload_id}`, bytes, 'benchy.stl');
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.error.code, code);
  };
  await refused(BENCHY.subarray(0, BENCHY.length - 25), 'stl_truncated');
  await refused(Buffer.concat([BENCHY, Buffer.alloc(50)]), 'stl_count_mismatch');
  await refused(withNaN(), 'non_finite_vertex');
  // A parse allowed a millisecond of CPU time: Benchy takes more, read as it arrives or whole.
  const parser = server.deps.parser;
  server.deps.parser = createModelParser({ ...parserOptions(server.deps.config), maxParseMs: 1 });
  try {
    await refused(BENCHY, 'model_too_complex');
  } finally {
    await server.deps.parser.close();
    server.deps.parser = parser;
  }
  await planningDone();
  assert.equal((await sql('SELECT 1 FROM prefetches')).length, 0, 'nothing was queued to slice');
  assert.equal(someSlicers(), undefined, 'no slicer runs');
  assert.equal(await slicesRun(server), slicedBefore, 'none ran');
});

test('deleting the upload drops its prefetches; one whose shopper session ended is stopped and never stored', async () => {
  await quiet();
  const s = shopper();
  const big = await s.upload(part(30), 'big.obj');
  // A prefetch is held the moment its slicer runs (the next one, if the first ended before it was stopped), until
  // the server stops it: on a fast or a loaded machine alike, it has not finished when the test acts.
  const held = await holdNextSlicer('its first prefetch slicing');
  try {
    const keys = (await prefetchesOf(big)).map((r) => r.slicing_key);
    await dropPrefetchesOf(s, big, keys);
  } finally {
    held.release();
  }
});

async function dropPrefetchesOf(s: ReturnType<typeof shopper>, big: string, keys: string[]) {
  const fileId = await s.upload(part(16), 'spare.obj');
  await until('prefetches queued', 10_000, async () => ((await prefetchesOf(fileId)).length ? true : undefined));
  assert.equal((await api.delete(`/v2/file/${fileId}`)).status, 200);
  assert.equal((await prefetchesOf(fileId)).length, 0);
  await sql(`UPDATE prefetches SET expires_at = now() - interval '1 second' WHERE file_id = $1`, [big]);
  await until('expired prefetches dropped', 60_000, async () => ((await prefetchesOf(big)).length ? undefined : true));
  await noPrefetchRunning(); // the running one ended: had it not been stopped, its slice would be stored now
  const stored = await sql('SELECT 1 FROM slices WHERE key = ANY($1)', [keys]);
  assert.equal(stored.length, 0, 'the running prefetch was stopped, the others never started');
}

test('a quote for a slice already being made joins it: one slice for two quotes', async () => {
  // Two slicers: without joining, both quotes would slice at once.
  const two = await startTestServer({ SLICER_CONCURRENCY: '2', METRICS_TOKEN });
  after(() => two.stop());
  const { token } = await two.newAccount();
  const api = two.client(token);
  const upload = await api.uploadBytes('/v2/file', part(17), 'twice.obj');
  const before = await slicesRun(two);
  const body = { printer_config: { fill_density: 22 } };
  const [a, b] = await Promise.all([
    api.post(`/v2/file/quote/${upload.body.file_id}/async`, body),
    api.post(`/v2/file/quote/${upload.body.file_id}/async`, body),
  ]);
  const done = (id: string) => jobEnded(two, api, id, 120_000);
  const [ja, jb] = await Promise.all([done(a.body.job_id), done(b.body.job_id)]);
  assert.equal(ja.result.total_price, jb.result.total_price);
  assert.deepEqual([ja.result.cached, jb.result.cached].sort(), [false, true]);
  assert.equal((await slicesRun(two)) - before, 1, 'PrusaSlicer ran once');
});

test("a shopper's quote is sliced before the merchant's waiting ones, and shows the slicer's progress", async (t) => {
  const benchy = await api.uploadBytes('/v2/file', BENCHY, 'benchy.stl');
  const merchantParts = await Promise.all([18, 19].map((n) => api.uploadBytes('/v2/file', part(n), `m${n}.obj`)));
  // The slicer is busy with a merchant's Benchy; while it slices, its job shows the slicer's stage. Followed from
  // the moment it exists: the answer to its request may wait for its estimate (QUOTE_ESTIMATE_WAIT_MS), which a
  // loaded host can make slower than the slice.
  const asking = api.post(`/v2/file/quote/${benchy.body.file_id}/async`, { printer_config: { fill_density: 33 } });
  const busyId = await until('the Benchy job', 60_000, async () => {
    const [row] = await sql<{ id: string }>('SELECT id FROM quotes WHERE file_id = $1', [benchy.body.file_id]);
    return row?.id;
  });
  let last: Record<string, unknown> = {};
  const progress = await until('a slicing stage', 120_000, async () => {
    const job = (await api.get(`/v2/jobs/${busyId}`)).body;
    last = job;
    assert.notEqual(job.status, 'completed', `the stage was never seen while slicing: ${JSON.stringify(job)}`);
    return job.status === 'processing' && job.stage ? job : undefined;
  }).catch((err) => {
    throw new Error(`${err.message}: ${JSON.stringify(last)}`);
  });
  assert.match(progress.stage, /[A-Za-z]/);
  assert.ok(progress.expected_remaining_seconds >= 1);
  assert.ok(progress.progress >= 5 && progress.progress <= 95);
  // Held while the others ask: however fast or loaded the machine, Benchy still holds the single slicer then.
  const held = holdSlicers(await until('its slicer started', 60_000, () => someSlicers()));
  t.after(() => held.release());
  assert.equal((await asking).status, 202);
  // Two merchant quotes wait, then a shopper asks.
  const waiting = [];
  for (const p of merchantParts)
    waiting.push(
      (await api.post(`/v2/file/quote/${p.body.file_id}/async`, { printer_config: { fill_density: 31 } })).body,
    );
  // A shopper from an address that has not used the slicer yet: within an account, the caller who used the slicer
  // least goes first (the prefetches of the uploads above were the shop's, charged to its own prefetch budget).
  const s = widgetShopper(server, key, SHOP, '127.0.0.43');
  const fileId = await s.upload(part(20), 'shopper.obj');
  await sql('DELETE FROM prefetches WHERE file_id = $1', [fileId]); // this test is about the quote's own priority
  const mine = await s.post(`/v2/file/quote/${fileId}/async`, { choices: { infill: 40 } });
  assert.equal(mine.status, 202);
  const finished = async (id: string) => {
    const [row] = await sql<{ finished_at: Date | null }>('SELECT finished_at FROM quotes WHERE id = $1', [id]);
    return row?.finished_at ?? undefined;
  };
  // Whichever merchant quotes were still waiting when the shopper asked must be sliced after the shopper's.
  const stillQueued = [];
  for (const w of waiting) if ((await api.get(`/v2/jobs/${w.job_id}`)).body.status === 'queued') stillQueued.push(w);
  assert.equal(stillQueued.length, 2, 'both merchant quotes wait behind the held slice');
  // The held slice makes way as a finished one would, without its CPU: deleted, its file's slices stop.
  assert.equal((await api.delete(`/v2/file/${benchy.body.file_id}`)).status, 200);
  held.release();
  const shopperDone = await until('shopper quote', 180_000, () => finished(mine.body.job_id));
  for (const w of stillQueued) {
    const merchantDone = await until('merchant quote', 180_000, () => finished(w.job_id));
    assert.ok(shopperDone < merchantDone, 'the shopper did not wait behind the merchant');
  }
});

test('a prefetch makes way for a quote and is sliced afterwards', async () => {
  await quiet();
  const s = shopper();
  const fileId = await s.upload(part(31), 'prefetched.obj');
  // A prefetch is held the moment its slicer runs (nothing else slices now; the next one, if the first ended before
  // it was stopped): it is certainly slicing when the quote arrives.
  const held = await holdNextSlicer('a prefetch slicing');
  const keys = await until('the running prefetch', 10_000, async () => {
    const rows = await sql<{ slicing_key: string }>(
      'SELECT slicing_key FROM prefetches WHERE file_id = $1 AND lease_expires_at > now()',
      [fileId],
    );
    return rows.length ? rows : undefined;
  });
  const merchant = await api.uploadBytes('/v2/file', part(21), 'urgent.obj');
  assert.equal(merchant.status, 201, JSON.stringify(merchant.body));
  const quote = await api.post(`/v2/file/quote/${merchant.body.file_id}/async`, {
    printer_config: { fill_density: 27 },
  });
  assert.equal(quote.status, 202, JSON.stringify(quote.body));
  const done = await jobEnded(server, api, quote.body.job_id, 240_000).finally(() => held.release());
  assert.equal(done.status, 'completed', JSON.stringify(done));
  const metrics = await scrape(server);
  assert.match(metrics, /slicequote_prefetches_total\{outcome="preempted"\} [1-9]/);
  // The preempted prefetch is queued again and its slice is made in the end.
  const [preempted] = keys;
  await until('the preempted slice', 240_000, async () => {
    const rows = await sql('SELECT 1 FROM slices WHERE key = $1', [preempted!.slicing_key]);
    return rows.length ? true : undefined;
  });
});

test('the claim order: priority first, then age; a job whose slice is being made is passed over', async () => {
  const { accountId } = await server.newAccount();
  // All in one transaction, rolled back: the running workers never see these rows, and nothing is left behind.
  const order = await server.deps.db
    .transaction(async (tx) => {
      await tx.query(
        `INSERT INTO files (id, account_id, name, format, content_type, size_bytes, stored_bytes, sha256, mesh_sha256,
           measurements, footprint, warnings, source)
         VALUES ('file_claim_order', $1, 'x.stl', 'stl', 'model/stl', 1, 1, 'a', 'b', '{}', '[]', '[]', 'api')`,
        [accountId],
      );
      const queue = (id: string, priority: number, key: string, ageSeconds: number) =>
        tx.query(
          `INSERT INTO quotes (id, account_id, file_id, file_name, mode, status, request, slicing_key, priority, created_at)
           VALUES ($1, $2, 'file_claim_order', 'x.stl', 'async', 'queued', '{}', $3, $4,
                   now() - make_interval(secs => $5))`,
          [id, accountId, key, priority, ageSeconds],
        );
      await queue('job_old_merchant', 1, 'k1', 30);
      await queue('job_new_shopper', 0, 'k2', 1);
      await queue('job_twin', 0, 'k3', 20);
      await tx.query(
        `INSERT INTO prefetches (slicing_key, account_id, file_id, resolved, rank, lease_owner, lease_expires_at, expires_at)
         VALUES ('k3', $1, 'file_claim_order', '{}', 0, 'w_other', now() + interval '1 minute', now() + interval '5 minutes')`,
        [accountId],
      );
      const claimed: string[] = [];
      for (let i = 0; i < 3; i++) {
        const job = await claimJob(tx, 'w_test', 60_000, { lastSlot: false, heldAccounts: [] });
        if (job?.account_id === accountId) claimed.push(job.id);
      }
      throw Object.assign(new Error('rollback'), { claimed });
    })
    .catch((err: { claimed?: string[] }) => err.claimed);
  assert.deepEqual(order, ['job_new_shopper', 'job_old_merchant'], 'the twin of a slice being made waits for it');
});

test("a shopper's new choice stops the slice they no longer wait for, unless a request shares it", async () => {
  // No other slicing in the background: the slices counted below are this test's.
  await quiet();
  const s = shopper();
  const fileId = await s.upload(part(32), 'flick.obj');
  await planningDone();
  await sql('DELETE FROM prefetches WHERE file_id = $1', [fileId]);
  await noPrefetchRunning(); // one that started before the delete stops at its next heartbeat
  const ask = (choices: Record<string, unknown>) =>
    server.client().request('POST', `/v2/file/quote/${fileId}`, {
      json: { choices },
      headers: { ...s.headers(), prefer: 'respond-async' },
    });
  // A slice nothing here has made before, held the moment it runs until the server stops it, so it is still
  // running when the shopper changes their mind, however fast the machine. A small part's slice can end before it
  // is stopped: then the shopper asks again with another infill (askUntilHeld), and the test goes on with that one.
  const infills = [40, 30, 25, 20, 15];
  const { held, answer: first } = await askUntilHeld(
    (i) => ask({ quality: 'fine', infill: infills[i]! }).then((res) => ({ ...res, infill: infills[i]! })),
    async (res) => res.status !== 202 || hasEnded(server, res.body.job_id),
  );
  const infill = first.infill;
  try {
    assert.equal(first.status, 202);
    assert.equal((await s.get(`/v2/jobs/${first.body.job_id}`)).body.status, 'processing');
    // A colour change slices the same: the running slice is shared and goes on.
    const recolour = await ask({ quality: 'fine', infill, color: 'Black' });
    assert.equal((await s.get(`/v2/jobs/${first.body.job_id}`)).body.status, 'processing');
    // Another infill: the two earlier quotes are no longer awaited, and their shared slice stops.
    const other = await ask({ quality: 'draft', infill });
    for (const id of [first.body.job_id, recolour.body.job_id]) {
      const job = (await s.get(`/v2/jobs/${id}`)).body;
      assert.equal(job.status, 'failed');
      assert.equal(job.error.code, 'superseded');
    }
    const stopped = await until('the superseded slice stopped', 30_000, async () => {
      const rows = await sql('SELECT 1 FROM quotes WHERE id = $1 AND lease_owner IS NULL', [first.body.job_id]);
      const running = await metric(server, /slicequote_slice_duration_seconds_count\{outcome="ok"\} (\d+)/);
      return rows.length ? running : undefined;
    });
    const done = await until('the quote awaited', 240_000, async () => {
      const job = (await s.get(`/v2/jobs/${other.body.job_id}`)).body;
      return job.status === 'completed' ? job : undefined;
    });
    assert.equal(done.result.choices.infill, infill);
    // Only the awaited slice was completed after the switch: the superseded one was not finished in the background.
    assert.equal((await metric(server, /slicequote_slice_duration_seconds_count\{outcome="ok"\} (\d+)/)) - stopped, 1);
    const eventsOf = async (ids: string[]) =>
      (
        await sql<{ n: number }>(
          `SELECT count(*)::int AS n FROM outbox_events WHERE payload->'data'->>'quoteId' = ANY($1)`,
          [ids],
        )
      )[0]!.n;
    assert.ok((await eventsOf([other.body.job_id])) >= 1, 'the awaited quote sent quote.completed');
    assert.equal(
      await eventsOf([first.body.job_id, recolour.body.job_id]),
      0,
      'no quote.failed for quotes nobody waits for',
    );
  } finally {
    held.release();
  }
});

test('an account has at most PREFETCH_PER_ACCOUNT prefetches waiting or running', async () => {
  const s = shopper();
  const seed = await s.upload(part(22), 'seed.obj');
  await until('seed prefetches done', 120_000, async () => ((await prefetchesOf(seed)).length ? undefined : true));
  const [{ account_id: accountId } = { account_id: '' }] = await sql<{ account_id: string }>(
    'SELECT account_id FROM files WHERE id = $1',
    [seed],
  );
  // The account's allowance taken by prefetches another worker holds (not claimable here).
  for (let i = 0; i < PREFETCH_PER_ACCOUNT; i++)
    await sql(
      `INSERT INTO prefetches (slicing_key, account_id, file_id, resolved, rank, lease_owner, lease_expires_at, expires_at)
       VALUES ($1, $2, $3, '{}', 0, 'w_elsewhere', now() + interval '10 minutes', now() + interval '10 minutes')`,
      [`held-${i}`, accountId, seed],
    );
  const fileId = await s.upload(part(23), 'one-too-many.obj');
  await planningDone(); // the upload's prefetch planning runs after the answer
  assert.equal((await prefetchesOf(fileId)).length, 0, 'no room left for this upload');
  await sql(`DELETE FROM prefetches WHERE slicing_key LIKE 'held-%'`);
  const slicedBefore = await prefetched('sliced');
  const again = await s.upload(part(24), 'room-again.obj');
  await until('a prefetch queued again', 10_000, async () => {
    const queued = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM prefetches WHERE file_id = $1`, [again]);
    const sliced = await prefetched('sliced');
    return queued[0]!.n > 0 || sliced > slicedBefore ? true : undefined;
  });
});

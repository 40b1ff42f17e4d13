// What an operator scrapes and probes: Prometheus metrics (per-process requests, uploads, slices and cache
// lookups; service-wide queue and webhook gauges), optional bearer protection, readiness with draining, and a
// stopping worker handing its jobs back at once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { corpusBytes } from '../helpers/corpus.ts';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { askUntilHeld } from '../helpers/slicer-hold.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ METRICS_TOKEN: 'scrape-secret' });
});
after(() => server.stop());

const scrape = async () => (await server.client('scrape-secret').get('/metrics')).raw;
const text = async () => new TextDecoder().decode(await scrape());
/** The value of one series in the exposition text (0 when absent). */
function value(body: string, series: string): number {
  const line = body.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

test('/metrics wants the METRICS_TOKEN as a Bearer token when one is set', async () => {
  assert.equal((await server.client().get('/metrics')).status, 401);
  assert.equal((await server.client('wrong').get('/metrics')).status, 401);
  const res = await server.client('scrape-secret').get('/metrics');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
});

test('requests, uploads, slices and cache lookups are counted; labels carry route templates, never ids', async () => {
  const a = await server.newAccount();
  const api = server.client(a.token);
  const before = await text();
  const cube = new TextEncoder().encode(CUBE_OBJ);
  const file = (await api.uploadBytes('/v2/file', cube, 'cube.obj')).body.file_id as string;
  const first = await api.post(`/v2/file/quote/${file}`, {});
  const again = await api.post(`/v2/file/quote/${file}`, {});
  assert.deepEqual([first.status, first.body.cached, again.status, again.body.cached], [200, false, 200, true]);
  await api.get(`/v2/quotes/qt_unknown`);
  const after = await text();

  const delta = (series: string) => value(after, series) - value(before, series);
  assert.equal(delta('slicequote_upload_bytes_total'), cube.length);
  assert.equal(delta('slicequote_slice_cache_lookups_total{result="miss"}'), 1);
  assert.equal(delta('slicequote_slice_cache_lookups_total{result="hit"}'), 1);
  assert.equal(delta('slicequote_slice_duration_seconds_count{outcome="ok"}'), 1);
  assert.equal(
    delta('slicequote_http_request_duration_seconds_count{method="POST",route="/v2/file/quote/:file_id",status="200"}'),
    2,
  );
  assert.equal(
    delta('slicequote_http_request_duration_seconds_count{method="GET",route="/v2/quotes/:quote_id",status="404"}'),
    1,
  );
  assert.doesNotMatch(after, /file_[a-z0-9]{6,}|qt_unknown/, 'no ids in labels');
  assert.ok(value(after, 'slicequote_stored_file_bytes') >= cube.length);
  assert.match(after, /^slicequote_quote_jobs\{status="queued"\} \d+$/m);
  assert.match(after, /^slicequote_webhook_deliveries\{state="failed"\} \d+$/m);
  assert.match(after, /^slicequote_process_resident_memory_bytes \d+/m);
});

test('/readyz: ready while the database and storage answer; draining answers 503 so traffic moves away', async () => {
  const ready = await server.client().get('/readyz');
  assert.equal(ready.status, 200);
  assert.deepEqual(ready.body, { status: 'ready', checks: { database: 'ok', storage: 'ok', redis: 'not_configured' } });
  server.deps.lifecycle.draining = true;
  try {
    const draining = await server.client().get('/readyz');
    assert.equal(draining.status, 503);
    assert.equal(draining.body.status, 'draining');
    assert.equal((await server.client().get('/healthz')).status, 200, 'still alive while draining');
  } finally {
    server.deps.lifecycle.draining = false;
  }
});

test('/readyz checks Redis when rate limits use it', async () => {
  const withRedis = await startTestServer({
    REDIS_URL: 'redis://127.0.0.1:6379',
    RATE_LIMIT_PREFIX: `sq:test:${Date.now()}:`,
  });
  try {
    const res = await withRedis.client().get('/readyz');
    assert.deepEqual([res.status, res.body.checks.redis], [200, 'ok']);
  } finally {
    await withRedis.stop();
  }
});

test("a stopping worker hands its job back at once, without spending one of the job's attempts", async () => {
  // No prefetches: the upload's own would slice the same part, and the job, answered from it, would never slice.
  const worker = await startTestServer({ PREFETCH_MAX_SECONDS: '0' });
  try {
    const a = await worker.newAccount();
    const api = worker.client(a.token);
    const file = (await api.uploadBytes('/v2/file', corpusBytes('stl', 'cube20_ascii.stl'), 'cube.stl')).body.file_id;
    // The slicer is held (stopped) the moment it runs: the job is certainly being sliced when the worker stops,
    // however fast the slice or slow the 202 (it may wait for the instant estimate), so a small part serves.
    const { held, answer } = await askUntilHeld(
      (i) => api.post(`/v2/file/quote/${file}/async`, { printer_config: { fill_density: 20 + i } }),
      async (asked) => ['completed', 'failed'].includes((await api.get(`/v2/jobs/${asked.body.job_id}`)).body.status),
    );
    const job = answer.body.job_id as string;
    try {
      assert.equal((await api.get(`/v2/jobs/${job}`)).body.status, 'processing', 'the worker took the job');
      await worker.deps.jobs.stop();
    } finally {
      held.release();
    }
    const [row] = await worker.deps.db.query<{ status: string; attempts: number; released: boolean }>(
      'SELECT status, attempts, lease_expires_at <= now() AS released FROM quotes WHERE id = $1',
      [job],
    );
    assert.deepEqual(row, { status: 'processing', attempts: 0, released: true }, 'claimable by another worker now');
  } finally {
    await worker.stop();
  }
});

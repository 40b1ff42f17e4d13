// Busy is not broken (docs/limits.md, "Fair parsing" and "Slicer time"): the budgets count the work a parse or a
// slice does, not how long it takes, so a host loaded by other work reads and prices a valid part as it would
// idle. The test loads the machine itself: a process spinning at normal priority on every core, until the shopper's
// quote is admitted. A merchant's quote of 3DBenchy (11 MB) is read and sliced under that load, and teaches the
// server its slicing speed; a shopper uploads the same part, and the shop's slicer budget of 24 s (twice what the
// part needs on the reference machine, 12 s) still admits it: the prediction follows the slicer's CPU time, not the
// hour's load (a prediction learnt from wall time grew to the 30 s and more the slice took under that load). Real
// slices; every wait is on a state a user would notice.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { after, before, test } from 'node:test';
import { processCpuMs } from '../../server/mesh/cpu-time.ts';
import { until } from '../helpers/poll.ts';
import { type ApiClient, merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';
import { widgetShopper } from '../helpers/shopper.ts';

const SHOP = 'https://busy-shop.example';
const BENCHY = readFileSync(new URL('../fixtures/models/stl/3DBenchy.stl', import.meta.url));
const BURNERS = Math.max(2, availableParallelism()); // every core busy with other work

let server: TestServer;
const burners: ChildProcess[] = [];

before(async () => {
  for (let i = 0; i < BURNERS; i++) burners.push(spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
  // Wait until every one of them is burning.
  await until('the burners to use CPU', 60_000, () =>
    burners.every((b) => (processCpuMs(b.pid!) ?? 0) > 0) ? true : undefined,
  );
  // No prefetches: the slices here are the ones the test asks for.
  server = await startTestServer({ PREFETCH_MAX_SECONDS: '0', QUOTE_SYNC_WAIT_MS: '0' });
  // Client and server share this starved process: a request sent on a kept-alive connection may be read only after
  // Node's 5 s idle timeout has closed it (ECONNRESET). That is connection handling, not what this test is about.
  server.server.keepAliveTimeout = 10 * 60_000;
});

/** Ends the load. */
const stopBurners = () => {
  for (const b of burners.splice(0)) b.kill('SIGKILL');
};

after(async () => {
  stopBurners();
  await server?.stop();
});

const completed = (client: { get(path: string): Promise<{ body: any }> }, jobId: string) =>
  until(`job ${jobId} to be priced`, 600_000, async () => {
    const job = (await client.get(`/v2/jobs/${jobId}`)).body;
    if (job.status === 'failed') assert.fail(`job ${jobId} failed: ${JSON.stringify(job.error)}`);
    return job.status === 'completed' ? job : undefined;
  });

test("on a loaded machine an 11 MB part is read and priced, and a shopper's quote of it stays within the shop's slicer budget", async (t) => {
  const shop = await merchantShop(server, 'busy-shop@example.test', SHOP);
  const api: ApiClient = shop.api;

  // The merchant's own quote: read under load, sliced under load, charged and learnt from in CPU seconds.
  const up = await api.uploadBytes('/v2/file', BENCHY, '3DBenchy.stl');
  assert.equal(up.status, 201, JSON.stringify(up.body));
  const merchants = await api.post(`/v2/file/quote/${up.body.file_id}/async`, {});
  assert.equal(merchants.status, 202, JSON.stringify(merchants.body));
  const priced = await completed(api, merchants.body.job_id);
  assert.ok(priced.result.total_price > 0, JSON.stringify(priced.result));
  const [charge] = await server.deps.db.query<{ seconds: number; reference_s: number }>(
    `SELECT seconds::float8 AS seconds, reference_s::float8 AS reference_s FROM slicer_usage WHERE outcome = 'ok'`,
  );
  assert.ok(charge && charge.seconds > 0, `charged ${JSON.stringify(charge)}`);
  const [slice] = await server.deps.db.query<{ duration_ms: number }>('SELECT duration_ms FROM slices');
  t.diagnostic(
    `slice: ${charge!.seconds} CPU s charged, ${slice?.duration_ms} ms wall, ${charge!.reference_s} s predicted on the reference machine`,
  );

  // The shop quotes parts of up to 24 s of slicer time online.
  const { source: _, ...offer } = (await api.get('/v2/offer')).body;
  assert.equal((await api.put('/v2/offer', { ...offer, max_slice_seconds: 24 })).status, 200);
  // A shopper's upload of the same part and a quote of it: the speed just learnt is read afresh.
  server.clock.advance(60_000);
  const shopper = widgetShopper(server, shop.key, SHOP);
  const fileId = await shopper.upload(BENCHY, '3DBenchy.stl');
  const asked = await shopper.post(`/v2/file/quote/${fileId}/async`, { choices: {} });
  assert.equal(asked.status, 202, JSON.stringify(asked.body));
  // Admitted on the speed learnt under load: the load has done its part, and the rest of the run (other tests beside
  // this one) need not pay for it while the shopper's part is sliced.
  stopBurners();
  const job = await completed({ get: (p) => shopper.get(p) }, asked.body.job_id);
  assert.ok(job.result.total_price > 0, JSON.stringify(job.result));
});

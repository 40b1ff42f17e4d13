// A worker killed with SIGKILL mid-slice: its job is taken over when the lease runs out, and completes; a server
// restarted on the same host takes it over at once, whatever the lease.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { createApiToken } from '../../server/accounts/api-tokens.ts';
import { insertAccount } from '../../server/accounts/sql.ts';
import { type Db, openPglite, openPostgres } from '../../server/db/index.ts';
import { migrate } from '../../server/db/migrate.ts';
import { eventsForAccount } from '../../server/outbox/sql.ts';
import { corpusPath } from '../helpers/corpus.ts';
import { until } from '../helpers/poll.ts';
import { spawnServer } from '../helpers/process.ts';
import { ApiClient, POSTGRES_URL, testDbKind } from '../helpers/server.ts';
import { askUntilHeld } from '../helpers/slicer-hold.ts';

const SECRET = 'crash-test-secret-0123456789-0123456789';

async function database(
  dataDir: string,
): Promise<{ env: Record<string, string>; open: () => Promise<Db>; drop: () => Promise<void> }> {
  if (testDbKind() === 'pglite') {
    return { env: {}, open: () => openPglite(path.join(dataDir, 'pglite')), drop: async () => {} };
  }
  const schema = `crash_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = `${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    env: { DATABASE_URL: url },
    open: () => openPostgres(POSTGRES_URL, { searchPath: schema, max: 2 }),
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}

test('kill -9 of the worker mid-slice: the job is reclaimed after its lease and completes; nothing is lost', () =>
  killedMidSlice('2000'));

// With a one-hour lease the job could only finish if the new process knew its predecessor on this host was dead.
test("a server restarted on the same host takes over its killed predecessor's job at once, from progress 0", () =>
  killedMidSlice('3600000'));

/**
 * A quote whose slicer is held (stopped) the moment it runs, in the server process `serverPid`: the job is mid-slice
 * however fast or loaded the host. A slicer found in its last moment may have ended before the signal: that quote
 * then finishes on its own, and another one (another infill: another slice) is asked.
 */
async function heldMidSlice(api: ApiClient, fileId: string, serverPid: number) {
  const ended = async (job: { body: { job_id?: string } }) => {
    const status = (await api.get(`/v2/jobs/${job.body.job_id}`)).body.status;
    return status === 'completed' || status === 'failed';
  };
  const { held, answer: job } = await askUntilHeld(
    (i) => api.post(`/v2/file/quote/${fileId}/async`, { printer_config: { fill_density: 20 + i } }),
    ended,
    serverPid,
  );
  assert.equal(job.status, 202, JSON.stringify(job.body));
  const id = job.body.job_id as string;
  const before = (await api.get(`/v2/jobs/${id}`)).body;
  assert.equal(before.status, 'processing', 'killed mid-slice');
  // The held slice is the job's only one: its worker never slices it again while its own slice runs, even when
  // its lease lapsed on a loaded host (it counted an attempt that was never lost: 3 at the end instead of 2).
  assert.equal(before.attempts, 1, JSON.stringify(before));
  return { id, held, before };
}

/** The server is killed while its slicer is held (stopped): the job is mid-slice however fast or loaded the host. */
async function killedMidSlice(leaseMs: string) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sq-crash-'));
  const db = await database(dataDir);
  // Create the account before the server holds the database (PGlite is single-process).
  const setup = await db.open();
  await migrate(setup);
  const account = await insertAccount(setup, {
    id: 'usr_crashtest',
    email: 'crash@example.test',
    password_hash: 'x',
    plan: 'pro',
    shop_name: null,
  });
  const { token } = await createApiToken(setup, SECRET, account.id, 'crash', new Date());
  await setup.close();
  const env = { ...db.env, DATA_DIR: dataDir, JWT_SECRET: SECRET, JOB_LEASE_MS: leaseMs, QUOTE_SYNC_WAIT_MS: '0' };
  let server = await spawnServer(env);
  try {
    let api = new ApiClient(server.url, token);
    const file = await api.uploadBytes(
      '/v2/file',
      new Uint8Array(readFileSync(corpusPath('stl', 'cube20_ascii.stl'))), // held mid-slice: a small part serves
      'cube.stl',
    );
    assert.equal(file.status, 201);
    const { id, held, before } = await heldMidSlice(api, file.body.file_id, server.child.pid!);
    await server.kill('SIGKILL');
    held.kill(); // the kernel kills it with its server where setpriv exists; a crashed host's slicer is gone too
    // The progress as the crash left it: a heartbeat may have written once more between the read above and the kill.
    const probe = await db.open();
    const [left] = await probe.query<{ progress: number }>('SELECT progress FROM quotes WHERE id = $1', [id]);
    await probe.close();

    server = await spawnServer(env);
    api = new ApiClient(server.url, token);
    // The killed slice's progress is never shown as if it went on: from the restart the job counts up again.
    const after = (await api.get(`/v2/jobs/${id}`)).body;
    assert.ok(before.progress <= left!.progress, 'what was shown before the crash was written');
    assert.ok(after.attempts === 2 || after.progress <= left!.progress, JSON.stringify({ before, left, after }));
    const done = await until('the job to finish after the restart', 360_000, async () => {
      const j = (await api.get(`/v2/jobs/${id}`)).body;
      return j.status === 'completed' || j.status === 'failed' ? j : undefined;
    });
    assert.equal(done.status, 'completed', JSON.stringify(done.error));
    assert.equal(done.attempts, 2, 'taken over once');
    assert.ok(done.result.filament_weight > 1, 'a 20 mm cube, sliced whole');
    await server.kill('SIGTERM');

    const check = await db.open();
    const events = (await eventsForAccount(check, account.id)).filter((e) => (e.payload as any).data.jobId === id);
    await check.close();
    assert.deepEqual(
      events.filter((e) => e.event === 'job.status_changed').map((e) => (e.payload as any).data.status),
      ['queued', 'processing', 'completed'],
    );
    assert.equal(events.filter((e) => e.event === 'quote.completed').length, 1, 'completed exactly once');
  } finally {
    await server.kill('SIGKILL');
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// Several hosts' worth of processes on PostgreSQL + Redis + S3-compatible storage: two API processes and two
// workers, each with its own DATA_DIR (nothing shared on disk). Upload through one API, quote through the
// other, kill -9 a busy worker: every quote completes exactly once. PGlite is one process, so this runs on
// PostgreSQL only. API_PROCESSES: several processes on one port.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createApiToken } from '../../server/accounts/api-tokens.ts';
import { insertAccount } from '../../server/accounts/sql.ts';
import { loadConfig } from '../../server/config.ts';
import { migrate } from '../../server/db/migrate.ts';
import { eventsForAccount } from '../../server/outbox/sql.ts';
import { corpusBytes } from '../helpers/corpus.ts';
import { until } from '../helpers/poll.ts';
import { type ServerProcess, spawnServer } from '../helpers/process.ts';
import { startTestS3 } from '../helpers/s3-server.ts';
import { ApiClient, POSTGRES_URL, testDbKind } from '../helpers/server.ts';
import { privateSchema } from '../helpers/server-process.ts';
import { holdSlicers, someSlicers } from '../helpers/slicer-hold.ts';

const SECRET = 'cluster-test-secret-0123456789-0123456789';
const onlyPostgres = testDbKind() !== 'postgres' && 'several processes share one database: PostgreSQL only';

test('two API processes and two workers on separate disks: quotes survive a killed worker, each completed once; a revocation reaches every process', {
  skip: onlyPostgres,
}, async () => {
  const database = await privateSchema('cluster');
  const db = await database.open();
  const s3 = await startTestS3();
  const dirs: string[] = [];
  const processes: ServerProcess[] = [];
  try {
    await migrate(db);
    const account = await insertAccount(db, {
      id: 'usr_cluster',
      email: 'cluster@example.test',
      password_hash: 'x',
      plan: 'business',
      shop_name: null,
    });
    const { token } = await createApiToken(db, SECRET, account.id, 'cluster', new Date());
    const shared = {
      ...s3.env,
      ...database.env,
      REDIS_URL: 'redis://127.0.0.1:6379',
      RATE_LIMIT_PREFIX: `sq:cluster:${Date.now()}:`,
      JWT_SECRET: SECRET,
      JOB_LEASE_MS: '3000',
      QUOTE_SYNC_WAIT_MS: '0',
      SLICER_CONCURRENCY: '1',
      SLICER_SHORT_LANE: '0',
    };
    const start = async (role: 'api' | 'worker') => {
      const dir = mkdtempSync(path.join(tmpdir(), `sq-cluster-${role}-`));
      dirs.push(dir);
      const p = await spawnServer({ ...shared, WORKER_ROLE: role, DATA_DIR: dir });
      processes.push(p);
      return p;
    };
    const [api1, api2] = [await start('api'), await start('api')];
    const workers = [await start('worker'), await start('worker')];

    const upload = await new ApiClient(api1.url, token).uploadBytes(
      '/v2/file',
      corpusBytes('stl', 'cube20_ascii.stl'), // a killed worker's slice is held mid-run: a small part serves
      'cube.stl',
    );
    assert.equal(upload.status, 201);
    const quotes = new ApiClient(api2.url, token);
    // The first worker seen slicing is held the moment its slice runs, so it is certainly mid-job when it is killed,
    // however fast or loaded the machine is (a slice that finished first would leave nothing to take over). Either
    // worker: on a loaded host one of them may claim every job before the other wakes. Watched from before the
    // first quote is asked: on a loaded host the four requests take longer than a small part's slices.
    const slicing = until("a worker's slicer to start", 120_000, () => {
      for (const w of workers) {
        const found = someSlicers(w.child.pid!);
        if (found) return [w, holdSlicers(found)] as const;
      }
      return undefined;
    });
    const jobs: string[] = [];
    for (const infill of [10, 30, 50, 70]) {
      const res = await quotes.post(`/v2/file/quote/${upload.body.file_id}/async`, {
        printer_config: { fill_density: infill },
      });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      jobs.push(res.body.job_id);
    }
    const [victim, held] = await slicing;
    await victim.kill('SIGKILL');
    held.kill(); // a crashed host's slicer is gone with it

    const done = await until('every job to finish', 240_000, async () => {
      const all = await Promise.all(jobs.map(async (id) => (await quotes.get(`/v2/jobs/${id}`)).body));
      return all.every((j) => j.status === 'completed' || j.status === 'failed') ? all : undefined;
    });
    for (const job of done) assert.equal(job.status, 'completed', JSON.stringify(job.error));
    assert.ok(
      done.some((j) => j.attempts === 2),
      "the killed worker's job was taken over",
    );
    const weights = done.map((j) => j.result.filament_weight);
    assert.ok(weights[0] < weights[3], `more infill weighs more: ${weights.join(', ')}`);

    const completed = await eventsForAccount(db, account.id, 'quote.completed');
    for (const id of jobs) {
      assert.equal(
        completed.filter((e) => (e.payload as any).data.quoteId === id).length,
        1,
        `${id} completed exactly once`,
      );
    }

    // A token revoked by one process is refused at once by the others, though they cache token rows for 30 s.
    const readers = [new ApiClient(api1.url, token), new ApiClient(api2.url, token)];
    for (const r of readers) assert.equal((await r.get('/v2/user')).status, 200);
    await db.query('UPDATE api_tokens SET revoked_at = now() WHERE account_id = $1', [account.id]);
    await db.notify('slicequote_tokens');
    // A hundred polls (a few seconds) end long before the cache's 30 s could: only the notification can do it.
    await until('both API processes to refuse the revoked token', 5_000, async () => {
      const statuses = await Promise.all(readers.map(async (r) => (await r.get('/v2/user')).status));
      return statuses.every((s) => s === 401) ? true : undefined;
    });
  } finally {
    for (const p of processes) await p.kill('SIGKILL');
    await db.close();
    await database.drop();
    await s3.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
});

test('API_PROCESSES=2 serves one port from two processes, restarts one that dies, and stops them all on SIGTERM', {
  skip: onlyPostgres,
}, async () => {
  const database = await privateSchema('cluster');
  const db = await database.open();
  const dir = mkdtempSync(path.join(tmpdir(), 'sq-cluster-procs-'));
  let supervisor: ServerProcess | undefined;
  const children = () => {
    const out = spawnSync('pgrep', ['-P', String(supervisor!.child.pid)], { encoding: 'utf8' }).stdout;
    return out.split('\n').filter(Boolean).map(Number).sort();
  };
  try {
    await migrate(db);
    const account = await insertAccount(db, {
      id: 'usr_procs',
      email: 'procs@example.test',
      password_hash: 'x',
      plan: 'business',
      shop_name: null,
    });
    const { token } = await createApiToken(db, SECRET, account.id, 'procs', new Date());
    supervisor = await spawnServer({
      ...database.env,
      JWT_SECRET: SECRET,
      DATA_DIR: dir,
      API_PROCESSES: '2',
    });
    const first = await until('two API processes', 90_000, async () =>
      children().length === 2 ? children() : undefined,
    );
    const api = new ApiClient(supervisor.url, token);
    for (let i = 0; i < 10; i++) assert.equal((await api.get('/v2/user')).status, 200);

    const [killed, kept] = first;
    assert.ok(killed !== undefined && kept !== undefined);
    process.kill(killed, 'SIGKILL');
    const replaced = await until('the dead process to be replaced', 90_000, async () => {
      const now = children();
      return now.length === 2 && !now.includes(killed) ? now : undefined;
    });
    assert.ok(replaced.includes(kept), 'the other process kept serving');
    await until('the port to answer again from both', 30_000, async () =>
      (await api.get('/v2/user')).status === 200 ? true : undefined,
    );

    const all = [...replaced];
    await supervisor.kill('SIGTERM');
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await until('every API process to stop', 20_000, async () => (all.every((pid) => !alive(pid)) ? true : undefined));
  } finally {
    await supervisor?.kill('SIGKILL');
    await db.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('API_PROCESSES above 1 is refused without PostgreSQL, and for a worker', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sq-cluster-config-'));
  try {
    assert.throws(() => loadConfig({ DATA_DIR: dir, API_PROCESSES: '2' }), /API_PROCESSES above 1 needs DATABASE_URL/);
    assert.throws(
      () => loadConfig({ DATA_DIR: dir, API_PROCESSES: '2', DATABASE_URL: POSTGRES_URL, WORKER_ROLE: 'worker' }),
      /WORKER_ROLE=all or api/,
    );
    assert.equal(loadConfig({ DATA_DIR: dir, API_PROCESSES: '3', DATABASE_URL: POSTGRES_URL }).apiProcesses, 3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

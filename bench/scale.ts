// `npm run bench -- scale`: slicing throughput with one and with two worker processes (one slice each) behind
// one API process on PostgreSQL, and how long an idle worker in another process takes to start a new job
// (PostgreSQL LISTEN/NOTIFY; polling alone would take up to a second).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { createApiToken } from '../server/accounts/api-tokens.ts';
import { insertAccount } from '../server/accounts/sql.ts';
import type { Db } from '../server/db/index.ts';
import { migrate } from '../server/db/migrate.ts';
import { type ServerProcess, spawnServer } from '../test/helpers/process.ts';
import { ApiClient } from '../test/helpers/server.ts';
import { privateSchema } from '../test/helpers/server-process.ts';
import { bareSliceCores } from './slicer.ts';

const SECRET = 'bench-scale-secret-0123456789-0123456789';
const JOBS = 6;
const PICKUPS = 7;

const median = (xs: number[]): number => {
  if (xs.length === 0) throw new Error('median of no samples');
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchScale(modelsDir: string) {
  const benchy = new Uint8Array(readFileSync(path.join(modelsDir, 'stl', '3DBenchy.stl')));
  const one = await run(1, benchy);
  const two = await run(2, benchy);
  const slice = await bareSliceCores(path.join(modelsDir, 'stl', '3DBenchy.stl'));
  return {
    note: 'PostgreSQL; one API process and N worker processes with SLICER_CONCURRENCY=1; 3DBenchy, a different infill per job so none is cached',
    jobs: JOBS,
    quotes_per_minute: {
      one_worker: one.perMinute,
      two_workers: two.perMinute,
      ratio: +(two.perMinute / one.perMinute).toFixed(2),
    },
    // What two processes can gain at most here: PrusaSlicer already spreads one slice over several threads.
    one_bare_slice: slice,
    ratio_ceiling_on_this_machine: +Math.min(2, cpus().length / slice.cores_busy).toFixed(2),
    idle_worker_pickup_ms: { median: median(two.pickups), max: Math.max(...two.pickups), samples: two.pickups.length },
  };
}

async function run(workers: number, benchy: Uint8Array) {
  const database = await privateSchema('bench');
  const db = await database.open();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sq-bench-scale-'));
  const processes: ServerProcess[] = [];
  try {
    await migrate(db);
    const account = await insertAccount(db, {
      id: 'usr_bench',
      email: 'bench@example.test',
      password_hash: 'x',
      plan: 'business',
      shop_name: null,
    });
    const { token } = await createApiToken(db, SECRET, account.id, 'bench', new Date());
    const env = {
      ...database.env,
      JWT_SECRET: SECRET,
      DATA_DIR: dataDir,
      QUOTE_SYNC_WAIT_MS: '0',
      SLICER_CONCURRENCY: '1',
    };
    const api = await spawnServer({ ...env, WORKER_ROLE: 'api' });
    processes.push(api);
    for (let i = 0; i < workers; i++) processes.push(await spawnServer({ ...env, WORKER_ROLE: 'worker' }));
    const client = new ApiClient(api.url, token);
    const fileId = (await client.uploadBytes('/v2/file', benchy, '3DBenchy.stl')).body.file_id as string;
    const quote = async (infill: number) =>
      (await client.post(`/v2/file/quote/${fileId}/async`, { printer_config: { fill_density: infill } })).body
        .job_id as string;

    const started = performance.now();
    const ids = await Promise.all(Array.from({ length: JOBS }, (_, i) => quote(10 + i)));
    await allDone(db, ids);
    const perMinute = +((JOBS / ((performance.now() - started) / 1000)) * 60).toFixed(1);

    const pickups: number[] = [];
    for (let i = 0; i < PICKUPS; i++) {
      await sleep(300); // every worker idle, waiting
      const id = await quote(40 + i);
      await allDone(db, [id]);
      const [row] = await db.query<{ ms: number }>(
        'SELECT extract(epoch FROM started_at - created_at) * 1000 AS ms FROM quotes WHERE id = $1',
        [id],
      );
      if (!row) throw new Error(`quote ${id} is not in the database`);
      pickups.push(Math.round(row.ms));
    }
    return { perMinute, pickups };
  } finally {
    for (const p of processes) await p.kill('SIGTERM');
    await db.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function allDone(db: Db, ids: string[]) {
  for (;;) {
    const rows = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM quotes WHERE id = ANY($1) AND status IN ('completed', 'failed')`,
      [ids],
    );
    if (rows[0]!.n === ids.length) return; // count(*) returns exactly one row
    await sleep(50);
  }
}

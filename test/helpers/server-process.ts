// A real server process (server/main.ts) with one Pro account, on PGlite or a private PostgreSQL schema,
// whose memory can be read from /proc: for the hostile-upload test and `npm run bench`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createApiToken } from '../../server/accounts/api-tokens.ts';
import { insertAccount } from '../../server/accounts/sql.ts';
import { type Db, openPglite, openPostgres } from '../../server/db/index.ts';
import { migrate } from '../../server/db/migrate.ts';
import { type ServerProcess, spawnServer } from './process.ts';
import { ApiClient, POSTGRES_URL } from './server.ts';

const SECRET = 'server-process-secret-0123456789-0123456789';

export interface MeasuredServer {
  process: ServerProcess;
  /** A client holding the account's API token. */
  api: ApiClient;
  /** Resident memory now, and at its peak since start or the last resetPeak(), in bytes. */
  rss(): { current: number; peak: number };
  resetPeak(): void;
  /** On PostgreSQL, a connection of another process to the server's database; PGlite is the server's alone. */
  sideDb?: () => Promise<Db>;
  stop(): Promise<void>;
}

export async function startMeasuredServer(
  kind: 'pglite' | 'postgres',
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<MeasuredServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sq-measured-'));
  const db = await testDatabase(kind, dataDir);
  // The account exists before the server holds the database (PGlite is single-process).
  const setup = await db.open();
  await migrate(setup);
  const account = await insertAccount(setup, {
    id: 'usr_measured',
    email: 'measured@example.test',
    password_hash: 'x',
    plan: 'pro',
    shop_name: null,
  });
  const { token } = await createApiToken(setup, SECRET, account.id, 'measured', new Date());
  await setup.close();
  const child = await spawnServer({ ...db.env, DATA_DIR: dataDir, JWT_SECRET: SECRET, ...env }, nodeArgs);
  const status = () => readFileSync(`/proc/${child.child.pid}/status`, 'utf8');
  const kb = (text: string, field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)![1]) * 1024;
  return {
    process: child,
    api: new ApiClient(child.url, token),
    rss() {
      const text = status();
      return { current: kb(text, 'VmRSS'), peak: kb(text, 'VmHWM') };
    },
    // Writing 5 to clear_refs resets the process's peak RSS (VmHWM) to its current RSS.
    resetPeak: () => writeFileSync(`/proc/${child.child.pid}/clear_refs`, '5'),
    ...(kind === 'postgres' ? { sideDb: () => db.open() } : {}),
    async stop() {
      await child.kill();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A database for a spawned server: PGlite inside its DATA_DIR, or a private schema in the real PostgreSQL. */
export async function testDatabase(kind: 'pglite' | 'postgres', dataDir: string): Promise<TestDatabase> {
  return kind === 'pglite' ? pgliteIn(dataDir) : await privateSchema();
}

export interface TestDatabase {
  env: Record<string, string>;
  open(): Promise<Db>;
  drop(): Promise<void>;
}

function pgliteIn(dataDir: string): TestDatabase {
  return { env: {}, open: () => openPglite(path.join(dataDir, 'pglite')), drop: async () => {} };
}

/** A private schema in the test PostgreSQL, its DATABASE_URL for a server process, and its removal. */
export async function privateSchema(prefix = 'measured'): Promise<TestDatabase> {
  const schema = `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: POSTGRES_URL });
    await c.connect();
    await c.query(sql);
    await c.end();
  };
  await admin(`CREATE SCHEMA ${schema}`);
  return {
    env: { DATABASE_URL: `${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}` },
    open: () => openPostgres(POSTGRES_URL, { searchPath: schema, max: 2 }),
    drop: () => admin(`DROP SCHEMA ${schema} CASCADE`),
  };
}

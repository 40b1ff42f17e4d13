// One database interface over PGlite (embedded, in-process) and PostgreSQL (pg pool).
// Both speak the same SQL dialect, so every query module and migration serves both.

import { chmod, lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';

export type { Db, Queryable } from './types.ts';

import type { Db, Queryable } from './types.ts';

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

// int8 and numeric arrive as strings from pg; we keep counts within float64 range and want numbers.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

/**
 * PGlite unpacks a new database with mode 666 files whatever the umask (its file system sets modes itself);
 * the files Postgres creates afterwards are 600. Closing the modes after each open keeps the database private
 * (docs/security.md) without waiting for PGlite to rewrite them.
 */
async function makePrivate(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    const p = path.join(dir, name);
    const st = await lstat(p);
    if (st.isSymbolicLink()) continue;
    const wanted = st.isDirectory() ? 0o700 : 0o600;
    if ((st.mode & 0o777) !== wanted) await chmod(p, wanted);
    if (st.isDirectory()) await makePrivate(p);
  }
}

/**
 * The embedded database runs inside this process: PostgreSQL's server-sized defaults (128 MB of shared buffers)
 * are cut to what a one-shop database needs, and the operating system's file cache serves the rest. Every page of
 * the buffers that has been used stays resident in this process for its life: 8 MB holds the tables a request
 * reads (accounts, tokens, usage counters, a page of quotes) many times over.
 */
const PGLITE_CONF = [
  'shared_buffers = 8MB',
  'wal_buffers = 1MB',
  'temp_buffers = 2MB',
  'work_mem = 4MB',
  'maintenance_work_mem = 16MB',
];

/**
 * `loadDataDir`: start from a data folder PGlite dumped (`dumpDataDir`) instead of creating one, which runs
 * initdb in a second PGlite (seconds of CPU); the tests start each server's database from one such dump.
 */
export async function openPglite(dataDir: string | null, opts: { loadDataDir?: Blob } = {}): Promise<Db> {
  // int8 and numeric as numbers, as on PostgreSQL. Given once here rather than with each query: per query,
  // PGlite copies its whole parser table to merge them in.
  const parsers = { 20: (v: string) => Number(v), 1700: (v: string) => Number(v) };
  // Loaded here, not at the top: a process on PostgreSQL never loads PGlite (tens of MB of resident code).
  const [{ PGlite }, { createPgliteQuery }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('./pglite-query.ts'),
  ]);
  const db = await PGlite.create({
    ...(dataDir ? { dataDir } : {}),
    ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
    postgresqlconf: PGLITE_CONF,
    parsers,
  });
  if (dataDir) await makePrivate(dataDir);
  const run = createPgliteQuery(db);
  return {
    kind: 'pglite',
    query: <T>(sql: string, params: unknown[] = []) => run<T>(sql, params, false),
    transaction<T>(fn: (tx: Queryable) => Promise<T>) {
      return db.transaction(() => fn({ query: <R>(sql: string, params: unknown[] = []) => run<R>(sql, params, true) }));
    },
    async exec(sql: string) {
      await db.exec(sql);
    },
    // One process, one connection: only what the database itself notifies (triggers) arrives here.
    async listen(channel, onNotify) {
      if (!CHANNEL.test(channel)) throw new Error(`invalid channel name ${channel}`);
      await db.listen(channel, () => onNotify());
    },
    async notify() {},
    close: () => db.close(),
  };
}

export async function openPostgres(url: string, opts: { searchPath?: string; max?: number } = {}): Promise<Db> {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    ...(opts.searchPath ? { options: `-c search_path=${opts.searchPath}` } : {}),
  });
  pool.on('error', () => {}); // an idle client dying must not crash the process; the next query reconnects
  // The schema this deployment's tables are in: its notifications name it, and those naming another are not its.
  const { schema } = (await pool.query<{ schema: string | null }>('SELECT current_schema() AS schema')).rows[0]!;
  const listeners = createListeners(url, schema ?? '');
  return {
    kind: 'postgres',
    async query<T>(sql: string, params: unknown[] = []) {
      return (await pool.query(sql, params)).rows as T[];
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>) {
      const client = await pool.connect();
      // One connection runs one statement at a time: statements asked together (Promise.all) wait their turn, in
      // the order they were asked, instead of being queued by pg itself (deprecated, and gone in pg 9).
      let turn: Promise<unknown> = Promise.resolve();
      try {
        await client.query('BEGIN');
        const result = await fn({
          query: <R>(sql: string, params: unknown[] = []) => {
            const run = turn.then(() => client.query(sql, params));
            turn = run.catch(() => {});
            return run.then((r) => r.rows as R[]);
          },
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
    listen: listeners.listen,
    async notify(channel) {
      if (!CHANNEL.test(channel)) throw new Error(`invalid channel name ${channel}`);
      await pool.query('SELECT pg_notify($1, $2)', [channel, schema ?? '']);
    },
    async close() {
      await listeners.close();
      await pool.end();
    },
  };
}

/**
 * One LISTEN connection per process for every channel, reconnected a second after it drops. Channels are the
 * database's: a notification is this deployment's when it names `schema` (the triggers of migration 034 and
 * `notify` name theirs), or names none.
 */
function createListeners(url: string, schema: string) {
  const handlers = new Map<string, Set<() => void>>();
  let client: pg.Client | null = null;
  let connecting: Promise<void> | null = null;
  let closed = false;

  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (n) => {
      if (!n.payload || n.payload === schema) wake(handlers.get(n.channel));
    });
    c.on('error', () => {
      if (client !== c || closed) return;
      client = null;
      c.end().catch(() => {});
      setTimeout(() => void ensure().catch(() => {}), 1000).unref();
    });
    await c.connect();
    for (const channel of handlers.keys()) await c.query(`LISTEN ${channel}`);
    client = c;
    // A reconnect may have missed notifications: wake everyone once.
    for (const set of handlers.values()) wake(set);
  }

  function wake(set: Set<() => void> | undefined) {
    for (const fn of set ?? []) fn();
  }

  function ensure(): Promise<void> {
    if (client || closed) return Promise.resolve();
    connecting ??= connect().finally(() => (connecting = null));
    return connecting;
  }

  return {
    async listen(channel: string, onNotify: () => void) {
      if (!CHANNEL.test(channel)) throw new Error(`invalid channel name ${channel}`);
      const known = handlers.has(channel);
      if (!known) handlers.set(channel, new Set());
      handlers.get(channel)!.add(onNotify);
      if (client && !known) await client.query(`LISTEN ${channel}`);
      else await ensure();
    },
    async close() {
      closed = true;
      await connecting?.catch(() => {});
      await client?.end().catch(() => {});
      client = null;
    },
  };
}

export { type KeptWhileUnchanged, keptWhileUnchanged } from './kept-while-unchanged.ts';
// The folder's front door: what other folders use of it.
export { migrate } from './migrate.ts';
export { perTurn } from './per-turn.ts';
export { firstRow } from './rows.ts';

// The test servers' PGlite databases start from a dumped data folder instead of each running initdb: PGlite runs
// initdb in a second PGlite, seconds of CPU per database, and the server suite opens one or more per test file.
// The dump is made once per PGlite version (and, migrated, once per set of migrations) and kept in the user's own
// folder in the system's temporary folder for the next test processes. A database loaded from it is a real PGlite
// with the same files as one created afresh; creating and migrating afresh is still tested where it is the
// subject (the migration tests apply migrations to an empty database, spawned servers create theirs, and
// PostgreSQL migrates every time). The dump leaves out the template databases (template0 and template1), which the
// server never uses: each test server then opens its database for about a third of the CPU (15 MB fewer to load).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { migrate, openPglite } from '../../server/db/index.ts';
import { listMigrations } from '../../server/db/migrate.ts';

const pgliteVersion = (): string => {
  const require = createRequire(import.meta.url);
  const dist = path.dirname(require.resolve('@electric-sql/pglite')); // its package.json is not exported
  return JSON.parse(readFileSync(path.join(dist, '..', 'package.json'), 'utf8')).version;
};

const dumps = new Map<string, Promise<Blob>>();

/**
 * A dump of an empty database (`migrated: false`) or of one with every migration applied, made on first use.
 * Its file name carries a hash of what it was made from, so a new PGlite or a changed migration makes a new one.
 */
export function pgliteTemplate(migrated: boolean): Promise<Blob> {
  const made = createHash('sha256').update(pgliteVersion()).update('\0without template databases');
  if (migrated) for (const m of listMigrations()) made.update(`\0${m.name}\0${m.sql}`);
  const file = path.join(templateDir(), `pglite-${made.digest('hex').slice(0, 16)}.tar`);
  let dump = dumps.get(file);
  if (!dump) {
    dump = readOrMake(file, migrated);
    dumps.set(file, dump);
  }
  return dump;
}

/** The user's own folder for the dumps (mode 700: no other user of the machine can put a database there). */
function templateDir(): string {
  const dir = path.join(tmpdir(), `slicequote-test-templates-${process.getuid?.() ?? 0}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  if ((st.mode & 0o077) !== 0 || (process.getuid && st.uid !== process.getuid()))
    throw new Error(`${dir} belongs to another user or is open to them: remove it`);
  return dir;
}

async function readOrMake(file: string, migrated: boolean): Promise<Blob> {
  if (existsSync(file)) return new Blob([readFileSync(file)]);
  // Made in a folder of its own through the server's own openPglite (and migrations), then dumped.
  const dir = mkdtempSync(path.join(tmpdir(), 'sq-pglite-template-'));
  try {
    const db = await openPglite(path.join(dir, 'pgdata'));
    if (migrated) await migrate(db);
    const templates = await db.query<{ oid: number }>("SELECT oid FROM pg_database WHERE datname LIKE 'template%'");
    await db.close();
    for (const { oid } of templates) rmSync(path.join(dir, 'pgdata', 'base', String(oid)), { recursive: true });
    const pg = await PGlite.create({ dataDir: path.join(dir, 'pgdata') });
    const dump = await pg.dumpDataDir('none');
    await pg.close();
    // Written beside its final name, then renamed: a test process reading it never sees half a file.
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, new Uint8Array(await dump.arrayBuffer()));
    renameSync(partial, file);
    return dump;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

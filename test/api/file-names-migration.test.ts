// Upgrading a shop whose stored file names hold bidirectional controls: migration 021 removes them, so a name
// stored as "\u202Egnp.stl" (shown as "lts.png") reads "gnp.stl"; names without them are left as they were.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listMigrations } from '../../server/db/migrate.ts';
import { openTestDb } from '../helpers/server.ts';

test('migration 021 removes bidi controls from stored file names and keeps every other name', async () => {
  const { db, drop } = await openTestDb();
  try {
    const run = async (keep: (version: number) => boolean) => {
      for (const m of listMigrations().filter((x) => keep(x.version))) await db.exec(m.sql);
    };
    await run((v) => v < 21);
    await db.query(
      `INSERT INTO accounts (id, email, password_hash, plan) VALUES ('usr_old', 'old@example.test', 'x', 'pro')`,
    );
    const names: Record<string, [string, string]> = {
      file_override: ['\u202Egnp.stl', 'gnp.stl'],
      file_isolates: ['a\u2066b\u2067c\u2068d\u2069e\u200E\u200F\u061C\u202A\u202B\u202C\u202D.obj', 'abcde.obj'],
      file_only: [' \u202E ', 'model'],
      file_plain: ['Ünïcødé 😀 part (2).3mf', 'Ünïcødé 😀 part (2).3mf'],
      file_arabic: ['قطعة.stl', 'قطعة.stl'],
    };
    for (const [id, [stored]] of Object.entries(names))
      await db.query(
        `INSERT INTO files (id, account_id, name, format, content_type, size_bytes, sha256, mesh_sha256, measurements, footprint, source)
         VALUES ($1, 'usr_old', $2, 'stl', 'model/stl', 1, '', '', '{}', '[]', 'api')`,
        [id, stored],
      );
    await run((v) => v === 21);
    const rows = await db.query<{ id: string; name: string }>('SELECT id, name FROM files ORDER BY id');
    assert.deepEqual(
      Object.fromEntries(rows.map((r) => [r.id, r.name])),
      Object.fromEntries(Object.entries(names).map(([id, [, cleaned]]) => [id, cleaned])),
    );
  } finally {
    await db.close();
    await drop();
  }
});

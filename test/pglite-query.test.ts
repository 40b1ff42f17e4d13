// The embedded database's query path (server/db/pglite-query.ts): one call per statement, each SQL text prepared
// once. What must hold: results as PostgreSQL gives them, a prepared statement that a migration made stale is
// prepared again, a failed statement leaves nothing prepared behind, and no query of another request lands
// inside an open transaction.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPglite } from '../server/db/index.ts';

test('parameters are encoded as node-postgres encodes them, and rows come back typed', async () => {
  const db = await openPglite(null);
  try {
    const [row] = await db.query<Record<string, unknown>>(
      'SELECT $1::jsonb AS j, $2::timestamptz AS d, $3::text[] AS arr, $4::boolean AS b, $5::bigint AS n, $6::text AS nothing',
      [
        JSON.stringify({ x: [1, 'two'] }),
        new Date('2026-01-02T03:04:05.678Z'),
        ['a', 'b,c', 'd"e'],
        true,
        2 ** 40,
        null,
      ],
    );
    assert.deepEqual(row, {
      j: { x: [1, 'two'] },
      d: new Date('2026-01-02T03:04:05.678Z'),
      arr: ['a', 'b,c', 'd"e'],
      b: true,
      n: 2 ** 40,
      nothing: null,
    });
  } finally {
    await db.close();
  }
});

test('a statement prepared before a migration changed its table is prepared again, not failed', async () => {
  const db = await openPglite(null);
  try {
    await db.exec('CREATE TABLE parts (id int PRIMARY KEY)');
    await db.query('INSERT INTO parts VALUES ($1)', [1]);
    assert.deepEqual(await db.query('SELECT * FROM parts WHERE id = $1', [1]), [{ id: 1 }]);
    await db.exec('ALTER TABLE parts ADD COLUMN name text');
    // PostgreSQL refuses a prepared SELECT * whose columns changed ("cached plan must not change result type").
    assert.deepEqual(await db.query('SELECT * FROM parts WHERE id = $1', [1]), [{ id: 1, name: null }]);
  } finally {
    await db.close();
  }
});

test('a statement that failed leaves no prepared statement behind; one that succeeded is prepared once', async () => {
  const db = await openPglite(null);
  try {
    await db.exec('CREATE TABLE parts (id int PRIMARY KEY)');
    const prepared = async () =>
      (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements'))[0]!.n;
    const before = await prepared();
    for (let i = 0; i < 5; i++) {
      await assert.rejects(db.query('INSERT INTO parts VALUES ($1)', ['not a number']), { code: '22P02' });
      await assert.rejects(db.query('SELECT missing FROM parts WHERE id = $1', [i]), { code: '42703' });
    }
    // Inside a transaction too, the caller sees the statement's own error, not one from tidying up after it.
    await db.query('INSERT INTO parts VALUES ($1)', [100]);
    await assert.rejects(
      db.transaction((tx) => tx.query('INSERT INTO parts (id) VALUES ($1)', [100])),
      { code: '23505' },
    );
    // (The count query was prepared by its first run, before it counted; the first insert is the one statement since.)
    assert.equal(await prepared(), before + 1, 'nothing left prepared by the eleven failures');
    for (let i = 0; i < 5; i++) await db.query('INSERT INTO parts VALUES ($1)', [i]);
    assert.equal(await prepared(), before + 1, 'five more runs of that statement, prepared once');
  } finally {
    await db.close();
  }
});

test('a query from outside waits for an open transaction, which sees only its own statements', async () => {
  const db = await openPglite(null);
  try {
    await db.exec('CREATE TABLE parts (id int PRIMARY KEY)');
    let outside: Promise<unknown> | undefined;
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO parts VALUES ($1)', [1]);
        let outsideDone = false;
        outside = db.query('INSERT INTO parts VALUES ($1)', [2]).then(() => {
          outsideDone = true;
        }); // another request meanwhile
        assert.deepEqual(await tx.query('SELECT id FROM parts ORDER BY id'), [{ id: 1 }]);
        assert.equal(outsideDone, false, 'the outside request waits for the transaction');
        throw new Error('roll back');
      }),
      /roll back/,
    );
    await outside;
    // The rollback took the transaction's row only; the other request's row was written after it.
    assert.deepEqual(await db.query('SELECT id FROM parts ORDER BY id'), [{ id: 2 }]);
  } finally {
    await db.close();
  }
});

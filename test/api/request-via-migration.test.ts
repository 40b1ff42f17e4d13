// Upgrading a server whose request log predates caller kinds: migration 014 classifies the rows it finds
// (a token id: token; a /v2/widget route: widget; the rest: session), and afterwards every row must have one.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listMigrations } from '../../server/db/migrate.ts';
import { openTestDb } from '../helpers/server.ts';

test('migration 014 gives logged requests a caller kind and refuses rows without a valid one afterwards', async () => {
  const { db, drop } = await openTestDb();
  try {
    const run = async (keep: (version: number) => boolean) => {
      for (const m of listMigrations().filter((x) => keep(x.version))) await db.exec(m.sql);
    };
    await run((v) => v < 14);
    await db.query(
      `INSERT INTO accounts (id, email, password_hash, plan) VALUES ('usr_old', 'old@example.test', 'x', 'pro')`,
    );
    const logged = (token: string | null, route: string) =>
      db.query(
        `INSERT INTO api_requests (account_id, token_id, method, route, status, duration_ms, created_at) VALUES ('usr_old', $1, 'GET', $2, 200, 1, now())`,
        [token, route],
      );
    await logged('tok_a', '/v2/user');
    await logged('tok_a', '/v2/widget/config'); // a token on a widget route is still the token
    await logged(null, '/v2/widget/config');
    await logged(null, '/v2/quotes');
    await run((v) => v === 14);
    const rows = await db.query<{ token_id: string | null; route: string; via: string }>(
      'SELECT token_id, route, via FROM api_requests ORDER BY id',
    );
    assert.deepEqual(
      rows.map((r) => r.via),
      ['token', 'token', 'widget', 'session'],
    );
    await assert.rejects(
      db.query(
        `INSERT INTO api_requests (account_id, method, route, status, duration_ms, created_at) VALUES ('usr_old', 'GET', '/v2/user', 200, 1, now())`,
      ),
      /null/i,
    );
    await assert.rejects(
      db.query(
        `INSERT INTO api_requests (account_id, via, method, route, status, duration_ms, created_at) VALUES ('usr_old', 'robot', 'GET', '/v2/user', 200, 1, now())`,
      ),
      /check/i,
    );
  } finally {
    await db.close();
    await drop();
  }
});

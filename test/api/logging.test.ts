// Logs an operator can search: a real server process writes one JSON object per line, with an access log line
// per request that carries the id returned in X-Request-Id (the caller's own id when it sent a plain one).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { until } from '../helpers/poll.ts';
import { spawnServer } from '../helpers/process.ts';
import { testDbKind } from '../helpers/server.ts';
import { testDatabase } from '../helpers/server-process.ts';

// No deadline of its own: a cold start of a server process (loading the server's modules, and on PGlite creating
// its database, 27 s of the 50 s it took at a load of 24) is waited for as a condition (spawnServer).
test('every request has an id and one JSON access log line; a bad LOG_LEVEL stops start-up', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sq-logs-'));
  const db = await testDatabase(testDbKind(), dir);
  const server = await spawnServer({
    ...db.env,
    DATA_DIR: dir,
    JWT_SECRET: 'logging-test-secret-0123456789-0123456789',
  });
  try {
    const mine = await fetch(`${server.url}/v2/user`, { headers: { 'x-request-id': 'trace-42.a' } });
    assert.equal(mine.status, 401);
    assert.equal(mine.headers.get('x-request-id'), 'trace-42.a');
    const hostile = await fetch(`${server.url}/v2/quotes/qt_none`, {
      headers: { 'x-request-id': 'bad id\twith "quotes"' },
    });
    const fresh = hostile.headers.get('x-request-id') ?? '';
    assert.match(fresh, /^[0-9a-f-]{36}$/, 'an unsafe id is replaced');
    const lines = () =>
      server
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
    const access = (id: string) => lines().filter((l) => l.msg === 'request' && l.request_id === id);
    // The access line is written as the answer finishes: wait until both requests' lines are out.
    await until(
      'both access log lines',
      20_000,
      () => (access('trace-42.a').length && access(fresh).length) || undefined,
    );
    assert.equal(access('trace-42.a').length, 1);
    assert.deepEqual((({ method, route, status }) => ({ method, route, status }))(access('trace-42.a')[0]), {
      method: 'GET',
      route: '/v2/user',
      status: 401,
    });
    // The line has the shape of every other line (pino's level, time and pid first, msg last) and the documented fields.
    assert.deepEqual(Object.keys(access('trace-42.a')[0]), [
      'level',
      'time',
      'pid',
      'request_id',
      'method',
      'route',
      'path',
      'status',
      'duration_ms',
      'msg',
    ]);
    assert.equal(access('trace-42.a')[0].level, 30); // pino's info
    assert.equal(access('trace-42.a')[0].pid, server.child.pid);
    assert.equal(access(fresh)[0]?.path, '/v2/quotes/qt_none');
    assert.equal(access(fresh)[0]?.status, 401);
    assert.ok(typeof access(fresh)[0].duration_ms === 'number' && typeof access(fresh)[0].time === 'number');
    // Access lines are held a moment to be written together: a server stopped right after answering still writes them.
    const last = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'last-before-stop' } });
    assert.equal(last.status, 200);
    await server.kill('SIGTERM');
    const stdout = server.child.stdout!;
    if (!stdout.readableEnded) await once(stdout, 'end'); // all the stopped server wrote has been read
    assert.equal(access('last-before-stop').length, 1);
  } finally {
    await server.kill('SIGTERM');
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  await assert.rejects(spawnServer({ DATA_DIR: dir, LOG_LEVEL: 'loud' }), /LOG_LEVEL must be one of/);
  rmSync(dir, { recursive: true, force: true });
});

test('access lines held to be written together are written when the process exits at once', async () => {
  const script = `import { createLogger } from './server/http/index.ts';
    createLogger('info').request({ request_id: 'held-at-exit', method: 'GET', route: '/healthz', path: '/healthz', status: 200, duration_ms: 0.1 });
    process.exit(0);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const [code] = await once(child, 'close');
  assert.equal(code, 0);
  const lines = out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    lines.map((l) => [l.msg, l.request_id]),
    [['request', 'held-at-exit']],
  );
});

// Two real server processes (node server/main.ts) on one PostgreSQL and one Redis enforce ONE rate limit:
// the counters live in Redis, so requests alternating between the processes share a single window.
// Needs the PostgreSQL at SQ_TEST_POSTGRES_URL and the Redis at SQ_TEST_REDIS_URL (default 127.0.0.1:6379),
// whichever database the rest of the suite runs on (PGlite cannot be shared between processes).

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createApiToken } from '../../server/accounts/api-tokens.ts';
import { insertAccount } from '../../server/accounts/sql.ts';
import { type Db, openPostgres } from '../../server/db/index.ts';
import { newId } from '../../server/ids.ts';
import { createRedisLimiter } from '../../server/limits/rate-limiter.ts';
import { until } from '../helpers/poll.ts';
import { answeringAt, freePort, servingUrl, WASM_TIERS } from '../helpers/process.ts';
import { POSTGRES_URL } from '../helpers/server.ts';

const REDIS_URL = process.env.SQ_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const JWT_SECRET = 'two-process-test-secret-0123456789abcdef';
// Long enough that a loaded CI machine answers a test's few requests within one window.
const WINDOW_S = 4;
const READ_LIMIT = 5;
const repo = fileURLToPath(new URL('../..', import.meta.url));

const schema = `t_${newId('s').slice(2, 18)}`;
const prefix = `sq:test:${newId('rl')}:`;
const work = mkdtempSync(path.join(tmpdir(), 'sq-2proc-'));
const procs: { child: ChildProcess; url: string; output: string[] }[] = [];
let db: Db;
let redis: Redis;

function databaseUrl(): string {
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

function plansFile(): string {
  const bundled = JSON.parse(readFileSync(path.join(repo, 'server/plans.json'), 'utf8'));
  const rule = (limit: number) => ({ limit, window_seconds: WINDOW_S });
  const tiny = {
    label: 'Tiny',
    monthly_quotes: 10,
    storage_bytes: 1_000_000,
    rate_limits: { quote: rule(2), upload: rule(2), read: rule(READ_LIMIT), write: rule(2) },
  };
  const file = path.join(work, 'plans.json');
  writeFileSync(file, JSON.stringify({ ...bundled, tiny }));
  return file;
}

async function startProcess(n: number, env: Record<string, string>) {
  const output: string[] = [];
  const child = spawn(process.execPath, [...WASM_TIERS, '--import', 'tsx', 'server/main.ts'], {
    cwd: repo,
    env: {
      ...process.env,
      ...env,
      PORT: '0', // the server binds a port of its own choosing and says which (servingUrl)
      HOST: '127.0.0.1',
      DATA_DIR: path.join(work, `data${n}`),
      NODE_OPTIONS: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => output.push(String(d)));
  child.stderr!.on('data', (d) => output.push(String(d)));
  const url = await answeringAt(child, () => servingUrl(output.join(''))).catch((err: Error) => {
    throw new Error(`server ${n}: ${err.message}:\n${output.join('')}`);
  });
  procs.push({ child, url, output });
}

before(async () => {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  const env = {
    DATABASE_URL: databaseUrl(),
    REDIS_URL,
    RATE_LIMIT_PREFIX: prefix,
    PLANS_FILE: plansFile(),
    JWT_SECRET,
    DEMO_ACCOUNT: 'false',
    LOG_REQUESTS: 'false',
  };
  // One after the other: the second waits for nothing, but starting both at once doubles the start-up CPU.
  await startProcess(1, env);
  await startProcess(2, env);
  db = await openPostgres(POSTGRES_URL, { searchPath: schema, max: 2 });
});

after(async () => {
  for (const p of procs) {
    p.child.kill('SIGTERM');
    await new Promise((r) => (p.child.exitCode !== null ? r(null) : p.child.once('exit', r)));
  }
  await db?.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  const c = new pg.Client({ connectionString: POSTGRES_URL });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
  rmSync(work, { recursive: true, force: true });
});

async function tinyToken(): Promise<string> {
  const account = await insertAccount(db, {
    id: newId('usr'),
    email: `${newId('m')}@example.test`,
    password_hash: 'x',
    plan: 'tiny',
    shop_name: null,
  });
  return (await createApiToken(db, JWT_SECRET, account.id, 'two processes', new Date())).token;
}

async function get(url: string, token: string) {
  const res = await fetch(`${url}/v2/user`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return {
    status: res.status,
    remaining: Number(res.headers.get('x-ratelimit-remaining')),
    limit: Number(res.headers.get('x-ratelimit-limit')),
    retryAfter: res.headers.get('retry-after'),
  };
}

test('two server processes share one limit through Redis, and both recover after the window', async () => {
  const [a, b] = procs.map((p) => p.url);
  assert.ok(a && b, 'two server processes');
  const token = await tinyToken();
  const seen = [];
  for (let i = 0; i < READ_LIMIT; i++) seen.push(await get(i % 2 ? b : a, token));
  assert.deepEqual(
    seen.map((r) => r.status),
    [200, 200, 200, 200, 200],
  );
  // One counter: remaining falls by one per request whichever process answers.
  assert.deepEqual(
    seen.map((r) => r.remaining),
    [4, 3, 2, 1, 0],
  );
  assert.ok(seen.every((r) => r.limit === READ_LIMIT));
  const refusedB = await get(b, token);
  const refusedA = await get(a, token);
  assert.equal(refusedB.status, 429);
  assert.equal(refusedA.status, 429);
  const retryAfter = Number(refusedA.retryAfter);
  assert.ok(retryAfter >= 1 && retryAfter <= WINDOW_S, `Retry-After ${refusedA.retryAfter}`);
  // The counter is in Redis under the configured prefix, expiring with the window.
  const keys = await redis.keys(`${prefix}read:tok:*`);
  assert.equal(keys.length, 1);
  const [key] = keys;
  assert.ok(key);
  const ttl = await redis.pttl(key);
  assert.ok(ttl > 0 && ttl <= WINDOW_S * 1000, `PTTL ${ttl}`);
  // The window ends when Redis expires the counter (its clock, shared by both processes): wait for that.
  await until('the window to end in Redis', retryAfter * 1000 + 10_000, async () =>
    (await redis.pttl(key)) === -2 ? true : undefined,
  );
  const recovered = [await get(b, token), await get(a, token)];
  assert.deepEqual(
    recovered.map((r) => [r.status, r.remaining]),
    [
      [200, 4],
      [200, 3],
    ],
  );
});

test('with Redis, unauthenticated callers are counted per address across processes too', async () => {
  const [a, b] = procs.map((p) => p.url);
  const res = await fetch(`${a}/v2/user`);
  await res.arrayBuffer();
  const res2 = await fetch(`${b}/v2/user`);
  await res2.arrayBuffer();
  assert.equal(res.status, 401);
  assert.equal(res2.status, 401);
  // Free plan (the anonymous default) reads 300 per minute; the second process continues the first's count.
  assert.equal(Number(res2.headers.get('x-ratelimit-remaining')), Number(res.headers.get('x-ratelimit-remaining')) - 1);
});

/**
 * A Redis of this test's own on a free loopback port: pausing the shared one would stall every other user of it
 * (another test run on the same machine among them). redis-server cannot say which port it bound, so one is picked
 * free here; on a busy machine another process may take it first, and redis-server then ends: another port is
 * tried.
 */
async function privateRedis(): Promise<{ url: string; client: Redis; stop(): Promise<void> }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const url = `redis://127.0.0.1:${port}`;
    const up = await until('the private Redis to answer', 600, async () => {
      if (child.exitCode !== null) return false;
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => {}); // refused until it listens: answered by connect() below
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG' ? true : undefined;
      } catch {
        return undefined; // not listening yet
      } finally {
        probe.disconnect();
      }
    });
    if (!up) {
      if (attempt === 3) throw new Error(`redis-server ended at start on three free ports (the last ${port})`);
      continue;
    }
    const client = new Redis(url, { maxRetriesPerRequest: 1 });
    return {
      url,
      client,
      async stop() {
        client.disconnect();
        child.kill('SIGKILL');
        await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
      },
    };
  }
}

test('when Redis stops answering, requests are judged by per-process counters instead of failing', async (t) => {
  const own = await privateRedis();
  t.after(() => own.stop());
  const complaints: string[] = [];
  const log = { info() {}, error: (m: string) => complaints.push(m) };
  const limiter = await createRedisLimiter({
    url: own.url,
    prefix: `${prefix}fallback:`,
    log,
    now: Date.now,
    commandTimeoutMs: 200,
  });
  const redis = own.client;
  try {
    assert.equal((await limiter.hit('k', 10, 10_000)).count, 1);
    // Every client of this Redis is paused for 2 s: the limiter's command times out (200 ms) and memory answers.
    await redis.call('CLIENT', 'PAUSE', '2000', 'ALL');
    // This client's PING is answered only once the pause is over: it tells when Redis is back.
    let resumed = false;
    const back = redis.ping().then(() => {
      resumed = true;
    });
    const during = await limiter.hit('k', 10, 10_000);
    assert.equal(resumed, false, 'answered while Redis was still paused, without waiting for it');
    assert.deepEqual([during.allowed, during.count], [true, 1]);
    assert.equal(complaints.length, 1);
    await back;
    // Back on Redis: its count continues (the timed-out INCR may have run after the pause).
    assert.ok((await limiter.hit('k', 10, 10_000)).count >= 2);
  } finally {
    await limiter.close();
  }
  await assert.rejects(createRedisLimiter({ url: 'redis://127.0.0.1:1', prefix, log, now: Date.now }), /REDIS_URL/);
});

// Leases: several pumps never send one delivery at the same time, and a delivery whose attempt was cut short
// by kill -9 is reclaimed after its lease by the restarted server and delivered, never lost.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { verify } from '@octokit/webhooks-methods';
import pg from 'pg';
import { createApiToken } from '../../server/accounts/api-tokens.ts';
import { insertAccount } from '../../server/accounts/sql.ts';
import { type Db, openPglite, openPostgres } from '../../server/db/index.ts';
import { migrate } from '../../server/db/migrate.ts';
import { newId } from '../../server/ids.ts';
import { writeEvent } from '../../server/outbox/sql.ts';
import { createEventPump } from '../../server/webhooks/dispatcher.ts';
import { insertWebhook } from '../../server/webhooks/sql.ts';
import { answeringAt, servingUrl, WASM_TIERS } from '../helpers/process.ts';
import { eventually, type Receiver, startReceiver } from '../helpers/receiver.ts';
import { ApiClient, POSTGRES_URL, startTestServer, testDbKind } from '../helpers/server.ts';

const JWT_SECRET = 'crash-test-secret-that-is-long-enough-0123';
const REPO = path.resolve(import.meta.dirname, '../..');
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

test('four pumps on one database: a delivery is never sent twice at once, and every send is a claimed, recorded attempt', async () => {
  const server = await startTestServer({
    WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
    WEBHOOK_SWEEP_INTERVAL_MS: '200',
    WEBHOOK_TIMEOUT_MS: '1500',
  });
  cleanups.push(() => server.stop());
  const pumps = [1, 2, 3].map(() => createEventPump(server.deps));
  for (const p of pumps) p.start();
  cleanups.push(async () => {
    for (const p of pumps) await p.stop();
  });
  const { token, accountId } = await server.newAccount();
  const api = server.client(token);
  const hanging = await startReceiver(() => 'hang'); // every attempt runs into the timeout
  const fine = await startReceiver();
  cleanups.push(
    () => hanging.close(),
    () => fine.close(),
  );
  const hHang = (await api.post('/v2/webhooks', { url: hanging.url, events: ['usage.alert'] })).body;
  const hFine = (await api.post('/v2/webhooks', { url: fine.url, events: ['file.deleted'] })).body;

  await server.deps.db.transaction((tx) =>
    writeEvent(tx, {
      account_id: accountId,
      token_id: null,
      event: 'usage.alert',
      data: { n: 0 } as never,
      at: new Date(),
    }),
  );
  for (let i = 0; i < 20; i++) {
    await server.deps.db.transaction((tx) =>
      writeEvent(tx, {
        account_id: accountId,
        token_id: null,
        event: 'file.deleted',
        data: { n: i } as never,
        at: new Date(),
      }),
    );
  }
  for (const p of [server.deps.events, ...pumps]) p.wake();

  const settled = (webhookId: string, n: number) =>
    eventually(
      async () => {
        const list = (await api.get(`/v2/webhooks/${webhookId}/deliveries?limit=100`)).body.data as any[];
        return list.length === n && list.every((d) => d.state !== 'pending') ? list : null;
      },
      30_000,
      `${n} settled deliveries`,
    );
  const [hung] = await settled(hHang.webhook_id, 1);
  const delivered = await settled(hFine.webhook_id, 20);
  // Every pump finishes a pass and the attempts it has in flight: a stray send would have arrived by now.
  await Promise.all([server.deps.events, ...pumps].map((p) => p.sweep()));

  assert.equal(hung.state, 'failed');
  assert.equal(hung.attempts, 3);
  assert.match(hung.last_error, /^timeout after 1500 ms/);
  assert.equal(hanging.requests.length, 3, 'exactly 3 sends');
  assert.equal(hanging.maxConcurrent, 1, 'never two attempts at once');

  // Each send to the fine receiver must be one recorded attempt of its delivery (a timeout on a starved
  // machine may legitimately add a retry, but a second pump sending the same claim would add a request
  // without an attempt).
  const sends = new Map<string, number>();
  for (const r of fine.requests)
    sends.set(
      r.headers['x-webhook-delivery'] as string,
      (sends.get(r.headers['x-webhook-delivery'] as string) ?? 0) + 1,
    );
  for (const d of delivered) {
    assert.equal(d.state, 'delivered');
    assert.equal(d.interrupted_attempts, 0);
    assert.equal(sends.get(d.delivery_id), d.attempts, `${d.delivery_id}: sends = recorded attempts`);
  }
  assert.equal(sends.size, 20);
});

// ---- kill -9 ---------------------------------------------------------------------------------------------

/** A private database for the child processes: a PGlite folder, or a PostgreSQL schema. */
async function childDatabase(dataDir: string): Promise<{ env: Record<string, string>; open(): Promise<Db> }> {
  if (testDbKind() === 'pglite') {
    return { env: {}, open: () => openPglite(path.join(dataDir, 'pglite')) };
  }
  const schema = `t_${newId('s').slice(2, 18)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: POSTGRES_URL });
    await c.connect();
    await c.query(`DROP SCHEMA ${schema} CASCADE`);
    await c.end();
  });
  return {
    env: { DATABASE_URL: `${POSTGRES_URL}?options=-c%20search_path%3D${schema}` },
    open: () => openPostgres(POSTGRES_URL, { searchPath: schema, max: 2 }),
  };
}

function startChild(env: Record<string, string>): ChildProcess {
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, [...WASM_TIERS, '--import', 'tsx', 'server/main.ts'], {
    cwd: REPO,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  (child as ChildProcess & { output: () => string }).output = () => output;
  return child;
}

/** Where the child serves, once it answers /healthz (it binds a port of its own choosing and says which). */
function waitHealthy(child: ChildProcess): Promise<string> {
  const output = (child as ChildProcess & { output: () => string }).output;
  return answeringAt(child, () => servingUrl(output())).catch((err: Error) => {
    throw new Error(`${err.message}: ${output()}`);
  });
}

function killHard(child: ChildProcess): Promise<void> {
  return new Promise((ok) => {
    if (child.exitCode !== null || child.signalCode !== null) return ok();
    child.once('exit', () => ok());
    child.kill('SIGKILL');
  });
}

test('kill -9 during an attempt: after restart the delivery is reclaimed once its lease ran out, and delivered', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sq-crash-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const db = await childDatabase(dataDir);
  // The first request hangs: the attempt is in flight when the process dies. Later requests succeed. The process
  // that sent it is stopped the moment it arrives, so that its own timeout cannot end the attempt first, however
  // loaded the machine (a timed-out attempt is retried, and that retry could be the one the kill interrupts).
  let first: ChildProcess | undefined;
  const receiver: Receiver = await startReceiver((i) => {
    if (i > 0) return { status: 200 };
    first?.kill('SIGSTOP');
    return 'hang';
  });
  cleanups.push(() => receiver.close());

  // Seed an account, a token, a webhook and one undispatched event before the server starts: its pump picks
  // the event up at start-up.
  const seed = await db.open();
  await migrate(seed);
  const accountId = newId('usr');
  await insertAccount(seed, {
    id: accountId,
    email: `${accountId}@example.test`,
    password_hash: 'x',
    plan: 'pro',
    shop_name: null,
  });
  const { token } = await createApiToken(seed, JWT_SECRET, accountId, 'crash test', new Date());
  const secret = 'crash test secret, long enough';
  const hook = await insertWebhook(seed, {
    id: newId('wh'),
    account_id: accountId,
    url: receiver.url,
    events: ['quote.completed'],
    secret,
    token_id: null,
  });
  await seed.transaction((tx) =>
    writeEvent(tx, {
      account_id: accountId,
      token_id: null,
      event: 'quote.completed',
      data: { jobId: 'job_x' } as never, // delivery sends the body as written
      at: new Date(),
    }),
  );
  await seed.close();

  // Lease = 2 x timeout + 10 s = 20 s; the timeout (5 s) is never reached: the process is stopped, then killed.
  const env = {
    ...db.env,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    DEMO_ACCOUNT: 'false',
    JWT_SECRET,
    WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
    WEBHOOK_SWEEP_INTERVAL_MS: '200',
    WEBHOOK_TIMEOUT_MS: '5000',
  };
  first = startChild(env);
  const firstChild = first;
  cleanups.push(() => killHard(firstChild));
  const [hung] = await receiver.waitFor(1, 60_000);
  await killHard(first);
  const killedAt = Date.now();
  assert.equal(first.signalCode, 'SIGKILL');
  // When the dead process's lease on the delivery runs out: only then may another process take it over.
  const crashed = await db.open();
  const [lease] = await crashed.query<{ lease_expires_at: Date }>('SELECT lease_expires_at FROM webhook_deliveries');
  await crashed.close();

  // The restarted server waits long for an answer: a timed-out retry on a starved machine could end before the
  // receiver saw it, and be counted without being seen here.
  const second = startChild({ ...env, WEBHOOK_TIMEOUT_MS: '60000' });
  cleanups.push(async () => {
    second.kill('SIGTERM');
    await new Promise((ok) => (second.exitCode !== null ? ok(null) : second.once('exit', ok)));
  });
  const base = await waitHealthy(second);
  const [, retried] = await receiver.waitFor(2, 30_000);

  assert.equal(retried.headers['x-webhook-delivery'], hung.headers['x-webhook-delivery'], 'the same delivery');
  assert.equal(retried.body, hung.body, 'identical body');
  assert.equal(retried.headers['x-webhook-signature'], hung.headers['x-webhook-signature'], 'identical signature');
  assert.equal(await verify(secret, retried.body, retried.headers['x-webhook-signature'] as string), true);
  const early = lease!.lease_expires_at.getTime() - retried.at;
  assert.ok(early <= 0, `retried ${early} ms before the lease ran out`);
  assert.ok(retried.at >= killedAt);

  const api = new ApiClient(base, token);
  const d = await eventually(
    async () => {
      const res = await api.get(`/v2/webhooks/${hook.id}/deliveries`);
      return res.body.total === 1 && res.body.data[0].state === 'delivered' ? res.body.data[0] : null;
    },
    20_000,
    'the delivery to be recorded as delivered (and no other)',
  );
  assert.equal(d.delivery_id, hung.headers['x-webhook-delivery']);
  assert.equal(d.interrupted_attempts, 1);
  assert.equal(d.last_status_code, 200);
  assert.equal(d.last_error, null);
  // Every request after the interrupted one is a recorded attempt, and the interrupted one is not counted as one.
  assert.ok(receiver.requests.every((r) => r.headers['x-webhook-delivery'] === d.delivery_id));
  assert.equal(d.attempts, receiver.requests.length - 1, 'the interrupted attempt is not counted as an attempt');
});

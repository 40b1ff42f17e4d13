// Demo mode lets the demo account's webhooks reach its merchant backend on loopback, and nobody else's: a
// stranger who signs up on a demo server gets the README's rule (WEBHOOK_ALLOW_PRIVATE_CIDRS empty refuses
// every private address), at save time and at delivery. Runs the real server/main.ts in demo mode.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { until } from '../helpers/poll.ts';
import { type ServerProcess, spawnServer } from '../helpers/process.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import { ApiClient, testDbKind } from '../helpers/server.ts';
import { type TestDatabase, testDatabase } from '../helpers/server-process.ts';

let dataDir: string;
let db: TestDatabase;
let server: ServerProcess;
let receiver: Receiver;

before(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'sq-demo-'));
  db = await testDatabase(testDbKind(), dataDir);
  server = await spawnServer({
    ...db.env,
    DATA_DIR: dataDir,
    DEMO_ACCOUNT: 'true',
    NODE_ENV: 'development',
    WEBHOOK_ALLOW_PRIVATE_CIDRS: '',
  });
  receiver = await startReceiver();
});
after(async () => {
  await server.kill('SIGTERM');
  await receiver.close();
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function stranger(): Promise<ApiClient> {
  const dashboard = new ApiClient(server.url);
  const signup = await dashboard.post('/dashboard/api/signup', {
    email: `stranger-${Date.now()}@example.test`,
    password: 'a long and unusual passphrase',
  });
  assert.equal(signup.status, 201, JSON.stringify(signup.body));
  dashboard.csrf = signup.body.csrf_token;
  const token = await dashboard.post('/dashboard/api/tokens', { name: 'probe' });
  assert.equal(token.status, 201);
  return new ApiClient(server.url, token.body.token);
}

test('another account on a demo server cannot save a loopback receiver (400 url_private_address)', async () => {
  const api = await stranger();
  for (const url of [`${receiver.url}/internal-admin/reset`, `http://localhost:${receiver.port}/x`]) {
    const res = await api.post('/v2/webhooks', { url, events: ['file.uploaded'] });
    assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.error.code, 'url_private_address');
    assert.equal(res.body.error.details.fields[0].field, 'url');
  }
  assert.equal(receiver.requests.length, 0);
});

test('the demo account itself still saves and is delivered to its loopback receiver', async () => {
  const creds = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8'));
  assert.match(creds.account_id, /^usr_/);
  const demo = new ApiClient(server.url, creds.api_token);
  const saved = await demo.post('/v2/webhooks', { url: `${receiver.url}/demo-hook`, events: ['file.uploaded'] });
  assert.equal(saved.status, 201, JSON.stringify(saved.body));
  const upload = await demo.upload('/v2/file', path.resolve('demo/models/calibration-cube.stl'));
  assert.equal(upload.status, 201);
  const [delivered] = await receiver.waitFor(1, 15_000);
  assert.equal(delivered.json.event, 'file.uploaded');
});

test('the start-up banner names the demo credentials file and never prints the password or the token', async () => {
  const creds = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8'));
  // The banner is printed once the server listens; its lines may reach the pipe after the first answer.
  const log = await until('the banner to be printed', 60_000, () =>
    server.output().includes('then quote it') ? server.output() : undefined,
  );
  assert.match(log, /Demo account: demo@slicequote\.local/);
  assert.ok(log.includes(path.join(dataDir, 'demo-credentials.json')), log);
  assert.ok(!log.includes(creds.password), 'the password is not in the log');
  assert.ok(!log.includes(creds.api_token), 'the API token is not in the log');
});

// Who may create an account: SIGNUP=open (the default outside production), invite (a single-use code from
// `npm run invite`, stored hashed, expiring) or off (the default in production). Refusals are 403s with codes
// naming the field; a code is spent only by the account it creates.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { createInvite } from '../../server/accounts/invites.ts';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { buildDeps, serve } from '../../server/start.ts';
import { startTestServer, type TestServer, testDbKind } from '../helpers/server.ts';
import { testDatabase } from '../helpers/server-process.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const password = 'a long enough password';
let invite: TestServer;
before(async () => {
  invite = await startTestServer({ SIGNUP: 'invite' });
});
after(() => invite.stop());

const signUp = (server: TestServer, email: string, extra: Record<string, unknown> = {}) =>
  server.client().post('/dashboard/api/signup', { email, password, ...extra });
const newCode = async (server: TestServer, days?: number) =>
  (await createInvite(server.deps.db, server.deps.now(), days)).code;

test('SIGNUP is off by default in production, open otherwise, and refuses unknown values by name', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sq-signup-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { DATA_DIR: dataDir, JWT_SECRET: 'test-secret-that-is-long-enough-0123456789' };
  assert.equal(loadConfig({ ...env, NODE_ENV: 'production' }).signup, 'off');
  assert.equal(loadConfig(env).signup, 'open');
  assert.equal(loadConfig({ ...env, NODE_ENV: 'production', SIGNUP: 'invite' }).signup, 'invite');
  assert.equal(loadConfig({ ...env, NODE_ENV: 'production', SIGNUP: 'Open' }).signup, 'open');
  assert.throws(
    () => loadConfig({ ...env, SIGNUP: 'maybe' }),
    (err: Error) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /^SIGNUP must be one of open, invite, off, got "maybe"/);
      return true;
    },
  );
});

test('SIGNUP=off: the dashboard is told, every sign-up is 403 signup_closed, existing accounts still log in', async () => {
  const off = await startTestServer({ SIGNUP: 'off' });
  after(() => off.stop());
  assert.deepEqual((await off.client().get('/dashboard/api/signup')).body, { mode: 'off' });
  const code = await newCode(off);
  for (const body of [{ invite_code: code }, {}]) {
    const res = await signUp(off, 'closed@example.test', body);
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'signup_closed');
  }
  const existing = await off.newAccount();
  const login = await off.client().post('/dashboard/api/login', { email: existing.email, password: existing.password });
  assert.equal(login.status, 200);
});

test('SIGNUP=open tells the dashboard so and needs no code', async () => {
  const open = await startTestServer();
  after(() => open.stop());
  assert.deepEqual((await open.client().get('/dashboard/api/signup')).body, { mode: 'open' });
  assert.equal((await signUp(open, 'open@example.test')).status, 201);
});

test('SIGNUP=invite: no code is 403 invite_required, an unknown one 403 invite_invalid, both naming the field', async () => {
  assert.deepEqual((await invite.client().get('/dashboard/api/signup')).body, { mode: 'invite' });
  const missing = await signUp(invite, 'nocode@example.test');
  assert.equal(missing.status, 403);
  assert.equal(missing.body.error.code, 'invite_required');
  assert.deepEqual(missing.body.error.details, { field: 'invite_code' });
  const blank = await signUp(invite, 'nocode@example.test', { invite_code: '  ' });
  assert.equal(blank.body.error.code, 'invite_required');
  const unknown = await signUp(invite, 'nocode@example.test', { invite_code: 'inv_made_up' });
  assert.equal(unknown.status, 403);
  assert.equal(unknown.body.error.code, 'invite_invalid');
  assert.deepEqual(unknown.body.error.details, { field: 'invite_code' });
});

test('an invite code signs up exactly one account; the second use is refused', async () => {
  const code = await newCode(invite);
  const first = await signUp(invite, 'invited@example.test', { invite_code: code, shop_name: 'Invited Prints' });
  assert.equal(first.status, 201, JSON.stringify(first.body));
  assert.equal(first.body.user.email, 'invited@example.test');
  const second = await signUp(invite, 'second@example.test', { invite_code: code });
  assert.equal(second.status, 403);
  assert.equal(second.body.error.code, 'invite_invalid');
  const [row] = await invite.deps.db.query<{ code_sha256: string; account_id: string }>(
    'SELECT code_sha256, account_id FROM signup_invites WHERE account_id = $1',
    [first.body.user.user_id],
  );
  assert.match(row!.code_sha256, /^[0-9a-f]{64}$/, 'stored hashed');
  assert.notEqual(row!.code_sha256, code);
});

test('a refused sign-up (taken email, weak password, bad field) does not spend the code', async () => {
  const taken = await invite.newAccount();
  const code = await newCode(invite);
  const conflict = await signUp(invite, taken.email, { invite_code: code });
  assert.equal(conflict.status, 409);
  const weak = await invite.client().post('/dashboard/api/signup', {
    email: 'weak@example.test',
    password: 'password123',
    invite_code: code,
  });
  assert.equal(weak.status, 400);
  assert.equal((await signUp(invite, 'bad-email', { invite_code: code })).status, 400);
  assert.equal((await signUp(invite, 'after-refusals@example.test', { invite_code: code })).status, 201);
});

test('an invite code expires: refused once its days have passed (on the injected clock)', async () => {
  const code = await newCode(invite, 2);
  const realNow = invite.deps.now;
  invite.deps.now = () => new Date(realNow().getTime() + 2 * 86_400_000 + 1000);
  try {
    const late = await signUp(invite, 'late@example.test', { invite_code: code });
    assert.equal(late.status, 403);
    assert.equal(late.body.error.code, 'invite_invalid');
  } finally {
    invite.deps.now = realNow;
  }
  assert.equal((await signUp(invite, 'in-time@example.test', { invite_code: code })).status, 201);
});

test('two sign-ups racing with one code: exactly one account is created', async () => {
  const code = await newCode(invite);
  const results = await Promise.all(
    ['race-a@example.test', 'race-b@example.test', 'race-c@example.test'].map((email) =>
      signUp(invite, email, { invite_code: code }),
    ),
  );
  assert.deepEqual(results.map((r) => r.status).sort(), [201, 403, 403]);
  const [{ n }] = (await invite.deps.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM accounts WHERE email LIKE 'race-%'",
  )) as [{ n: number }];
  assert.equal(n, 1);
});

const run = promisify(execFile);
const invitesFrom = (env: Record<string, string>, ...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'scripts/invite.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', ...env },
  });

test('npm run invite prints a code and a sign-up link that the server accepts once', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sq-invite-'));
  const database = await testDatabase(testDbKind(), dataDir);
  const env = {
    ...database.env,
    DATA_DIR: dataDir,
    SIGNUP: 'invite',
    PUBLIC_URL: 'https://quotes.example.com',
    JWT_SECRET: 'test-secret-that-is-long-enough-0123456789',
  };
  const { stdout } = await invitesFrom(env, '--days', '3');
  const code = /^ {2}(inv_[A-Za-z0-9_-]+)$/m.exec(stdout)?.[1];
  assert.ok(code, stdout);
  assert.match(stdout, new RegExp(`^  https://quotes\\.example\\.com/dashboard/#/signup\\?invite=${code}$`, 'm'));
  await assert.rejects(invitesFrom(env, '--days', '0'), /--days must be a whole number from 1 to 365/);

  const config = loadConfig({ ...env, PORT: '0', HOST: '127.0.0.1', DEMO_ACCOUNT: 'false' });
  const quiet = { info() {}, request() {}, error: (m: string, e: unknown) => console.error(m, e) };
  const running = await serve(await buildDeps(config, { db: await database.open(), log: quiet }));
  after(async () => {
    await running.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const signUpWith = (email: string) =>
    fetch(`${running.url}/dashboard/api/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password, invite_code: code }),
    });
  assert.equal((await signUpWith('from-cli@example.test')).status, 201);
  assert.equal((await signUpWith('again@example.test')).status, 403);
  if (testDbKind() === 'pglite')
    await assert.rejects(invitesFrom(env), /in use by a running server: stop the server/, 'PGlite is one process');
});

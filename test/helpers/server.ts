// Starts a real server for a test file: PGlite in memory by default, a private schema in the real
// PostgreSQL when SQ_TEST_DB=postgres (the whole server suite runs against both).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createApiToken } from '../../server/accounts/api-tokens.ts';
import { hashPassword } from '../../server/accounts/passwords.ts';
import { insertAccount } from '../../server/accounts/sql.ts';
import { loadConfig } from '../../server/config.ts';
import { type Db, migrate, openPglite, openPostgres } from '../../server/db/index.ts';
import { newId } from '../../server/ids.ts';
import { buildDeps, type Running, serve } from '../../server/start.ts';
import { type TestClock, testClock } from './clock.ts';
import { assertMatchesContract } from './contract.ts';
import { pgliteTemplate } from './pglite-template.ts';
import './uncaught.ts';

export const POSTGRES_URL = process.env.SQ_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const testDbKind = (): 'pglite' | 'postgres' => (process.env.SQ_TEST_DB === 'postgres' ? 'postgres' : 'pglite');

/**
 * A database of the kind SQ_TEST_DB names: empty, or `migrated` (every migration applied; on PGlite by starting
 * from a dump of a migrated database, see pglite-template.ts).
 */
export async function openTestDb(opts: { migrated?: boolean } = {}): Promise<{ db: Db; drop(): Promise<void> }> {
  if (testDbKind() === 'pglite') {
    const db = await openPglite(null, { loadDataDir: await pgliteTemplate(opts.migrated ?? false) });
    return { db, drop: async () => {} };
  }
  const schema = `t_${newId('s').slice(2, 18)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const db = await openPostgres(POSTGRES_URL, { searchPath: schema, max: 5 });
  if (opts.migrated) await migrate(db);
  return {
    db,
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}

export interface TestServer extends Running {
  dataDir: string;
  /** The server's clock (deps.now): advance it to let a window, a lock or a delay pass without sleeping. */
  clock: TestClock;
  client(token?: string): ApiClient;
  newAccount(opts?: {
    plan?: string;
    email?: string;
  }): Promise<{ accountId: string; token: string; tokenId: string; email: string; password: string }>;
  /** Another API token of an account, issued on the server's clock. */
  newToken(accountId: string, name: string): ReturnType<typeof createApiToken>;
  stop(): Promise<void>;
}

/** Every account a test makes signs in with this password. */
const TEST_PASSWORD = 'correct horse battery';
/**
 * Its scrypt hash, made once per test process: a hash costs some 50 ms of CPU by design, and test files make
 * hundreds of accounts. Signing up through the API (signup.test.ts, the dashboard's tests) still hashes each one.
 */
let testPasswordHash: Promise<string> | undefined;

/** Where a test server's settings differ from those a shop's server ships with, and why. */
const TEST_SETTINGS = {
  // A synchronous quote answers when its slice is done, as on a server that waits long enough: on a loaded
  // machine a slice queued behind others outlasts the default minute, and the test would see a 202 it is not
  // about. Tests of the 202 set their own wait (or Prefer: wait / respond-async).
  QUOTE_SYNC_WAIT_MS: '600000',
  // No pre-slicing of widget uploads: up to six background slices per upload that no test looks at, competing
  // with the slices it does. The tests of prefetching (instant-price, instant-estimate, fair-share) turn it on.
  PREFETCH_MAX_SECONDS: '0',
};

/** TEST_SETTINGS back at the shipped defaults: a benchmark measures the server a shop runs. */
export const AS_SHIPPED = Object.fromEntries(Object.keys(TEST_SETTINGS).map((name) => [name, undefined])) as Record<
  keyof typeof TEST_SETTINGS,
  undefined
>;

/** `random` replaces Math.random for the webhook retries' jitter, so a test knows each retry's delay. */
export async function startTestServer(
  env: Record<string, string | undefined> = {},
  opts: { random?: () => number } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sq-test-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    DEMO_ACCOUNT: 'false',
    JWT_SECRET: 'test-secret-that-is-long-enough-0123456789',
    ...TEST_SETTINGS,
    ...env,
  });
  const { db, drop } = await openTestDb({ migrated: true });
  const quiet = { info() {}, request() {}, error: (m: string, e: unknown) => console.error(m, e) };
  const clock = testClock();
  // A start that fails (a test of a bad setting) leaves nothing open: an open PGlite keeps the test process alive.
  const deps = await buildDeps(config, { db, log: quiet, now: clock.now, random: opts.random }).catch(async (err) => {
    await db.close();
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  });
  const running = await serve(deps);
  const server: TestServer = {
    ...running,
    dataDir,
    clock,
    client: (token?: string) => new ApiClient(running.url, token),
    async newAccount(opts = {}) {
      const email = opts.email ?? `${newId('m')}@example.test`;
      const password = TEST_PASSWORD;
      testPasswordHash ??= hashPassword(password);
      const account = await insertAccount(db, {
        id: newId('usr'),
        email,
        password_hash: await testPasswordHash,
        plan: opts.plan ?? 'pro',
        shop_name: null,
      });
      const { row, token } = await createApiToken(db, config.jwtSecret, account.id, 'test', clock.now());
      if (!row) throw new Error('createApiToken stored no token row');
      return { accountId: account.id, token, tokenId: row.id, email, password };
    },
    newToken: (accountId, name) => createApiToken(db, config.jwtSecret, accountId, name, clock.now()),
    async stop() {
      await running.close();
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

/** A merchant signed up in the dashboard, with an API token and a widget key for a shop page at `origin`. */
export async function merchantShop(server: TestServer, email: string, origin: string) {
  const dashboard = server.client();
  const signup = await dashboard.post('/dashboard/api/signup', { email, password: 'a long enough password' });
  dashboard.csrf = signup.body.csrf_token;
  const api = server.client((await dashboard.post('/dashboard/api/tokens', { name: 'backend' })).body.token);
  const key = await dashboard.post('/dashboard/api/widget-keys', { name: 'Shop', allowed_origins: [origin] });
  return {
    accountId: signup.body.user.user_id as string,
    dashboard,
    api,
    key: key.body.key as string,
    keyId: key.body.widget_key_id as string,
  };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  raw: Uint8Array;
}

export class ApiClient {
  cookie: string | null = null;
  csrf: string | null = null;
  /** Send from this loopback address (127.0.0.x) instead of the default: another client address to the server. */
  localAddress: string | null = null;
  constructor(
    readonly base: string,
    public token?: string,
  ) {}

  async request<T = any>(
    method: string,
    urlPath: string,
    opts: { json?: unknown; form?: FormData; headers?: Record<string, string>; raw?: BodyInit } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.token && !('authorization' in headers)) headers.authorization = `Bearer ${this.token}`;
    if (this.cookie) headers.cookie = this.cookie;
    if (this.csrf && method !== 'GET') headers['x-csrf-token'] = this.csrf;
    let body: BodyInit | undefined = opts.raw;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    } else if (opts.form) body = opts.form;
    const res = this.localAddress
      ? await sendFrom(this.localAddress, this.base + urlPath, method, headers, body)
      : await fetch(this.base + urlPath, { method, headers, body, redirect: 'manual' });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0]!;
    const raw = new Uint8Array(await res.arrayBuffer());
    const type = res.headers.get('content-type');
    const parsed = type?.includes('json') && raw.length ? JSON.parse(new TextDecoder().decode(raw)) : raw;
    assertMatchesContract(method, new URL(this.base + urlPath).pathname, res.status, type, parsed);
    return { status: res.status, headers: res.headers, body: parsed as T, raw };
  }

  get<T = any>(p: string, headers?: Record<string, string>) {
    return this.request<T>('GET', p, { headers });
  }
  post<T = any>(p: string, json?: unknown) {
    return this.request<T>('POST', p, json === undefined ? {} : { json });
  }
  put<T = any>(p: string, json?: unknown) {
    return this.request<T>('PUT', p, { json });
  }
  delete<T = any>(p: string) {
    return this.request<T>('DELETE', p);
  }
  upload<T = any>(p: string, filePath: string, name = path.basename(filePath)) {
    return this.uploadBytes<T>(p, readFileSync(filePath), name);
  }
  uploadBytes<T = any>(p: string, bytes: Uint8Array, name: string) {
    const form = new FormData();
    form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
    return this.request<T>('POST', p, { form });
  }
}

/** One request over node:http from a given local address (fetch cannot choose it), answered as a Response. */
async function sendFrom(
  localAddress: string,
  url: string,
  method: string,
  headers: Record<string, string>,
  body: BodyInit | undefined,
): Promise<Response> {
  const encoded = body === undefined ? undefined : new Request(url, { method, body });
  const bytes = encoded ? Buffer.from(await encoded.arrayBuffer()) : undefined;
  const type = encoded?.headers.get('content-type');
  const all = { ...headers, ...(type && !headers['content-type'] ? { 'content-type': type } : {}) };
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: all, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers))
          if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
        const status = res.statusCode ?? 0;
        const payload = [204, 304].includes(status) ? null : Buffer.concat(chunks);
        resolve(new Response(payload, { status, headers: h }));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(bytes);
  });
}

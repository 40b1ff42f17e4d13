// Login throttling and the password policy. Failed logins lock the (account, address) pair with a growing
// backoff (429 login_throttled + Retry-After), the owner still logs in from another address, a rotating
// left-most X-Forwarded-For does not escape the address (TRUST_PROXY=1 takes the right-most entry), and the
// same holds with the counters in Redis. Sign-up refuses blank and very weak passwords (400 weak_password).

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FREE_FAILURES, throttleKeys } from '../../server/accounts/login-throttle.ts';
import { ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

const REDIS_URL = process.env.SQ_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

for (const backend of ['memory', 'redis'] as const) {
  describe(`login throttling, counters in ${backend}`, () => {
    let server: TestServer;
    before(async () => {
      const redis: Record<string, string> =
        backend === 'redis' ? { REDIS_URL, RATE_LIMIT_PREFIX: `sqtest:${randomBytes(6).toString('hex')}:` } : {};
      server = await startTestServer({ TRUST_PROXY: '1', ...redis });
      // In memory the locks run on the server's clock: frozen, no lock can run out while a slow machine works.
      if (backend === 'memory') server.clock.freeze();
    });
    after(() => server.stop());

    /**
     * Asserts the pair is locked, and keeps it so for the rest of the test: in Redis the lock's 1 s runs on
     * Redis' clock, which a test cannot stop, so there it is set again for a minute (as the throttle sets
     * it); in memory the frozen clock holds it. Returns the lock's key.
     */
    async function holdLock(email: string, address: string) {
      const { limiter } = server.deps.limits;
      const key = throttleKeys({ email, address }).pairLock;
      assert.ok(await limiter.peek(key), `the pair ${email} | ${address} is locked`);
      if (backend === 'redis') {
        await limiter.clear(key);
        await limiter.hit(key, 1, 60_000);
      }
      return key;
    }

    const login = (email: string, password: string, forwardedFor: string) =>
      new ApiClient(server.url).request('POST', '/dashboard/api/login', {
        json: { email, password },
        headers: { 'x-forwarded-for': forwardedFor },
      });

    test('a wrong-password flood from one address is locked with backoff; the owner logs in from another', async () => {
      const { email, password } = await server.newAccount();
      const attacker = '198.51.100.20';
      for (let i = 0; i < FREE_FAILURES; i++)
        assert.equal((await login(email, `wrong password ${i}`, attacker)).status, 401);
      const locked = await login(email, password, attacker);
      assert.equal(locked.status, 429, 'even the right password is refused from the locked address');
      assert.equal(locked.body.error.code, 'login_throttled');
      assert.equal(locked.headers.get('retry-after'), '1');
      const lock = await holdLock(email, attacker);
      for (let i = 0; i < 30; i++) assert.equal((await login(email, `still guessing ${i}`, attacker)).status, 429);
      const owner = await login(email, password, '203.0.113.7');
      assert.equal(owner.status, 200, 'the owner from another address is not locked out');
      // After the lock runs out one more failure locks again, for twice as long. In memory the server's clock
      // moves past the lock; in Redis the lock held above is ended.
      if (backend === 'memory') server.clock.advance(1000);
      else await server.deps.limits.limiter.clear(lock);
      assert.equal(await server.deps.limits.limiter.peek(lock), null, 'the lock has run out');
      assert.equal((await login(email, 'one more guess', attacker)).status, 401);
      const longer = await login(email, password, attacker);
      assert.equal(longer.status, 429);
      assert.equal(longer.headers.get('retry-after'), '2');
    });

    test("a rotating left-most X-Forwarded-For stays in the right-most address's bucket", async () => {
      const { email, password } = await server.newAccount();
      const via = (i: number) => `10.${i}.${i}.${i}, 192.0.2.${i}, 198.51.100.30`;
      for (let i = 0; i < FREE_FAILURES; i++)
        assert.equal((await login(email, `wrong password ${i}`, via(i))).status, 401);
      await holdLock(email, '198.51.100.30'); // the right-most address's pair, whatever the left-most said
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => login(email, i === 19 ? password : `guessing number ${i}`, via(100 + i))),
      );
      assert.deepEqual(
        [...new Set(results.map((r) => r.status))],
        [429],
        'no rotated header reached the password check',
      );
    });
  });
}

describe('TRUST_PROXY', () => {
  test("TRUST_PROXY=0 ignores X-Forwarded-For: every attempt counts against the connection's address", async () => {
    const server = await startTestServer({ TRUST_PROXY: '0' });
    try {
      const { email } = await server.newAccount();
      const c = new ApiClient(server.url);
      for (let i = 0; i < FREE_FAILURES; i++) {
        await c.request('POST', '/dashboard/api/login', {
          json: { email, password: `wrong password ${i}` },
          headers: { 'x-forwarded-for': `198.51.100.${i}` },
        });
      }
      const res = await c.request('POST', '/dashboard/api/login', {
        json: { email, password: 'wrong password x' },
        headers: { 'x-forwarded-for': '198.51.100.99' },
      });
      assert.equal(res.status, 429);
    } finally {
      await server.stop();
    }
  });

  test('true means one hop; a number is a hop count; anything else stops start-up naming the variable', async () => {
    const { loadConfig } = await import('../../server/config.ts');
    const dataDir = mkdtempSync(path.join(tmpdir(), 'sq-trust-proxy-'));
    try {
      const base = { DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(40) };
      assert.equal(loadConfig({ ...base, TRUST_PROXY: 'true' }).trustProxy, 1);
      assert.equal(loadConfig({ ...base, TRUST_PROXY: '2' }).trustProxy, 2);
      assert.equal(loadConfig({ ...base, TRUST_PROXY: 'false' }).trustProxy, 0);
      assert.equal(loadConfig({ ...base }).trustProxy, 0);
      assert.throws(() => loadConfig({ ...base, TRUST_PROXY: 'maybe' }), /TRUST_PROXY/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('password policy at sign-up', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  test('blank, one repeated character and common passwords are 400 weak_password naming the field', async () => {
    for (const password of [
      '          ',
      '\t\t\t\t\t\t\t\t\t\t',
      'aaaaaaaaaaaa',
      '1234567890',
      'Password123',
      'qwertyuiop',
    ]) {
      const res = await server
        .client()
        .post('/dashboard/api/signup', { email: `weak-${randomBytes(4).toString('hex')}@example.test`, password });
      assert.equal(res.status, 400, JSON.stringify(password));
      assert.equal(res.body.error.code, 'weak_password');
      assert.equal(res.body.error.details.fields[0].field, 'password');
      assert.match(res.body.error.message, /^password: /);
    }
  });

  test('a passphrase of ordinary words is accepted', async () => {
    const res = await server.client().post('/dashboard/api/signup', {
      email: `ok-${randomBytes(4).toString('hex')}@example.test`,
      password: 'purple kettle on sundays',
    });
    assert.equal(res.status, 201);
  });
});

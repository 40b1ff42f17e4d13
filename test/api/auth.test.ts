import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import jwt from 'jsonwebtoken';
import { FREE_FAILURES } from '../../server/accounts/login-throttle.ts';
import { until } from '../helpers/poll.ts';
import { ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

async function signedUp(email = `m${Date.now()}${Math.random().toString(36).slice(2)}@shop.test`) {
  const c = server.client();
  const res = await c.post('/dashboard/api/signup', {
    email,
    password: 'a long enough password',
    shop_name: 'Prints & Co',
  });
  assert.equal(res.status, 201);
  c.csrf = res.body.csrf_token;
  return { c, email, res };
}

test('sign up starts a session on the free plan; duplicate email is 409', async () => {
  const { c, email, res } = await signedUp();
  assert.equal(res.body.user.plan, 'free');
  assert.equal(res.body.user.email, email);
  assert.equal(res.body.user.quotes_used, 0);
  const session = await c.get('/dashboard/api/session');
  assert.equal(session.status, 200);
  assert.equal(session.body.csrf_token, c.csrf);
  const again = await server
    .client()
    .post('/dashboard/api/signup', { email: email.toUpperCase(), password: 'another long password' });
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, 'email_taken');
  // The owner signing up again with their own password is logged in instead of refused.
  const owner = server.client();
  const back = await owner.post('/dashboard/api/signup', { email, password: 'a long enough password' });
  assert.equal(back.status, 200, JSON.stringify(back.body));
  assert.equal(back.body.user.email, email);
  owner.csrf = back.body.csrf_token;
  assert.equal((await owner.get('/dashboard/api/session')).status, 200);
});

test('a sign-up with a taken email counts as a failed log-in: probing emails is throttled like guessing passwords', async () => {
  const { email } = await signedUp();
  const prober = server.client();
  // The locks run on the server's clock: frozen, no lock can run out while a slow machine works.
  server.clock.freeze();
  const statuses: number[] = [];
  for (let i = 0; i < FREE_FAILURES + 1; i++) {
    statuses.push((await prober.post('/dashboard/api/signup', { email, password: `not the password ${i}` })).status);
  }
  assert.deepEqual(statuses, [...Array(FREE_FAILURES).fill(409), 429]);
  // The lock is the log-in throttle's: logging in from this address is refused too, without a password check.
  const login = await prober.post('/dashboard/api/login', { email, password: 'a long enough password' });
  assert.equal(login.status, 429);
  assert.equal(login.body.error.code, 'login_throttled');
  server.clock.advance(60 * 60_000); // the lock and the failure windows run out for the tests after this one
  server.clock.resume();
});

test('sign up validation names the field', async () => {
  const res = await server.client().post('/dashboard/api/signup', { email: 'not-an-email', password: 'short' });
  assert.equal(res.status, 400);
  const fields = res.body.error.details.fields.map((f: { field: string }) => f.field).sort();
  assert.deepEqual(fields, ['email', 'password']);
  const extra = await server
    .client()
    .post('/dashboard/api/signup', { email: 'a@b.test', password: 'long enough pw', admin: true });
  assert.equal(extra.body.error.details.fields[0].field, 'admin');
});

test('login with wrong password or unknown email is 401; right password works; logout ends the session', async () => {
  const { email } = await signedUp();
  const c = server.client();
  assert.equal((await c.post('/dashboard/api/login', { email, password: 'wrong password!!' })).status, 401);
  assert.equal(
    (await c.post('/dashboard/api/login', { email: 'nobody@shop.test', password: 'wrong password!!' })).status,
    401,
  );
  const ok = await c.post('/dashboard/api/login', { email, password: 'a long enough password' });
  assert.equal(ok.status, 200);
  c.csrf = ok.body.csrf_token;
  assert.equal((await c.request('POST', '/dashboard/api/logout')).status, 204);
  assert.equal((await c.get('/dashboard/api/session')).status, 401);
});

test('state-changing dashboard calls need the CSRF token', async () => {
  const { c } = await signedUp();
  const csrf = c.csrf;
  c.csrf = null;
  const res = await c.post('/dashboard/api/tokens', { name: 'no csrf' });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, 'csrf_failed');
  c.csrf = 'wrong';
  assert.equal((await c.post('/dashboard/api/tokens', { name: 'bad csrf' })).status, 403);
  c.csrf = csrf;
  assert.equal((await c.post('/dashboard/api/tokens', { name: 'good' })).status, 201);
});

test('a token is shown once, listed without its secret, works, records last use, and revocation is immediate', async () => {
  const { c } = await signedUp();
  const created = await c.post('/dashboard/api/tokens', { name: 'shop backend' });
  assert.equal(created.status, 201);
  const api = server.client(created.body.token);
  const me = await api.get('/v2/user');
  assert.equal(me.status, 200);
  const list = await c.get('/dashboard/api/tokens');
  const listed = list.body.data.find((t: { token_id: string }) => t.token_id === created.body.token_id);
  assert.ok(listed, 'token listed');
  assert.equal('token' in listed, false, 'no secret in the list');
  assert.ok(listed.last_used_at, 'last use recorded');
  const revoked = await c.delete(`/dashboard/api/tokens/${created.body.token_id}`);
  assert.equal(revoked.status, 200);
  assert.deepEqual(revoked.body, { token_id: created.body.token_id, deleted: true });
  const after = await api.get('/v2/user');
  assert.equal(after.status, 401);
  assert.match(after.body.error.message, /revoked/);
  assert.equal((await c.delete(`/dashboard/api/tokens/${created.body.token_id}`)).status, 404);
});

test("an operator's SQL change to an account or a token reaches a token the server has cached", async () => {
  const { c, email } = await signedUp();
  const created = await c.post('/dashboard/api/tokens', { name: 'cached' });
  const api = server.client(created.body.token);
  assert.equal((await api.get('/v2/user')).body.plan, 'free'); // the token and its account are cached now
  // Not through the API: the way an operator upgrades a shop. The cache would otherwise serve 'free' for 30 s
  // of the server's clock, which stands still here: only the change's notification can empty it.
  server.clock.freeze();
  try {
    await server.deps.db.query(`UPDATE accounts SET plan = 'business' WHERE email = $1`, [email]);
    await until('the new plan to apply', 20_000, async () =>
      (await api.get('/v2/user')).body.plan === 'business' ? true : undefined,
    );
    await server.deps.db.query('UPDATE api_tokens SET revoked_at = now() WHERE id = $1', [created.body.token_id]);
    await until('the revocation to apply', 20_000, async () =>
      (await api.get('/v2/user')).status === 401 ? true : undefined,
    );
  } finally {
    server.clock.resume();
  }
});

test('another account cannot revoke my token (404)', async () => {
  const a = await signedUp();
  const b = await signedUp();
  const created = await a.c.post('/dashboard/api/tokens', { name: 'mine' });
  assert.equal((await b.c.delete(`/dashboard/api/tokens/${created.body.token_id}`)).status, 404);
  assert.equal((await server.client(created.body.token).get('/v2/user')).status, 200);
});

test('alg:none, tampered, wrongly signed, expired and unknown tokens are refused with 401', async () => {
  const { token, accountId, tokenId } = await server.newAccount();
  const [h, p] = token.split('.');
  assert.ok(p, 'the token has a payload');
  const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`;
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
  const tampered = `${h}.${Buffer.from(JSON.stringify({ ...payload, sub: 'usr_someoneelse' })).toString('base64url')}.${token.split('.')[2]}`;
  const wrongKey = jwt.sign({ sub: accountId, typ: 'api' }, 'another secret entirely, long enough', {
    jwtid: tokenId,
    issuer: 'slicequote',
  });
  const expired = jwt.sign(
    { sub: accountId, typ: 'api', exp: Math.floor(Date.now() / 1000) - 60 },
    'test-secret-that-is-long-enough-0123456789',
    { jwtid: tokenId, issuer: 'slicequote' },
  );
  const unknown = jwt.sign({ sub: accountId, typ: 'api' }, 'test-secret-that-is-long-enough-0123456789', {
    jwtid: 'tok_doesnotexist',
    issuer: 'slicequote',
  });
  const hs512 = jwt.sign({ sub: accountId, typ: 'api' }, 'test-secret-that-is-long-enough-0123456789', {
    jwtid: tokenId,
    issuer: 'slicequote',
    algorithm: 'HS512',
  });
  for (const [name, bad] of Object.entries({
    none,
    tampered,
    wrongKey,
    expired,
    unknown,
    hs512,
    garbage: 'abc.def.ghi',
  })) {
    const res = await server.client(bad).get('/v2/user');
    assert.equal(res.status, 401, name);
    assert.equal(res.body.error.code, 'unauthorized', name);
  }
  assert.match((await server.client(expired).get('/v2/user')).body.error.message, /expired/);
  const noHeader = await new ApiClient(server.url).get('/v2/user');
  assert.equal(noHeader.status, 401);
  assert.ok(noHeader.headers.get('www-authenticate'));
  assert.equal((await server.client(token).get('/v2/user')).status, 200);
});

test('GET /v2/user returns the documented user fields', async () => {
  const { token, accountId, email } = await server.newAccount({ plan: 'business' });
  const res = await server.client(token).get('/v2/user');
  assert.equal(res.body.user_id, accountId);
  assert.equal(res.body.email, email);
  assert.equal(res.body.plan, 'business');
  assert.equal(res.body.quotes_used, 0);
  assert.equal(res.body.quotes_limit, 50000);
});

test('unknown routes and wrong methods answer the error shape', async () => {
  const res = await server.client().get('/v2/nothing-here');
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, 'route_not_found');
  const wrong = await server.client().request('PATCH', '/v2/user');
  assert.equal(wrong.status, 405);
  assert.equal(wrong.body.error.code, 'method_not_allowed');
});

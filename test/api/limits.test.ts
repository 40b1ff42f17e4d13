// Rate limits: headers on every response (errors included), 429 + Retry-After at the limit, recovery after
// the window, per-token / per-class / per-address / per-upload-id counters, and the OpenAPI description.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { declaredRoutes, limitClass, routeAccess } from '../../server/accounts/access/allow.ts';
import { addressKey } from '../../server/accounts/caller.ts';
import { insertWidgetKey } from '../../server/accounts/widget-keys-sql.ts';
import { createRouter } from '../../server/app.ts';
import { openApiDocument } from '../../server/contract.ts';
import { createMemoryLimiter } from '../../server/limits/rate-limiter.ts';
import { ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

// Long enough that a loaded CI machine answers a test's few requests within one window.
const WINDOW_S = 4;

const plansDir = mkdtempSync(path.join(tmpdir(), 'sq-plans-'));
after(() => rmSync(plansDir, { recursive: true, force: true }));

/** The bundled plans plus "tiny": a few requests per WINDOW_S-second window in every class. */
function plansFile(): string {
  const bundled = JSON.parse(readFileSync(new URL('../../server/plans.json', import.meta.url), 'utf8'));
  const rule = (limit: number) => ({ limit, window_seconds: WINDOW_S });
  const tiny = {
    label: 'Tiny',
    monthly_quotes: 10,
    storage_bytes: 1_000_000,
    rate_limits: { quote: rule(2), upload: rule(2), read: rule(3), write: rule(2) },
  };
  const file = path.join(plansDir, 'plans.json');
  writeFileSync(file, JSON.stringify({ ...bundled, tiny }));
  return file;
}

let server: TestServer; // token limits from the plans; anonymous callers on the free plan
let anonServer: TestServer; // anonymous callers on "tiny", client address from X-Forwarded-For
before(async () => {
  const PLANS_FILE = plansFile();
  server = await startTestServer({ PLANS_FILE });
  anonServer = await startTestServer({ PLANS_FILE, RATE_LIMIT_ANON_PLAN: 'tiny', TRUST_PROXY: 'true' });
});
after(async () => {
  await server.stop();
  await anonServer.stop();
});

function rateHeaders(res: { headers: Headers }) {
  const read = (name: string) => {
    const v = res.headers.get(name);
    assert.ok(v !== null && /^\d+$/.test(v), `${name} is a whole number (got ${v})`);
    return Number(v);
  };
  return {
    limit: read('x-ratelimit-limit'),
    remaining: read('x-ratelimit-remaining'),
    reset: read('x-ratelimit-reset'),
  };
}

test('every documented operation answers with X-RateLimit-* headers, with a token and without (errors included)', async () => {
  const { token } = await server.newAccount();
  const doc = openApiDocument();
  let checked = 0;
  for (const [template, item] of Object.entries<any>(doc.paths)) {
    const url = template.replace(/\{[^}]+\}/g, 'x_does_not_exist');
    for (const method of ['get', 'post', 'put', 'delete', 'options']) {
      if (!item[method]) continue;
      for (const auth of [`Bearer ${token}`, null, 'Bearer not-a-token']) {
        // Raw fetch: only the headers are under test here (other routes' bodies are their own tests' business).
        const headers: Record<string, string> = auth ? { authorization: auth } : {};
        const body = method === 'post' || method === 'put' ? '{}' : undefined;
        if (body) headers['content-type'] = 'application/json';
        const res = await fetch(server.url + url, { method: method.toUpperCase(), headers, body, redirect: 'manual' });
        await res.arrayBuffer();
        const h = rateHeaders(res);
        assert.ok(h.remaining <= h.limit, `${method} ${url}: remaining <= limit`);
        assert.ok(
          h.reset >= 1 && h.reset <= 60,
          `${method} ${url}: reset is seconds within the window (got ${h.reset})`,
        );
        checked++;
      }
    }
  }
  assert.ok(checked > 60, `walked ${checked} requests`);
  const c = server.client(token);
  for (const res of [
    await c.get('/v2/nothing-here'),
    await c.request('PATCH', '/v2/user'),
    await server.client().get('/v2/user'),
    await c.get('/healthz'),
  ]) {
    rateHeaders(res);
  }
});

test("a widget call refused by the rate limits is readable by the shop's page (CORS on the 429)", async () => {
  // Widget calls are counted per shopper address, on the anonymous plan ("tiny" on anonServer).
  const { accountId } = await anonServer.newAccount();
  const key = `pk_${accountId}`;
  await insertWidgetKey(anonServer.deps.db, {
    id: `wk_${accountId}`,
    account_id: accountId,
    name: 'Shop',
    key,
    allowed_origins: ['https://shop.example'],
  });
  const headers = { 'x-widget-key': key, origin: 'https://shop.example', 'x-forwarded-for': '198.51.100.77' };
  let refused: Response | undefined;
  for (let i = 0; i < 6 && !refused; i++) {
    const res = await fetch(`${anonServer.url}/v2/widget/config`, { headers });
    await res.arrayBuffer();
    if (res.status === 429) refused = res;
  }
  assert.ok(refused, 'the tiny plan refuses the fourth read in a window');
  assert.equal(refused.headers.get('access-control-allow-origin'), 'https://shop.example');
  assert.equal(refused.headers.get('access-control-allow-credentials'), null);
});

test('at the limit: 429 rate_limited with Retry-After; the count starts again after the window', async () => {
  const { token } = await server.newAccount({ plan: 'tiny' });
  const c = server.client(token);
  const seen = [];
  for (let i = 0; i < 3; i++) {
    const res = await c.get('/v2/user');
    assert.equal(res.status, 200);
    seen.push(rateHeaders(res));
  }
  assert.deepEqual(
    seen.map((h) => [h.limit, h.remaining]),
    [
      [3, 2],
      [3, 1],
      [3, 0],
    ],
  );
  const refused = await c.get('/v2/user');
  assert.equal(refused.status, 429);
  assert.equal(refused.body.error.code, 'rate_limited');
  const retryAfter = Number(refused.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= WINDOW_S, `Retry-After ${retryAfter}`);
  const h = rateHeaders(refused);
  assert.equal(h.remaining, 0);
  assert.ok(h.reset <= WINDOW_S);
  // Refused requests count too, but do not extend the window.
  assert.equal((await c.get('/v2/quota')).status, 429);
  server.clock.advance(retryAfter * 1000);
  const again = await c.get('/v2/user');
  assert.equal(again.status, 200);
  assert.deepEqual([rateHeaders(again).limit, rateHeaders(again).remaining], [3, 2]);
});

test('classes and tokens have separate counters', async () => {
  const a = await server.newAccount({ plan: 'tiny' });
  const c = server.client(a.token);
  for (let i = 0; i < 3; i++) assert.equal((await c.get('/v2/user')).status, 200);
  assert.equal((await c.get('/v2/user')).status, 429);
  // write class (printability is a POST): its own counter, limit 2
  const write = await c.post('/v2/printability/file_nothere', {});
  assert.equal(write.status, 404);
  assert.deepEqual([rateHeaders(write).limit, rateHeaders(write).remaining], [2, 1]);
  // quote class: limit 2
  const quote = await c.post('/v2/file/quote/file_nothere', {});
  assert.equal(quote.status, 404);
  assert.equal(rateHeaders(quote).limit, 2);
  // Another token of another account on the same plan is not affected.
  const b = await server.newAccount({ plan: 'tiny' });
  const other = await server.client(b.token).get('/v2/user');
  assert.equal(other.status, 200);
  assert.equal(rateHeaders(other).remaining, 2);
  // Plans set the numbers: a pro token reads 1200 per minute.
  const pro = await server.newAccount({ plan: 'pro' });
  const proRes = await server.client(pro.token).get('/v2/user');
  assert.equal(rateHeaders(proRes).limit, 1200);
});

test('requests without a valid token are limited per client address, 401s included', async () => {
  const from = (ip: string, token?: string) => ({
    'x-forwarded-for': ip,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  });
  const c = new ApiClient(anonServer.url);
  for (let i = 0; i < 2; i++) {
    const res = await c.get('/v2/user', from('198.51.100.7'));
    assert.equal(res.status, 401);
    assert.equal(rateHeaders(res).remaining, 2 - i);
  }
  // An invalid token does not escape the address's counter.
  assert.equal((await c.get('/v2/user', from('198.51.100.7', 'garbage.token.here'))).status, 401);
  const refused = await c.get('/v2/user', from('198.51.100.7'));
  assert.equal(refused.status, 429);
  assert.equal(refused.body.error.code, 'rate_limited');
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  // Another address has its own counter; so does a valid token from the limited address.
  assert.equal((await c.get('/v2/user', from('198.51.100.8'))).status, 401);
  const { token } = await anonServer.newAccount({ plan: 'pro' });
  assert.equal((await c.get('/v2/user', from('198.51.100.7', token))).status, 200);
  // IPv6 callers are counted per /64.
  assert.equal(addressKey('2001:db8:1:2:aaaa::1'), addressKey('2001:db8:1:2:bbbb::9'));
  assert.notEqual(addressKey('2001:db8:1:2::1'), addressKey('2001:db8:1:3::1'));
  assert.equal(addressKey('::ffff:203.0.113.9'), '203.0.113.9');
});

test('the public upload route is limited per client address and per upload id', async () => {
  const c = new ApiClient(anonServer.url);
  const upload = (id: string, ip: string) =>
    c.request('POST', `/v2/file/public/${id}`, { headers: { 'x-forwarded-for': ip } });
  // One upload id from three addresses: the id's own counter (limit 2) refuses the third.
  const first = await upload('up_sameid', '203.0.113.1');
  assert.equal(first.status, 404);
  assert.match(first.headers.get('access-control-expose-headers') ?? '', /X-RateLimit-Remaining/);
  const cors = await c.request('GET', '/v2/user', {
    headers: { origin: 'https://shop.example', 'x-forwarded-for': '203.0.113.99' },
  });
  assert.match(cors.headers.get('access-control-expose-headers') ?? '', /X-RateLimit-Reset/);
  assert.equal((await upload('up_sameid', '203.0.113.2')).status, 404);
  const byId = await upload('up_sameid', '203.0.113.3');
  assert.equal(byId.status, 429);
  assert.equal(byId.body.error.code, 'rate_limited');
  assert.ok(Number(byId.headers.get('retry-after')) >= 1);
  // A trailing slash names the same upload id (the route's parameter), so the same used-up counter. (Sent
  // without the contract check, which knows the path without the slash.)
  const slashed = await fetch(`${anonServer.url}/v2/file/public/up_sameid/`, {
    method: 'POST',
    headers: { 'x-forwarded-for': '203.0.113.4' },
  });
  assert.equal(slashed.status, 429);
  assert.equal(((await slashed.json()) as any).error.code, 'rate_limited');
  // One address with fresh upload ids: the address's counter refuses the third.
  assert.equal((await upload('up_a1', '203.0.113.50')).status, 404);
  assert.equal((await upload('up_a2', '203.0.113.50')).status, 404);
  const byAddress = await upload('up_a3', '203.0.113.50');
  assert.equal(byAddress.status, 429);
  assert.equal(rateHeaders(byAddress).remaining, 0);
});

test('the OpenAPI document declares the rate-limit headers on every response and a 429 on every operation', () => {
  const doc = openApiDocument();
  for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'])
    assert.ok(doc.components.headers[name], name);
  assert.match(doc.components.headers['X-RateLimit-Reset'].description, /[Ss]econds until/);
  assert.ok(doc.components.responses.TooManyRequests.headers['Retry-After']);
  for (const [template, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!op?.responses) continue;
      assert.ok(op.responses['429'], `${method} ${template} documents 429`);
      assert.ok(['quote', 'upload', 'read', 'write'].includes(op['x-rate-limit-class']), `${method} ${template} class`);
      for (const [status, response] of Object.entries<any>(op.responses)) {
        const resolved = response.$ref ? doc.components.responses[response.$ref.split('/').pop()] : response;
        for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
          assert.ok(resolved.headers?.[h], `${method} ${template} ${status} declares ${h}`);
        }
      }
    }
  }
  assert.equal(doc.paths['/v2/file/quote/{file_id}'].post['x-rate-limit-class'], 'quote');
  assert.equal(doc.paths['/v2/file'].post['x-rate-limit-class'], 'upload');
  assert.equal(doc.paths['/v2/file/public/{upload_id}'].post['x-rate-limit-class'], 'upload');
});

test('memory limiter: fixed window from the first request, reset in ms, old windows forgotten', async () => {
  let t = 1_000_000;
  const limiter = createMemoryLimiter(() => t);
  const r1 = await limiter.hit('k', 2, 1000);
  assert.deepEqual([r1.count, r1.remaining, r1.resetMs, r1.allowed], [1, 1, 1000, true]);
  t += 400;
  const r2 = await limiter.hit('k', 2, 1000);
  assert.deepEqual([r2.count, r2.remaining, r2.resetMs, r2.allowed], [2, 0, 600, true]);
  const r3 = await limiter.hit('k', 2, 1000);
  assert.equal(r3.allowed, false);
  t += 600;
  const r4 = await limiter.hit('k', 2, 1000);
  assert.deepEqual([r4.count, r4.allowed, r4.resetMs], [1, true, 1000]);
  assert.equal((await limiter.hit('other', 2, 1000)).count, 1);
});

test('endpoint classes are those the routes declare, whatever the case or a trailing slash', () => {
  const router = createRouter(server.deps);
  const endpointClass = (method: string, path: string) =>
    limitClass(routeAccess(router, method, path, method === 'OPTIONS' ? undefined : method), method);
  assert.equal(endpointClass('POST', '/v2/file/quote/file_1'), 'quote');
  assert.equal(endpointClass('POST', '/v2/file/quote/file_1/async'), 'quote');
  assert.equal(endpointClass('POST', '/V2/FILE/'), 'upload');
  assert.equal(endpointClass('POST', '/v2/file/public/up_1'), 'upload');
  assert.equal(endpointClass('GET', '/v2/file/file_1'), 'read');
  assert.equal(endpointClass('OPTIONS', '/v2/file/public/up_1'), 'read');
  assert.equal(endpointClass('DELETE', '/v2/file/file_1'), 'write');
  assert.equal(endpointClass('POST', '/v2/printability/file_1'), 'write');
});

test('every route declares who may call it, and its rate-limit class is the one the OpenAPI document names', () => {
  const router = createRouter(server.deps);
  const doc = openApiDocument();
  const routes = declaredRoutes(router);
  assert.ok(routes.length >= 60, `${routes.length} routes`);
  for (const route of routes) {
    assert.ok(route.access, `${route.methods} ${route.path} declares its callers`);
    const template = route.path.replace(/:(\w+)/g, '{$1}').replace(/\/$/, '');
    for (const method of route.methods) {
      const op = doc.paths[template]?.[method.toLowerCase()];
      if (!op) continue; // the dashboard's single-page app is served under a pattern, not an operation
      assert.equal(limitClass(route.access, method), op['x-rate-limit-class'], `${method} ${template}`);
      const widget = op.security?.some((s: Record<string, unknown>) => 'widgetKey' in s) ?? false;
      assert.equal(route.access!.callers.includes('widget'), widget, `${method} ${template}: widget key`);
    }
  }
});

// What an operator can rely on without configuring anything: /metrics is not open outside demo mode, nothing but
// the widget can be framed by another site, the widget key's own origin is PUBLIC_URL's (a forged Host header
// gains nothing), text that is not Unicode is a 400 naming the field, and file names cannot disguise themselves
// with bidirectional controls.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';

const SHOP = 'https://switches-shop.example';
let server: TestServer;
before(async () => {
  server = await startTestServer({ RATE_LIMIT_ANON_PLAN: 'business' });
});
after(() => server.stop());

test('outside demo mode /metrics without a METRICS_TOKEN is not served: 404', async () => {
  const res = await server.client().get('/metrics');
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, 'route_not_found');
});

test('demo mode serves /metrics without a token; a token is still required when set', async () => {
  const demo = await startTestServer({ DEMO_ACCOUNT: 'true' });
  after(() => demo.stop());
  const res = await demo.client().get('/metrics');
  assert.equal(res.status, 200);
  assert.match(new TextDecoder().decode(res.raw), /^slicequote_process_resident_memory_bytes \d+/m);
  const guarded = await startTestServer({ DEMO_ACCOUNT: 'true', METRICS_TOKEN: 'scrape-secret' });
  after(() => guarded.stop());
  assert.equal((await guarded.client().get('/metrics')).status, 401);
  assert.equal((await guarded.client('scrape-secret').get('/metrics')).status, 200);
});

const frameHeaders = (res: { headers: Headers }) => ({
  xfo: res.headers.get('x-frame-options'),
  csp: res.headers.get('content-security-policy'),
});

test('the dashboard page carries a tight CSP with frame-ancestors self and X-Frame-Options', async () => {
  const page = await fetch(`${server.url}/dashboard/`);
  assert.equal(page.status, 200);
  const { xfo, csp } = frameHeaders(page);
  assert.equal(xfo, 'SAMEORIGIN');
  const directives = new Map(
    (csp ?? '').split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name, values.join(' ')] as const;
    }),
  );
  assert.equal(directives.get('frame-ancestors'), "'self'");
  assert.equal(directives.get('script-src'), "'self'", 'no inline or foreign scripts');
  assert.equal(directives.get('connect-src'), "'self'");
  assert.equal(directives.get('object-src'), "'none'");
  assert.equal(directives.get('base-uri'), "'none'");
});

test('the dashboard API, the token API and unknown routes may be framed only by this origin, errors included', async () => {
  const dashboard = (await merchantShop(server, 'frames@example.test', SHOP)).dashboard;
  for (const res of [
    await dashboard.get('/dashboard/api/session'),
    await server.client().get('/dashboard/api/session'),
    await server.client().get('/v2/user'),
    await server.client().get('/no/such/route'),
    await server.client().get('/docs'),
  ]) {
    assert.deepEqual(frameHeaders(res), { xfo: 'SAMEORIGIN', csp: "frame-ancestors 'self'" });
  }
});

test('the widget script and the widget API stay embeddable on any origin', async () => {
  const { key } = await merchantShop(server, 'embeds@example.test', SHOP);
  const script = await fetch(`${server.url}/widget/slice-quote.js`);
  const config = await server.client().get('/v2/widget/config', { 'x-widget-key': key, origin: SHOP });
  const refused = await server.client().get('/v2/widget/config', { 'x-widget-key': key, origin: 'https://x.test' });
  assert.equal(script.status, 200);
  assert.equal(config.status, 200);
  assert.equal(refused.status, 403);
  for (const res of [script, config, refused]) assert.deepEqual(frameHeaders(res), { xfo: null, csp: null });
});

/** A raw request, so that the Host header is the one we choose (fetch sets its own). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
      })
      .on('error', reject);
  });
}

test("the widget key's own origin is PUBLIC_URL's: a forged Host header does not make a page's origin allowed", async () => {
  const { key } = await merchantShop(server, 'hosts@example.test', SHOP);
  const attacker = 'http://attacker.example';
  const forged = await rawGet(`${server.url}/v2/widget/config`, {
    host: 'attacker.example',
    origin: attacker,
    'x-widget-key': key,
  });
  assert.equal(forged.status, 403);
  assert.equal(forged.body.error.code, 'origin_not_allowed');
  const sameOriginForged = await rawGet(`${server.url}/v2/widget/config`, {
    host: 'attacker.example',
    'sec-fetch-site': 'same-origin',
    'x-widget-key': key,
  });
  assert.equal(sameOriginForged.status, 200, 'a same-origin call (the dashboard preview) is the server own origin');
  const own = await rawGet(`${server.url}/v2/widget/config`, {
    origin: new URL(server.deps.config.publicUrl).origin,
    'x-widget-key': key,
  });
  assert.equal(own.status, 200, "PUBLIC_URL's origin (the dashboard preview) is allowed");
});

test("PUBLIC_URL behind a proxy is the widget key's own origin, whatever Host the proxy forwards", async () => {
  const proxied = await startTestServer({ PUBLIC_URL: 'https://quotes.example.com', TRUST_PROXY: '1' });
  after(() => proxied.stop());
  const { key } = await merchantShop(proxied, 'proxied@example.test', SHOP);
  const widgetAt = (origin: string, host: string) =>
    rawGet(`${proxied.url}/v2/widget/config`, { origin, host, 'x-forwarded-proto': 'https', 'x-widget-key': key });
  assert.equal((await widgetAt('https://quotes.example.com', 'internal:8080')).status, 200);
  assert.equal((await widgetAt('https://evil.example', 'evil.example')).status, 403);
});

test('a lone UTF-16 surrogate in a quote body is 400 invalid_text naming the field, not a 500', async () => {
  const { token } = await server.newAccount();
  const api = server.client(token);
  const file = (await api.uploadBytes('/v2/file', new TextEncoder().encode(CUBE_OBJ), 'cube.obj')).body.file_id;
  const cases: [unknown, string][] = [
    [{ color: '\uD800' }, 'color'],
    [{ color: 'red\uDC00' }, 'color'],
    [{ material_config: { filament_type: 'PLA', filament_colour: 'a\uDBFFb' } }, 'material_config.filament_colour'],
    [{ material_config: { '\uD83D': 1 } }, 'material_config.\uD83D'],
  ];
  for (const [body, field] of cases) {
    const res = await api.post(`/v2/file/quote/${file}`, body);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'invalid_text');
    assert.equal(res.body.error.details.field, field);
  }
  const paired = await api.post(`/v2/file/quote/${file}`, { color: 'Red 😀' });
  assert.equal(paired.status, 200, 'a surrogate pair is a character like any other');
});

test('every JSON route refuses a lone surrogate, in values, keys and array items', async () => {
  const signup = await server.client().post('/dashboard/api/signup', {
    email: 'surrogate@example.test',
    password: 'a long enough password',
    shop_name: 'Prints \uDE00',
  });
  assert.equal(signup.status, 400);
  assert.deepEqual(signup.body.error.details, { field: 'shop_name' });
  const { dashboard } = await merchantShop(server, 'surrogate-keys@example.test', SHOP);
  const key = await dashboard.post('/dashboard/api/widget-keys', { name: 'k', allowed_origins: [SHOP, '\uD800'] });
  assert.equal(key.status, 400);
  assert.deepEqual(key.body.error.details, { field: 'allowed_origins.1' });
});

test('bidirectional control characters are removed from stored file names', async () => {
  const { token } = await server.newAccount();
  const api = server.client(token);
  const cube = new TextEncoder().encode(CUBE_OBJ);
  const cases: [string, string][] = [
    ['\u202Egnp.obj', 'gnp.obj'], // would show as "jbo.png"
    ['invoice\u202Ejbo.exe.obj', 'invoicejbo.exe.obj'],
    ['\u2066a\u2069\u2067b\u2068c\u200E\u200F\u061C\u202A\u202B\u202C\u202D.obj', 'abc.obj'],
    ['\u202E', 'model'],
  ];
  for (const [sent, stored] of cases) {
    const up = await api.uploadBytes('/v2/file', cube, sent);
    assert.equal(up.status, 201, JSON.stringify(up.body));
    assert.equal(up.body.name, stored);
    const download = await api.get(`/v2/file/${up.body.file_id}`);
    assert.match(download.headers.get('content-disposition') ?? '', new RegExp(`''${encodeURIComponent(stored)}$`));
  }
});

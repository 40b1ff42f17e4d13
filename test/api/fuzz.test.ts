// Property-based walk of the whole API, read from the served /v2/openapi.json: every operation gets hostile
// path, query and body values (wrong types, huge and unicode strings, negative and non-finite numbers, nested
// junk, missing fields, wrong content types) from an API token, a session, a widget key and nobody. No answer
// may be a 5xx, and every 4xx answers the documented error shape. Bounded (FUZZ_RUNS per operation and
// caller) so the file runs in well under 90 s; set SQ_FUZZ_RUNS for a longer soak.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const FUZZ_RUNS = Number(process.env.SQ_FUZZ_RUNS ?? 12);
const SHOP = 'https://fuzz-shop.example';
type Schema = Record<string, any>;
type Caller = 'token' | 'session' | 'widget' | 'anonymous';

let server: TestServer;
let doc: Schema;
let headersOf: Record<Caller, Record<string, string>>;
/** Real ids per path parameter name, so that some requests get past the lookup into the handler. */
let realIds: Record<string, string[]>;

const enc = (s: string) => new TextEncoder().encode(s);

before(async () => {
  // Quotes are walked up to the slice: a valid fuzzed quote is queued and answered 202 at once (no sync wait),
  // and this server runs no worker, so the walk spends no time slicing.
  server = await startTestServer({
    QUOTE_SYNC_WAIT_MS: '0',
    WORKER_ROLE: 'api',
    SLICER_QUEUE_SIZE: '100000',
    RATE_LIMIT_ANON_PLAN: 'business',
  });
  const account = await server.newAccount({ plan: 'business' });
  const api = server.client(account.token);
  const dashboard = server.client();
  const signup = await dashboard.post('/dashboard/api/signup', {
    email: 'fuzz@example.test',
    password: 'a long enough password',
    shop_name: 'Fuzz',
  });
  dashboard.csrf = signup.body.csrf_token;
  await server.deps.db.query(`UPDATE accounts SET plan = 'business' WHERE email = 'fuzz@example.test'`);
  const key = await dashboard.post('/dashboard/api/widget-keys', { name: 'fuzz', allowed_origins: [SHOP] });
  const spareKey = await dashboard.post('/dashboard/api/widget-keys', { name: 'spare', allowed_origins: [SHOP] });
  const spareToken = await dashboard.post('/dashboard/api/tokens', { name: 'spare' });
  const widgetHeaders = { 'x-widget-key': key.body.key, origin: SHOP };
  const upload = await server.client().request('GET', '/v2/file/upload-id', { headers: widgetHeaders });
  const shopperHeaders = { ...widgetHeaders, 'x-shopper-token': upload.body.shopper_token };
  const form = new FormData();
  form.append('file', new Blob([enc(CUBE_OBJ)]), 'cube.obj');
  const shopperFile = await server.client().request('POST', `/v2/file/public/${upload.body.upload_id}`, { form });
  const spareUpload = await server.client().request('GET', '/v2/file/upload-id', { headers: widgetHeaders });
  const file = await api.uploadBytes('/v2/file', enc(CUBE_OBJ), 'cube.obj');
  const refused = await api.post(`/v2/file/quote/${file.body.file_id}`, {
    material_config: { filament_type: 'Unobtainium' },
  });
  const hook = await api.post('/v2/webhooks', { url: 'https://93.184.215.14/hooks/fuzz', events: ['usage.alert'] });
  const profile = await api.post('/v2/profiles/printer', { name: 'Fuzz printer', settings: { fill_density: 30 } });
  const request = await server.client().request('POST', '/v2/quote-requests', {
    json: { file_id: shopperFile.body.file_id, reason: 'no_cart', name: 'Fuzz', email: 'fuzz@example.test' },
    headers: shopperHeaders,
  });
  assert.equal(request.status, 201, JSON.stringify(request.body));
  realIds = {
    file_id: [file.body.file_id, shopperFile.body.file_id],
    quote_id: [refused.body.error.details.quote_id],
    job_id: [refused.body.error.details.quote_id],
    webhook_id: [hook.body.webhook_id],
    delivery_id: ['del_doesnotexist'],
    profile_id: [profile.body.profile_id, 'prof_global_printer'],
    kind: ['printer', 'material', 'global'],
    token_id: [spareToken.body.token_id],
    widget_key_id: [spareKey.body.widget_key_id],
    upload_id: [spareUpload.body.upload_id],
    request_id: [request.body.request_id],
  };
  headersOf = {
    token: { authorization: `Bearer ${account.token}` },
    session: { cookie: dashboard.cookie!, 'x-csrf-token': dashboard.csrf! },
    widget: shopperHeaders,
    anonymous: {},
  };
  const served = await fetch(`${server.url}/v2/openapi.json`);
  doc = await served.json();
});
after(() => server.stop());

function resolve(schema: Schema | undefined): Schema {
  if (!schema) return {};
  if (schema.$ref) return resolve(doc.components.schemas[schema.$ref.split('/').pop()]);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map(resolve), { ...schema, allOf: undefined });
  return schema;
}

// ---- hostile values ----------------------------------------------------------------------------------------

const nasty = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uFEFF',
  '../../etc/passwd',
  '%00',
  '%',
  '%2e%2e%2f',
  '\\',
  'NaN',
  '-1',
  '1e309',
  '0x10',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '__proto__',
  'constructor',
  'toString',
  'A'.repeat(10_000),
  '😀'.repeat(500),
  'e\u0301',
  '\u202Eevil',
  '\uD800',
  'a\uDC00b',
  'null',
  'true',
  '[]',
  '{}',
  'CSV',
  'GYROID',
  'Printer',
  'file_',
  'qt_',
  'job_x',
  'prof_global_pla',
);
const hostileString = fc.oneof(nasty, fc.string({ maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 30 }));
const hostileNumber = fc.oneof(
  fc.constantFrom(-1, 0, -0, 1, 0.5, 1e308, -1e308, 2 ** 53 + 1, 5e-324, Number.MAX_SAFE_INTEGER, 1e21),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const key = fc.oneof(
  hostileString,
  fc.constantFrom('__proto__', 'constructor', 'printer_config', 'choices', 'settings', 'unit', 'events'),
);
const { junk } = fc.letrec<{ junk: unknown }>((tie) => ({
  junk: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('junk'), { maxLength: 4 }),
    fc.dictionary(key, tie('junk'), { maxKeys: 4 }),
  ),
}));

/** A value the schema allows, roughly: within bounds, enum members in any case, required keys mostly there. */
function plausible(schema: Schema, depth: number): fc.Arbitrary<unknown> | null {
  const types = [schema.type].flat();
  if (Array.isArray(schema.enum)) {
    const members = schema.enum.filter((e: unknown) => typeof e === 'string') as string[];
    if (members.length)
      return fc.oneof(
        fc.constantFrom(...members),
        fc.constantFrom(...members).map((m) => m.toUpperCase()),
      );
  }
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (types.includes('integer'))
    return fc.integer({ min: schema.minimum ?? -5, max: Math.min(schema.maximum ?? 1000, 1e9) });
  if (types.includes('number')) {
    const min = schema.minimum ?? schema.exclusiveMinimum ?? 0;
    return fc.double({ min, max: Math.max(min, Math.min(schema.maximum ?? 500, 1e6)), noNaN: true });
  }
  if (types.includes('boolean')) return fc.boolean();
  if (types.includes('string')) {
    if (schema.format === 'date') return fc.constantFrom('2031-01-05', '2030-02-30', '1999-12-31');
    if (schema.examples?.length) return fc.constantFrom(...schema.examples.map(String));
    return fc.string({ minLength: schema.minLength ?? 1, maxLength: Math.min(schema.maxLength ?? 20, 20) });
  }
  if (schema.properties) {
    const props = Object.fromEntries(
      Object.entries<Schema>(schema.properties).map(([name, sub]) => [name, shaped(sub, depth + 1)]),
    );
    return fc.record(props, { requiredKeys: (schema.required ?? []).filter((k: string) => k in props) });
  }
  if (schema.items) return fc.array(shaped(schema.items, depth + 1), { minLength: schema.minItems ?? 0, maxLength: 4 });
  if (types.includes('object')) return fc.oneof(fc.constant({}), fc.dictionary(key, junk, { maxKeys: 3 }));
  return null;
}

/** A value shaped by the schema, mostly plausible, with junk mixed in at any depth. */
function shaped(schemaIn: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(schemaIn);
  const good = depth <= 3 ? plausible(schema, depth) : null;
  // Junk rarer deeper down, so that some bodies are valid but for one field, and some valid throughout.
  return good ? fc.oneof({ arbitrary: good, weight: depth === 0 ? 3 : 12 }, { arbitrary: junk, weight: 1 }) : junk;
}

/** Query values are text: other shapes are sent as their JSON (a null-prototype object has no String()). */
const asText = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined'));

function pathSegment(name: string): fc.Arbitrary<string> {
  const encode = (s: string) => {
    try {
      return encodeURIComponent(s);
    } catch {
      return '%ED%A0%80'; // a lone surrogate: invalid UTF-8 once decoded
    }
  };
  return fc.oneof(
    fc.constantFrom(...(realIds[name] ?? ['x'])),
    hostileString.map(encode),
    nasty.map((s) => s.replace(/[/?#]/g, '')),
  );
}

/** JSON nested far deeper than any body: arrays or objects, thousands of levels (a recursive walk overflows). */
const deepJson = fc
  .tuple(fc.integer({ min: 60, max: 20_000 }), fc.constantFrom(['[', ']'], ['{"a":', '}'], ['[{"b":', '}]']))
  .map(([depth, [open, close]]) => ({
    kind: 'raw' as const,
    type: 'application/json',
    text: open!.repeat(depth) + (open === '[' ? '' : '1') + close!.repeat(depth),
  }));

interface Fuzzed {
  path: string;
  query: string;
  body:
    | { kind: 'none' }
    | { kind: 'json'; value: unknown }
    | { kind: 'raw'; type: string; text: string }
    | { kind: 'form'; fields: [string, string][]; part: string; file: Uint8Array | null };
}

/** The multipart schema's file part ("file", the check's "gcode"). */
function filePart(schema: Schema | undefined): string {
  const properties: Record<string, Schema> = resolve(schema).properties ?? {};
  return Object.entries(properties).find(([, p]) => p.format === 'binary')?.[0] ?? 'file';
}

/** The head of a binary G-code, then junk: block sizes, types and checksums from nowhere. */
const BGCODE_HEAD = new Uint8Array([...enc('GCDE'), 1, 0, 0, 0, 1, 0]);

function requestFor(template: string, op: Schema): fc.Arbitrary<Fuzzed> {
  const params: Schema[] = op.parameters ?? [];
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  // One value per name.
  const pathArb = fc
    .tuple(...names.map(pathSegment))
    .map((values) => names.reduce((p, n, i) => p.replace(`{${n}}`, values[i]!), template));
  const queryParams = params.filter((p) => p.in === 'query');
  const queryArb = fc
    .tuple(
      ...queryParams.map((p) =>
        fc.option(fc.oneof(shaped(p.schema).map(asText), fc.array(hostileString, { minLength: 2, maxLength: 2 })), {
          nil: undefined,
        }),
      ),
    )
    .map((values) => {
      const q = new URLSearchParams();
      values.forEach((v, i) => {
        if (v === undefined) return;
        for (const one of Array.isArray(v) ? v : [v]) q.append(queryParams[i]!.name, one); // one value per parameter
      });
      const text = q.toString();
      return text ? `?${text}` : '';
    });
  const content = op.requestBody?.content ?? {};
  const wrongType = fc.record({
    kind: fc.constant('raw' as const),
    type: fc.constantFrom('text/plain', 'application/xml', 'application/json', 'multipart/form-data; boundary=x'),
    text: hostileString,
  });
  type Weighted = { arbitrary: fc.Arbitrary<Fuzzed['body']>; weight: number };
  const bodies: Weighted[] = [
    { arbitrary: fc.constant({ kind: 'none' as const }), weight: 1 },
    { arbitrary: wrongType, weight: 1 },
    { arbitrary: deepJson, weight: 1 },
    { arbitrary: junk.map((value) => ({ kind: 'json' as const, value })), weight: 1 },
  ];
  if (content['application/json'])
    bodies.push({
      arbitrary: shaped(content['application/json'].schema).map((value) => ({ kind: 'json' as const, value })),
      weight: 5,
    });
  if (content['multipart/form-data']) {
    bodies.push({
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant('form' as const),
        fields: fc.array(fc.tuple(fc.constantFrom('unit', 'file', 'x'), hostileString), { maxLength: 2 }),
        part: fc.constant(filePart(content['multipart/form-data'].schema)),
        file: fc.option(
          fc.oneof(
            fc.uint8Array({ maxLength: 300 }),
            fc.constant(enc(CUBE_OBJ)),
            hostileString.map(enc),
            fc.uint8Array({ maxLength: 300 }).map((junk) => new Uint8Array([...BGCODE_HEAD, ...junk])),
          ),
          { nil: null },
        ),
      }),
    });
  }
  return fc.record({ path: pathArb, query: queryArb, body: fc.oneof(...bodies) });
}

async function send(method: string, caller: Caller, r: Fuzzed) {
  const headers: Record<string, string> = { ...headersOf[caller] };
  let body: BodyInit | undefined;
  if (r.body.kind === 'json') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(r.body.value) ?? 'null';
  } else if (r.body.kind === 'raw') {
    headers['content-type'] = r.body.type;
    body = r.body.text;
  } else if (r.body.kind === 'form') {
    const form = new FormData();
    for (const [name, value] of r.body.fields) form.append(name, value);
    if (r.body.file) form.append(r.body.part, new Blob([r.body.file as Uint8Array<ArrayBuffer>]), 'fuzz.stl');
    body = form;
  }
  if (method === 'GET' || method === 'HEAD') body = undefined;
  const res = await fetch(server.url + r.path + r.query, { method, headers, body, redirect: 'manual' });
  const raw = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', raw };
}

function assertErrorShape(where: string, type: string, raw: string) {
  assert.match(type, /application\/json/, `${where}: a 4xx answers JSON`);
  const body = JSON.parse(raw);
  assert.deepEqual(Object.keys(body), ['error'], `${where}: ${raw.slice(0, 300)}`);
  const { code, message, details, ...rest } = body.error;
  assert.match(code, /^[a-z0-9_]+$/, where);
  assert.equal(typeof message, 'string', where);
  assert.ok(
    details === undefined || (typeof details === 'object' && details !== null && !Array.isArray(details)),
    where,
  );
  assert.deepEqual(rest, {}, `${where}: no other keys`);
}

const CALLERS: Caller[] = ['token', 'session', 'widget', 'anonymous'];
const METHODS = ['get', 'post', 'put', 'delete', 'options'];

test('every operation of the served contract, fuzzed by every kind of caller: never a 5xx, every 4xx in the error shape', async () => {
  const started = Date.now();
  let requests = 0;
  const statuses = new Map<number, number>();
  // DELETEs last, so that the real ids stay usable by the other operations for as long as possible.
  const operations = Object.entries<Schema>(doc.paths)
    .flatMap(([template, item]) =>
      METHODS.filter((m) => item[m]).map((m) => ({ template, method: m.toUpperCase(), op: item[m] })),
    )
    .sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
  assert.ok(operations.length >= 50, `the walk covers the whole document (${operations.length} operations)`);
  const failures: string[] = [];
  for (const { template, method, op } of operations) {
    // Ending the fuzzing session would only make the later session calls 401: logout is fuzzed anonymously.
    const callers = op.operationId === 'logout' ? (['anonymous', 'token'] as Caller[]) : CALLERS;
    for (const caller of callers) {
      // Each operation and caller is its own property, so one failure (shrunk) does not hide the others.
      await fc
        .assert(
          fc.asyncProperty(requestFor(template, op), async (r) => {
            requests++;
            const { status, type, raw } = await send(method, caller, r);
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
            const where = `${caller} ${method} ${r.path}${r.query.slice(0, 200)} (${r.body.kind}) -> ${status}`;
            assert.ok(status < 500, `${where}: ${raw.slice(0, 500)}`);
            if (status >= 400 && method !== 'OPTIONS') assertErrorShape(where, type, raw);
          }),
          { numRuns: FUZZ_RUNS, endOnFailure: true },
        )
        .catch((err: Error) =>
          failures.push(`${caller} ${method} ${template}: ${err.message.split('\n').slice(0, 4).join(' | ')}`),
        );
    }
  }
  const seconds = (Date.now() - started) / 1000;
  const spread = [...statuses]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s}: ${n}`)
    .join(', ');
  console.log(`fuzz: ${operations.length} operations, ${requests} requests in ${seconds.toFixed(1)} s (${spread})`);
  // The walk must get past authentication and validation often enough to mean something.
  assert.ok(
    [200, 201, 202].some((s) => (statuses.get(s) ?? 0) > 0) && (statuses.get(422) ?? 0) + (statuses.get(404) ?? 0) > 0,
    spread,
  );
  assert.deepEqual(failures, [], failures.join('\n'));
});

// The hot path's work, counted: what /healthz and GET /v2/user run in front of their handlers, the SQL statements
// a request issues (the health checks' probe of the database at most once a second), the access log line and the
// request-log row it leaves. A count does not depend on how loaded the machine is, so this guard holds in CI where
// a timing would not; the timing against a bare Koa process is `npm run bench -- http` (docs/performance.md).

import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { insertWidgetKey } from '../../server/accounts/index.ts';
import { routerOf } from '../../server/app.ts';
import { migrate, type Queryable } from '../../server/db/index.ts';
import { JSON_CONTENT_TYPE, pageResponse } from '../../server/http/index.ts';
import { historyPages } from '../../server/quotes/history.ts';
import { presentQuote } from '../../server/quotes/present.ts';
import { QUOTE_RECORD_COLUMNS, type QuoteRecordRow } from '../../server/quotes/sql.ts';
import { routeWork } from '../../server/route-front.ts';
import { PROBE_FRESH_MS } from '../../server/system/health-probe.ts';
import { eventually } from '../helpers/poll.ts';
import { startTestServer, type TestServer, testDbKind } from '../helpers/server.ts';
import { privateSchema } from '../helpers/server-process.ts';

let server: TestServer;
let token: string;
/** The SQL a request caused (its own statements and the shared ones it started); background loops are not counted. */
const statements: string[] = [];
/** The route template of each access log line written. */
const accessRoutes: string[] = [];
/** While set, the health check's probe fails as it would with the database gone. */
let probeFails = false;

before(async () => {
  // API role: no slicing worker or webhook pump polling the database; the request log is written only when asked.
  server = await startTestServer({ WORKER_ROLE: 'api', USAGE_FLUSH_MS: '600000' });
  server.clock.freeze(); // the token's last use is written once per minute: the minute does not pass in this test
  ({ token } = await server.newAccount());
  // Each request runs in a context of its own, so that a statement can be told to come from a request.
  const inRequest = new AsyncLocalStorage<true>();
  const [handle] = server.server.listeners('request') as ((...a: unknown[]) => void)[];
  server.server.removeAllListeners('request');
  server.server.on('request', (req, res) => inRequest.run(true, () => handle!(req, res)));
  const db = server.deps.db;
  const query = db.query.bind(db);
  const transaction = db.transaction.bind(db);
  const counted = (sql: string) => {
    if (inRequest.getStore()) statements.push(sql);
  };
  db.query = ((sql: string, params?: unknown[]) => {
    counted(sql);
    if (probeFails && sql === 'SELECT 1') return Promise.reject(new Error('the database is gone'));
    return query(sql, params);
  }) as typeof db.query;
  db.transaction = ((fn: (tx: Queryable) => Promise<unknown>) => {
    counted('BEGIN');
    return transaction((tx) =>
      fn({
        query: (sql, params) => {
          counted(sql);
          return tx.query(sql, params);
        },
      }),
    );
  }) as typeof db.transaction;
  const request = server.deps.log.request.bind(server.deps.log);
  server.deps.log.request = (line) => {
    accessRoutes.push(line.route);
    request(line);
  };
});
after(() => server?.stop());

/** A keep-alive connection that sends a GET with `bearer` and resolves with the answer's status and body. */
async function connection(bearer = token): Promise<(path: string) => Promise<{ status: number; body: string }>> {
  const { port } = new URL(server.url);
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1', () => resolve(s)).once('error', reject);
  });
  let text = '';
  let answered: ((answer: { status: number; body: string }) => void) | null = null;
  socket.on('data', (d) => {
    text += d;
    const head = text.indexOf('\r\n\r\n');
    const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? -1);
    if (head < 0 || length < 0 || Buffer.byteLength(text) < head + 4 + length) return;
    const answer = { status: Number(text.split(' ')[1]), body: text.slice(head + 4) };
    text = '';
    answered?.(answer);
  });
  after(() => socket.destroy());
  return (path) => {
    const answer = new Promise<{ status: number; body: string }>((resolve) => (answered = resolve));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${bearer}\r\n\r\n`);
    return answer;
  };
}

/**
 * `n` keep-alive connections, each answered once already: the server has accepted them and reads them, so requests
 * written on all of them at once reach it in the same turn of its event loop, as requests on busy connections do
 * (a connection accepted in a turn is read in a later one).
 */
async function connections(n: number) {
  const sends = await Promise.all(Array.from({ length: n }, () => connection()));
  for (const send of sends) assert.equal((await send('/healthz')).status, 200);
  return (path: string) => Promise.all(sends.map(async (send) => (await send(path)).status));
}

/**
 * The statements `run`'s requests issued and the access log lines they wrote; each line is written as its answer
 * ends, which may come just after the client has it: waited for until `requests` lines are out.
 */
async function counting(requests: number, run: () => Promise<unknown>) {
  statements.length = 0;
  const linesBefore = accessRoutes.length;
  await run();
  await eventually(async () => accessRoutes.length - linesBefore >= requests, 20_000, `${requests} access log lines`);
  const routes = accessRoutes.slice(linesBefore);
  return { statements: [...statements], accessLines: routes.length, routes };
}

test('each route runs only the steps it declares: /healthz and GET /v2/user', () => {
  const router = routerOf(server.app);
  // /healthz: no request log (not a /v2 route), no session, no body; still rate limited, as every route.
  assert.deepEqual(routeWork(router, 'GET', '/healthz'), { front: ['frame-guard', 'rate-limit'], own: 2 });
  assert.deepEqual(routeWork(router, 'GET', '/v2/user'), {
    front: ['frame-guard', 'request-log', 'rate-limit'],
    own: 2,
  });
  // A route shop pages call gets CORS instead of the frame guard.
  assert.deepEqual(routeWork(router, 'GET', '/v2/openapi.json')?.front, ['cors', 'request-log', 'rate-limit']);
  // The app itself: the request edge, the router, and after it only what an unanswered request needs.
  assert.equal(server.app.middleware.length, 4);
});

test('GET /v2/user: one statement per request, shared by requests arriving together; one log line each; no write', async () => {
  const client = server.client(token);
  assert.equal((await client.get('/v2/user')).status, 200); // the token and its account are read and remembered
  const pending = server.deps.limits.requests.pending;

  const one = await counting(1, async () => assert.equal((await client.get('/v2/user')).status, 200));
  assert.deepEqual(one.statements.length, 1, `statements: ${one.statements.join(' | ')}`);
  assert.match(one.statements[0]!, /FROM usage_counters/);
  assert.equal(one.accessLines, 1);

  const burst = await connections(10);
  const many = await counting(10, async () => assert.deepEqual(await burst('/v2/user'), Array(10).fill(200)));
  assert.ok(many.statements.length <= 2, `10 requests together issued ${many.statements.length} statements`);
  assert.equal(many.accessLines, 10);
  // Requests after the first take the route's remembered chain: it names the route as the router does.
  assert.deepEqual([...one.routes, ...many.routes], Array(11).fill('/v2/user'));
  // Each request's row waits in the request log's buffer, written in batches, not one statement each.
  assert.equal(server.deps.limits.requests.pending, pending + 11);
});

test("a storefront's calls read its widget key and the shop's account once, not on every call", async () => {
  const { accountId } = await server.newAccount();
  const key = `pk_hot_path_${accountId}`;
  const shop = 'https://shop.example';
  await insertWidgetKey(server.deps.db, {
    id: `wk_${accountId}`,
    account_id: accountId,
    name: 'Shop',
    key,
    allowed_origins: [shop],
  });
  const config = async () => {
    const res = await fetch(`${server.url}/v2/widget/config`, { headers: { 'x-widget-key': key, origin: shop } });
    assert.equal(res.status, 200);
    return (await res.json()) as { materials: { name: string }[] };
  };
  const call = () => config().then(() => 200);
  const credentialReads = (statements: string[]) =>
    statements.filter((sql) => /^SELECT \* FROM (widget_keys WHERE key|accounts WHERE id)/.test(sql));
  const first = await counting(1, async () => assert.equal(await call(), 200));
  assert.equal(
    credentialReads(first.statements).length,
    2,
    `the first call reads both: ${first.statements.join(' | ')}`,
  );
  const later = await counting(3, async () => {
    for (let i = 0; i < 3; i++) assert.equal(await call(), 200);
  });
  assert.deepEqual(credentialReads(later.statements), [], 'later calls take the key and its account from memory');
  // The same offer and profiles: the answer built for them is answered again, after one statement that checks so.
  assert.equal(later.statements.length, 3, `one statement a call: ${later.statements.join(' | ')}`);
  // The configuration lists the shop's materials, each checked to resolve: from the same reads however many there are.
  // Profiles added by an operator's SQL, which tells no process, are in the next answer (PLA's settings: a material
  // that can be priced is offered).
  const built = first.statements.length - 2;
  for (const name of ['PETG-CF', 'ASA', 'PA12']) {
    await server.deps.db.query(
      `INSERT INTO profiles (id, account_id, kind, name, is_default, settings)
       SELECT $1, $2, 'material', $3, false, settings FROM profiles WHERE account_id IS NULL AND name = 'PLA'`,
      [`prof_${name}_${accountId}`, accountId, name],
    );
  }
  const more = await counting(1, async () => {
    const names = (await config()).materials.map((m) => m.name);
    for (const name of ['PETG-CF', 'ASA', 'PA12']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
  });
  assert.equal(
    more.statements.length,
    built,
    `three more materials, as many statements: ${more.statements.join(' | ')}`,
  );
  // A profile changed in place (an operator's UPDATE) is seen too, and then answered from memory again.
  await server.deps.db.query(`UPDATE profiles SET name = 'PA6' WHERE id = $1`, [`prof_PA12_${accountId}`]);
  const names = (await config()).materials.map((m) => m.name);
  assert.ok(names.includes('PA6') && !names.includes('PA12'), `renamed: ${names.join(', ')}`);
  assert.equal((await counting(1, call)).statements.length, 1);
  // An unknown key is not remembered: each try reads the table (and is refused).
  const unknown = async () =>
    (await fetch(`${server.url}/v2/widget/config`, { headers: { 'x-widget-key': `${key}_x`, origin: shop } })).status;
  const refused = await counting(2, async () => assert.deepEqual([await unknown(), await unknown()], [401, 401]));
  assert.equal(credentialReads(refused.statements).length, 2);
});

test("a shop's offer derived from its profiles is derived once per change, not on every call that quotes from it", async () => {
  const { accountId, token: own } = await server.newAccount();
  const client = server.client(own);
  const materials = async () => {
    const res = await client.get('/v2/offer');
    assert.equal(res.status, 200);
    assert.equal(res.body.source, 'default');
    return (res.body.materials as { material: string }[]).map((m) => m.material);
  };
  await materials(); // the token is read and remembered, the offer derived and kept
  const again = await counting(2, async () => assert.deepEqual(await materials(), await materials()));
  // One statement a call: the fingerprint of what the offer is made from.
  assert.equal(again.statements.length, 2, again.statements.join(' | '));
  assert.ok(
    again.statements.every((sql) => /md5/.test(sql)),
    again.statements.join(' | '),
  );
  // A material an operator adds by SQL, which tells no process, is in the next offer.
  await server.deps.db.query(
    `INSERT INTO profiles (id, account_id, kind, name, is_default, settings)
     SELECT $1, $2, 'material', 'PC-Blend', false, settings FROM profiles WHERE account_id IS NULL AND name = 'PLA'`,
    [`prof_pc_${accountId}`, accountId],
  );
  assert.ok((await materials()).includes('PC-Blend'));
});

test('/healthz: one database probe a second, shared by every check in it; a failed probe is not shared', async () => {
  const client = server.client(token);
  assert.equal((await client.get('/healthz')).status, 200); // the token is read and remembered (it is charged)
  server.clock.advance(PROBE_FRESH_MS + 1);
  const one = await counting(1, async () => assert.equal((await client.get('/healthz')).status, 200));
  assert.deepEqual(one.statements, ['SELECT 1']);
  assert.equal(one.accessLines, 1);
  const burst = await connections(10);
  const within = await counting(10, async () => assert.deepEqual(await burst('/healthz'), Array(10).fill(200)));
  assert.deepEqual(within.statements, [], 'checks within the second take its probe');
  assert.equal(within.accessLines, 10);
  server.clock.advance(PROBE_FRESH_MS + 1);
  const later = await counting(10, async () => assert.deepEqual(await burst('/healthz'), Array(10).fill(200)));
  assert.deepEqual(later.statements, ['SELECT 1'], 'a second later, ten checks together send one probe');
  // The answer, written out once, comes as an object's would.
  const answer = await fetch(`${server.url}/healthz`);
  assert.equal(answer.headers.get('content-type'), JSON_CONTENT_TYPE);
  assert.equal(await answer.text(), JSON.stringify({ status: 'ok', database: server.deps.db.kind }));

  server.clock.advance(PROBE_FRESH_MS + 1);
  probeFails = true;
  // A database gone is an answer the contract does not list (any route may answer 500): read around the client.
  const failed = await counting(1, async () => assert.equal((await fetch(`${server.url}/healthz`)).status, 500));
  assert.deepEqual(failed.statements, ['SELECT 1']);
  probeFails = false;
  // The same second, the database answering again: the failure was not kept, the next check probes and passes.
  const after = await counting(1, async () => assert.equal((await client.get('/healthz')).status, 200));
  assert.deepEqual(after.statements, ['SELECT 1']);
});

/** A completed quote's stored result: a few of the fields every one has, in the order the server writes them. */
const storedResult = (price: number, extra: Record<string, unknown> = {}) => ({
  total_price: price,
  minimum_unit_price: null,
  currency: 'EUR',
  estimated_time: '1h 2m',
  printInfo: { technology: 'FDM', material: 'PLA', color: 'red' },
  price_breakdown: { total: price, lines: [{ line: 'material', amount: price / 2 }] },
  settings: { printer_config: { layer_height: 0.2, infill_density: 15 }, quote_config: { currency: 'EUR' } },
  ...extra,
});

/** The history of a new account, newest first: completed quotes (one expiring), one failed, one queued. */
async function accountWithHistory() {
  const account = await server.newAccount();
  const now = server.clock.now().getTime();
  const quotes: [string, string, unknown, unknown, number][] = [
    ['completed', 'qt_h1', storedResult(12.5), null, 30 * 86_400_000],
    ['completed', 'qt_h2', storedResult(4), null, 60_000], // expires a minute from now
    // Stored before minimum_unit_price was a field of its own: read from its breakdown, answered after the rest.
    ['completed', 'qt_h3', { total_price: 9, price_breakdown: { minimum_unit_price: 2 } }, null, 86_400_000],
    // A stored result that names `expired` itself keeps that place in its record.
    ['completed', 'qt_h4', storedResult(7, { expired: false }), null, 86_400_000],
    ['failed', 'qt_h5', null, { code: 'slice_failed', message: 'The slicer stopped.' }, 0],
    ['queued', 'qt_h6', null, null, 0],
  ];
  for (const [i, [status, id, result, error, validMs]] of quotes.entries()) {
    await server.deps.db.query(
      `INSERT INTO quotes (id, account_id, file_id, file_name, mode, status, request, result, error, expires_at,
         created_at, finished_at)
       VALUES ($1, $2, 'file_h', 'part.stl', 'sync', $3, '{}', $4, $5, $6, $7, $8)`,
      [
        `${id}_${account.accountId}`,
        account.accountId,
        status,
        result === null ? null : JSON.stringify(result),
        error === null ? null : JSON.stringify(error),
        status === 'completed' ? new Date(now + validMs) : null,
        new Date(now - (i + 1) * 60_000),
        status === 'queued' ? null : new Date(now - (i + 1) * 60_000 + 1000),
      ],
    );
  }
  return account;
}

/** The history's first page as every record is presented one by one (the answer's shape before its text was kept). */
async function presentedHistory(accountId: string) {
  const rows = await server.deps.db.query<QuoteRecordRow>(
    `SELECT ${QUOTE_RECORD_COLUMNS.join(', ')} FROM quotes WHERE account_id = $1 AND deleted_at IS NULL
     ORDER BY created_at DESC, id DESC`,
    [accountId],
  );
  const now = server.clock.now();
  const page = { page: 1, limit: 20, offset: 0 };
  return JSON.stringify(
    pageResponse(
      rows.map((r) => presentQuote(r, now)),
      page,
      rows.length,
    ),
  );
}

/** The statements of the quote history among those a request issued (a token's first use reads it, too). */
const historyStatements = (statements: string[]) => statements.filter((sql) => /FROM quotes/.test(sql));

/** GET /v2/quotes?limit=20 with `token`: the answer's text, checked to come as JSON. */
async function historyText(token: string) {
  const res = await fetch(`${server.url}/v2/quotes?limit=20`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), JSON_CONTENT_TYPE);
  return res.text();
}

test('GET /v2/quotes: a page of records shown before is one statement, the same bytes as presenting each', async () => {
  const { accountId, token: own } = await accountWithHistory();
  const expected = await presentedHistory(accountId);
  assert.equal(await historyText(own), expected);

  const again = await counting(1, async () => assert.equal(await historyText(own), expected));
  const statements = historyStatements(again.statements);
  assert.equal(statements.length, 1, `statements: ${statements.join(' | ')}`);
  assert.match(statements[0]!, /count\(\*\)/);
  assert.doesNotMatch(statements[0]!, /result/, 'the page reads no stored result');

  server.clock.advance(2 * 60_000); // the second quote has expired: its kept record says so
  const expiredNow = await presentedHistory(accountId);
  assert.deepEqual(
    JSON.parse(expiredNow).data.map((q: { expired?: boolean }) => q.expired),
    [false, true, false, false, undefined, undefined],
  );
  const later = await counting(1, async () => assert.equal(await historyText(own), expiredNow));
  assert.equal(historyStatements(later.statements).length, 1);
});

test('HEAD /v2/quotes answers the headers of the page GET answers, without its body', async () => {
  const { token: own } = await accountWithHistory();
  const text = await historyText(own);
  const head = await fetch(`${server.url}/v2/quotes?limit=20`, {
    method: 'HEAD',
    headers: { authorization: `Bearer ${own}` },
  });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('content-type'), JSON_CONTENT_TYPE);
  assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(text)));
  assert.equal(await head.text(), '');
});

test('the records the history keeps are bounded: past its bytes, a record not shown again goes first', async () => {
  const { accountId } = await accountWithHistory();
  const expected = await presentedHistory(accountId);
  // The records kept are the completed ones whose last field is `expired`, kept without it; room for all but one.
  const keptRecords = (JSON.parse(expected) as { data: Record<string, unknown>[] }).data.filter(
    (q) => q.status === 'completed' && Object.keys(q).at(-1) === 'expired',
  );
  const keptIds = keptRecords.map((q) => q.quote_id as string);
  assert.ok(keptIds.length >= 3, `${keptIds.length} records kept`);
  const headBytes = (q: Record<string, unknown>) =>
    Buffer.byteLength(JSON.stringify(q)) - `,"expired":${q.expired}}`.length;
  const room = keptRecords.reduce((sum, q) => sum + headBytes(q), 0) - 1;
  const reads: string[][] = [];
  const db: Queryable = {
    query: (sql, params) => {
      if (/\bresult\b/.test(sql)) reads.push((params![1] as string[]).filter((id) => keptIds.includes(id)));
      return server.deps.db.query(sql, params);
    },
  };
  const historyPage = historyPages(db, room);
  const page = { page: 1, limit: 20, offset: 0 };
  for (let i = 0; i < 3; i++) {
    const parts = await historyPage(accountId, page, server.clock.now());
    assert.equal(Buffer.concat(parts).toString(), expected);
  }
  // The newest went to make room for the last; the others, shown again on every page, stay, and the one that finds
  // no room is read again each time.
  assert.deepEqual(reads, [keptIds, [keptIds[0]], [keptIds[0]]]);
});

test('GET /v2/quotes: the results of records not shown before are read in one more statement', async () => {
  const { accountId, token: own } = await accountWithHistory();
  const expected = await presentedHistory(accountId);
  const first = await counting(1, async () => assert.equal(await historyText(own), expected));
  const statements = historyStatements(first.statements);
  assert.equal(statements.length, 2, `statements: ${statements.join(' | ')}`);
  assert.doesNotMatch(statements[0]!, /result/, 'the page reads no stored result');
  assert.match(statements[1]!, /\bresult\b.* FROM quotes WHERE account_id = \$1 AND id = ANY/s);
});

test('GET /v2/quotes: pages asked together share one statement, and each answers its own account', async () => {
  const [a, b, empty] = [await accountWithHistory(), await accountWithHistory(), await server.newAccount()];
  for (const caller of [a, b]) await historyText(caller.token); // their records are kept
  const callers = [a, b, empty, a, b];
  const expected = await Promise.all(callers.map((c) => presentedHistory(c.accountId)));
  const sends = await Promise.all(callers.map((c) => connection(c.token)));
  for (const send of sends) assert.equal((await send('/healthz')).status, 200);
  const together = await counting(callers.length, async () => {
    const answers = await Promise.all(sends.map((send) => send('/v2/quotes?limit=20')));
    assert.deepEqual(
      answers.map((answer) => answer.body),
      expected,
    );
  });
  const statements = historyStatements(together.statements);
  assert.ok(statements.length <= 2, `${callers.length} pages together issued ${statements.length} statements`);
  assert.ok(
    statements.every((sql) => !/\bresult\b/.test(sql)),
    'no stored result is read again',
  );
});

test('the rows the requests left in the request log are written together by its next flush', async () => {
  assert.ok(server.deps.limits.requests.pending >= 12);
  await server.deps.limits.requests.flush();
  assert.equal(server.deps.limits.requests.pending, 0);
  const [row] = await server.deps.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM api_requests WHERE route = '/v2/user'",
  );
  assert.ok(row!.n >= 12, `${row!.n} rows of GET /v2/user`);
});

test("another deployment's account changes (another schema of the database) leave this one's token cache; its own empty it", {
  skip: testDbKind() !== 'postgres' && 'one PGlite database holds one deployment',
}, async () => {
  const client = server.client(token);
  assert.equal((await client.get('/v2/user')).status, 200); // remembered again
  // Notifications reach the one LISTEN connection in the order their transactions committed: once a marker sent
  // after a change has arrived, so has the change's.
  let marks = 0;
  await server.deps.db.listen('sq_hot_path_mark', () => marks++);
  const delivered = async () => {
    const before = marks;
    await server.deps.db.notify('sq_hot_path_mark');
    await eventually(async () => marks > before, 5_000, 'the marker notification');
  };
  const neighbour = await privateSchema('neighbour');
  const other = await neighbour.open();
  try {
    await migrate(other);
    await other.query('UPDATE accounts SET plan = plan'); // its trigger notifies, naming the neighbour's schema
    await delivered();
    const kept = await counting(1, async () => assert.equal((await client.get('/v2/user')).status, 200));
    assert.deepEqual(kept.statements.length, 1, `statements: ${kept.statements.join(' | ')}`);

    await server.deps.db.query('UPDATE accounts SET plan = plan'); // this deployment's own change
    await delivered();
    const reread = await counting(1, async () => assert.equal((await client.get('/v2/user')).status, 200));
    assert.ok(
      reread.statements.some((sql) => /FROM api_tokens/.test(sql)),
      `the token is read again: ${reread.statements.join(' | ')}`,
    );
  } finally {
    await other.close();
    await neighbour.drop();
  }
});

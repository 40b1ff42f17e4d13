// The hot path's work, counted: what /healthz and GET /v2/user run in front of their handlers, the SQL statements
// a request issues, the access log line and the request-log row it leaves. A count does not depend on how loaded
// the machine is, so this guard holds in CI where a timing would not; the timing against a bare Koa process is
// `npm run bench -- http` (docs/performance.md).

import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { routerOf } from '../../server/app.ts';
import type { Queryable } from '../../server/db/index.ts';
import { routeWork } from '../../server/route-front.ts';
import { eventually } from '../helpers/poll.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let token: string;
/** The SQL a request caused (its own statements and the shared ones it started); background loops are not counted. */
const statements: string[] = [];
let accessLines = 0;

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
  const info = server.deps.log.info.bind(server.deps.log);
  server.deps.log.info = (msg, extra) => {
    if (msg === 'request') accessLines++;
    info(msg, extra);
  };
});
after(() => server?.stop());

/** A keep-alive connection that sends a GET and resolves with the answer's status. */
async function connection(): Promise<(path: string) => Promise<number>> {
  const { port } = new URL(server.url);
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1', () => resolve(s)).once('error', reject);
  });
  let text = '';
  let answered: ((status: number) => void) | null = null;
  socket.on('data', (d) => {
    text += d;
    const head = text.indexOf('\r\n\r\n');
    const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? -1);
    if (head < 0 || length < 0 || Buffer.byteLength(text) < head + 4 + length) return;
    const status = Number(text.split(' ')[1]);
    text = '';
    answered?.(status);
  });
  after(() => socket.destroy());
  return (path) => {
    const status = new Promise<number>((resolve) => (answered = resolve));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    return status;
  };
}

/**
 * `n` keep-alive connections, each answered once already: the server has accepted them and reads them, so requests
 * written on all of them at once reach it in the same turn of its event loop, as requests on busy connections do
 * (a connection accepted in a turn is read in a later one).
 */
async function connections(n: number) {
  const sends = await Promise.all(Array.from({ length: n }, connection));
  for (const send of sends) assert.equal(await send('/healthz'), 200);
  return (path: string) => Promise.all(sends.map((send) => send(path)));
}

/**
 * The statements `run`'s requests issued and the access log lines they wrote; each line is written as its answer
 * ends, which may come just after the client has it: waited for until `requests` lines are out.
 */
async function counting(requests: number, run: () => Promise<unknown>) {
  statements.length = 0;
  const linesBefore = accessLines;
  await run();
  await eventually(async () => accessLines - linesBefore >= requests, 20_000, `${requests} access log lines`);
  return { statements: [...statements], accessLines: accessLines - linesBefore };
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
  // Each request's row waits in the request log's buffer, written in batches, not one statement each.
  assert.equal(server.deps.limits.requests.pending, pending + 11);
});

test('/healthz: one database probe per request, shared by requests arriving together', async () => {
  const client = server.client(token);
  assert.equal((await client.get('/healthz')).status, 200); // the token is read and remembered (it is charged)
  const one = await counting(1, async () => assert.equal((await client.get('/healthz')).status, 200));
  assert.deepEqual(one.statements, ['SELECT 1']);
  assert.equal(one.accessLines, 1);
  const burst = await connections(10);
  const many = await counting(10, async () => assert.deepEqual(await burst('/healthz'), Array(10).fill(200)));
  assert.ok(many.statements.length <= 2, `10 probes together issued ${many.statements.length} statements`);
  assert.equal(many.accessLines, 10);
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

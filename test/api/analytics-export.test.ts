// GET /v2/analytics/export: RFC 4180 CSV and JSON, quotes and daily usage, ranges, isolation; and 10,000
// quotes streamed page by page in bounded memory, with back-pressure from a slow reader.

import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { PAGE_ROWS, QUOTE_COLUMNS } from '../../server/usage/export.ts';
import { eventually } from '../helpers/poll.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let c: ApiClient;
let accountId: string;
let token: string;

/** A strict RFC 4180 reader: CRLF records, fields quoted when they hold a comma, quote, CR or LF. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (ch === '"') {
        quoted = false;
        i++;
      } else {
        field += ch;
        i++;
      }
    } else if (ch === '"') {
      assert.equal(field, '', 'a quote may only open a field');
      quoted = true;
      i++;
    } else if (ch === ',') {
      record.push(field);
      field = '';
      i++;
    } else if (ch === '\r') {
      assert.equal(text[i + 1], '\n', 'records end with CRLF');
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 2;
    } else {
      assert.notEqual(ch, '\n', 'a bare LF outside quotes');
      field += ch;
      i++;
    }
  }
  assert.equal(field + record.join(''), '', 'the last record ends with CRLF');
  return records;
}

async function insertQuote(
  account: string,
  id: string,
  fileName: string,
  createdAt: string,
  extra: { status?: string; price?: number; deleted?: string } = {},
) {
  const status = extra.status ?? 'completed';
  const done = status === 'completed';
  await server.deps.db.query(
    `INSERT INTO quotes (id, account_id, token_id, file_id, file_name, mode, status, request, material, color, printer, currency,
       total_price, filament_weight_g, print_time_s, cached, created_at, finished_at, deleted_at)
     VALUES ($1, $2, 'tok_x', 'file_x', $3, 'sync', $4, '{}', 'PLA', 'red', 'P1', $5, $6, $7, $8, $9, $10::timestamptz, $10::timestamptz + interval '1 minute', $11)`,
    [
      id,
      account,
      fileName,
      status,
      done ? 'EUR' : null,
      done ? (extra.price ?? 12.5) : null,
      done ? 3.25 : null,
      done ? 600 : null,
      done ? false : null,
      createdAt,
      extra.deleted ?? null,
    ],
  );
}

before(async () => {
  server = await startTestServer();
  const a = await server.newAccount();
  accountId = a.accountId;
  token = a.token;
  c = server.client(token);
  await insertQuote(accountId, 'qt_e1', 'a,b.stl', '2031-03-01T10:00:00Z', { price: 0.1 });
  await insertQuote(accountId, 'qt_e2', 'say "hi".stl', '2031-03-02T10:00:00Z', { deleted: '2031-03-05T00:00:00Z' });
  await insertQuote(accountId, 'qt_e3', 'line\r\nbreak.stl', '2031-03-03T10:00:00Z', { status: 'failed' });
  await insertQuote(accountId, 'qt_e4', '=HYPERLINK("http://evil")', '2031-03-04T10:00:00Z');
  const other = await server.newAccount();
  await insertQuote(other.accountId, 'qt_other', 'not mine.stl', '2031-03-02T11:00:00Z');
});
after(() => server.stop());

const text = (raw: Uint8Array) => new TextDecoder().decode(raw);

test("CSV export of quotes: header row, CRLF, RFC 4180 quoting, formulas defused, only the caller's quotes", async () => {
  const res = await c.get('/v2/analytics/export?format=csv');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^text\/csv; charset=utf-8/);
  assert.match(
    res.headers.get('content-disposition')!,
    /attachment; filename="slicequote-quotes-\d{4}-\d{2}-\d{2}\.csv"/,
  );
  const body = text(res.raw);
  assert.ok(body.startsWith(`${QUOTE_COLUMNS.join(',')}\r\n`));
  assert.ok(body.includes('"a,b.stl"'));
  assert.ok(body.includes('"say ""hi"".stl"'));
  const rows = parseCsv(body);
  assert.deepEqual(rows[0], [...QUOTE_COLUMNS]);
  const records = rows.slice(1).map((r) => Object.fromEntries(QUOTE_COLUMNS.map((k, i) => [k, r[i]])));
  assert.deepEqual(
    records.map((r) => r.quote_id),
    ['qt_e1', 'qt_e2', 'qt_e3', 'qt_e4'],
  );
  assert.deepEqual(
    records.map((r) => r.file_name),
    ['a,b.stl', 'say "hi".stl', 'line\r\nbreak.stl', `'=HYPERLINK("http://evil")`],
  );
  assert.deepEqual(records[0], {
    quote_id: 'qt_e1',
    status: 'completed',
    mode: 'sync',
    created_at: '2031-03-01T10:00:00.000Z',
    finished_at: '2031-03-01T10:01:00.000Z',
    deleted_at: '',
    file_id: 'file_x',
    file_name: 'a,b.stl',
    material: 'PLA',
    color: 'red',
    printer: 'P1',
    currency: 'EUR',
    total_price: '0.1',
    filament_weight_g: '3.25',
    print_time_s: '600',
    cached: 'false',
    token_id: 'tok_x',
  });
  const [, second, third] = records;
  assert.ok(second && third);
  assert.equal(second.deleted_at, '2031-03-05T00:00:00.000Z', 'quotes deleted from history are exported, marked');
  assert.deepEqual([third.status, third.total_price, third.currency], ['failed', '', '']);
});

test('JSON export carries the same rows and a count; from/to select by creation day (UTC)', async () => {
  const res = await c.get('/v2/analytics/export?format=json&from=2031-03-02&to=2031-03-03');
  assert.equal(res.status, 200);
  assert.equal(res.body.dataset, 'quotes');
  assert.deepEqual([res.body.from, res.body.to, res.body.count], ['2031-03-02', '2031-03-03', 2]);
  assert.deepEqual(
    res.body.rows.map((r: any) => r.quote_id),
    ['qt_e2', 'qt_e3'],
  );
  assert.equal(res.body.rows[0].file_name, 'say "hi".stl');
  assert.equal(res.body.rows[0].cached, false);
  assert.equal(res.body.rows[0].total_price, 12.5);
  assert.equal(res.body.rows[1].total_price, null);
});

test('usage export: one row per UTC day with activity', async () => {
  await server.deps.db.query(
    `INSERT INTO api_requests (account_id, via, method, route, status, duration_ms, created_at) VALUES ($1, 'session', 'GET', '/v2/user', 200, 3, '2031-03-01T23:00:00Z'), ($1, 'session', 'GET', '/v2/user', 404, 3, '2031-03-01T23:30:00Z')`,
    [accountId],
  );
  const res = await c.get('/v2/analytics/export?dataset=usage&from=2031-03-01&to=2031-03-31');
  assert.equal(res.status, 200);
  assert.deepEqual(parseCsv(text(res.raw)), [
    ['date', 'calls', 'errors', 'quotes', 'failed_quotes', 'grams'],
    ['2031-03-01', '2', '1', '1', '0', '3.25'],
    ['2031-03-02', '0', '0', '1', '0', '3.25'],
    ['2031-03-03', '0', '0', '0', '1', '0'],
    ['2031-03-04', '0', '0', '1', '0', '3.25'],
  ]);
  const json = await c.get('/v2/analytics/export?dataset=usage&format=json&from=2031-03-01&to=2031-03-01');
  assert.deepEqual(json.body.rows, [
    { date: '2031-03-01', calls: 2, errors: 1, quotes: 1, failed_quotes: 0, grams: 3.25 },
  ]);
});

// Fixture rows are large (200-character file names, as cleanFileName allows, and a long printer label),
// share timestamps three by three and differ by microseconds, so the keyset cursor must keep microseconds
// and break ties by id, or rows would be skipped or repeated.
const BULK = 10_000;
async function insertBulk(account: string) {
  await server.deps.db.query(
    `INSERT INTO quotes (id, account_id, token_id, file_id, file_name, mode, status, request, material, color, printer, currency,
       total_price, filament_weight_g, print_time_s, cached, created_at, finished_at)
     SELECT 'qt_bulk_' || lpad(g::text, 6, '0'), $1, 'tok_bulk', 'file_bulk', lpad(g::text, 196, 'model-') || '.stl', 'sync', 'completed', '{}',
            'PLA', 'galaxy black', repeat('Large format printer 600x600x600 mm, 0.8 mm nozzle; ', 20), 'EUR', g * 0.01, 1.5, 60, false,
            timestamptz '2031-05-01T00:00:00Z' + (g / 3) * interval '7 microseconds', timestamptz '2031-05-01T01:00:00Z'
     FROM generate_series(1, $2::int) AS g`,
    [account, BULK],
  );
}

test(`export of ${BULK} quotes streams in bounded memory, page by page, and a slow reader holds the queries back`, async () => {
  const big = await server.newAccount();
  await insertBulk(big.accountId);
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;

  // Count the export's page queries and the rows each returns.
  const db = server.deps.db;
  const realQuery = db.query.bind(db);
  const pages: number[] = [];
  db.query = (async (sql: string, params?: unknown[]) => {
    const rows = await realQuery(sql, params);
    if (sql.includes('AS cursor')) pages.push(rows.length);
    return rows;
  }) as typeof db.query;
  // The server's side of the export's response, to see it held up by the reader below.
  const response = new Promise<ServerResponse>((resolve) => server.server.once('request', (_req, res) => resolve(res)));

  try {
    gc();
    const baseline = process.memoryUsage().heapUsed;
    const res = await fetch(`${server.url}/v2/analytics/export?format=csv`, {
      headers: { authorization: `Bearer ${big.token}` },
    });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    // A reader that stops: the server fills the socket buffers, then waits for them to drain instead of
    // querying on (a server without back-pressure would run to the end). Wait until the response is held up
    // by the reader and no page query has run across ten polls.
    const heldUp = await response;
    let pagesWhilePaused = -1;
    let still = 0;
    await eventually(
      async () => {
        still = heldUp.writableNeedDrain && pagesWhilePaused === pages.length ? still + 1 : 0;
        pagesWhilePaused = pages.length;
        return still >= 10;
      },
      15_000,
      'the export held up by the paused reader',
    );

    const decoder = new TextDecoder();
    let tail = decoder.decode(first.value, { stream: true });
    let header: string | null = null;
    let rows = 0;
    let expected = 1;
    let peakLive = 0;
    let chunks = 0;
    const consume = (complete: string[]) => {
      for (const line of complete) {
        if (header === null) {
          header = line;
          continue;
        }
        const id = line.slice(0, line.indexOf(','));
        assert.equal(id, `qt_bulk_${String(expected).padStart(6, '0')}`, 'every row once, in (created_at, id) order');
        expected++;
        rows++;
      }
    };
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      tail += decoder.decode(value, { stream: true });
      const lines = tail.split('\r\n');
      tail = lines.pop()!;
      consume(lines);
      if (++chunks % 25 === 0) {
        gc();
        peakLive = Math.max(peakLive, process.memoryUsage().heapUsed - baseline);
      }
    }
    assert.equal(tail, '', 'the body ends with CRLF');
    assert.equal(header, QUOTE_COLUMNS.join(','));
    assert.equal(rows, BULK);
    assert.ok(
      Math.max(...pages) <= PAGE_ROWS,
      `no query returned more than ${PAGE_ROWS} rows (max ${Math.max(...pages)})`,
    );
    assert.equal(pages.length, Math.ceil(BULK / PAGE_ROWS) + (BULK % PAGE_ROWS === 0 ? 1 : 0));
    assert.ok(
      pagesWhilePaused < pages.length,
      `back-pressure: ${pagesWhilePaused} of ${pages.length} pages fetched while the reader paused`,
    );
    // The whole CSV is ~15 MB, more than socket buffers hold, and its rows as objects several times that;
    // one page is ~0.75 MB.
    const bound = 8 * 1024 * 1024;
    assert.ok(
      peakLive < bound,
      `live heap grew by ${(peakLive / 1048576).toFixed(1)} MB during the export (bound ${bound / 1048576} MB)`,
    );
    console.log(
      `# export of ${BULK} quotes: ${chunks} chunks, ${pages.length} pages, ${pagesWhilePaused} pages while paused, peak live heap growth ${(peakLive / 1048576).toFixed(2)} MB`,
    );
  } finally {
    db.query = realQuery as typeof db.query;
  }
});

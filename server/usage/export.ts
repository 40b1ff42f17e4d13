// GET /v2/analytics/export: quotes (one row each) or daily usage, as CSV (RFC 4180: header row, CRLF,
// quotes doubled inside quoted fields; written by csv-stringify) or JSON. Rows come from the database in
// keyset pages of PAGE_ROWS and are pulled by the HTTP response stream, so a slow reader stops the queries
// (back-pressure) and memory holds one page however long the history.
import { pipeline, Readable, Transform } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Queryable } from '../db/index.ts';
import type { DateRange } from '../http/index.ts';
import { dailyQuotes, type ExportQuoteRow, exportQuotesPage, type QuoteCursor } from './analytics-sql.ts';
import { dailyCalls } from './sql.ts';

export const PAGE_ROWS = 500;
export type ExportDataset = 'quotes' | 'usage';
export type ExportFormat = 'csv' | 'json';

export type Cell = string | number | boolean | null;
export type Row = Record<string, Cell>;

export const QUOTE_COLUMNS = [
  'quote_id',
  'status',
  'mode',
  'created_at',
  'finished_at',
  'deleted_at',
  'file_id',
  'file_name',
  'material',
  'color',
  'printer',
  'currency',
  'total_price',
  'filament_weight_g',
  'print_time_s',
  'cached',
  'token_id',
] as const;
export const USAGE_COLUMNS = ['date', 'calls', 'errors', 'quotes', 'failed_quotes', 'grams'] as const;

// All time when no range is given: quotes cannot predate the epoch nor be created after year 9999.
const ALL_TIME = { start: new Date(0), end: new Date('9999-12-31T00:00:00Z') };

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function quoteRow(q: ExportQuoteRow): Row {
  return {
    quote_id: q.id,
    status: q.status,
    mode: q.mode,
    created_at: iso(q.created_at),
    finished_at: iso(q.finished_at),
    deleted_at: iso(q.deleted_at),
    file_id: q.file_id,
    file_name: q.file_name,
    material: q.material,
    color: q.color,
    printer: q.printer,
    currency: q.currency,
    total_price: q.total_price,
    filament_weight_g: q.filament_weight_g,
    print_time_s: q.print_time_s,
    cached: q.cached,
    token_id: q.token_id,
  };
}

async function* quoteRows(
  db: Queryable,
  accountId: string,
  range: DateRange | null,
  pageRows: number,
): AsyncGenerator<Row> {
  const { start, end } = range ?? ALL_TIME;
  let after: QuoteCursor | null = null;
  for (;;) {
    const page = await exportQuotesPage(db, accountId, start, end, after, pageRows);
    for (const q of page) yield quoteRow(q);
    if (page.length < pageRows) return;
    const last = page[page.length - 1]!;
    after = { at: last.cursor, id: last.id };
  }
}

/** One row per UTC day with any activity (a few thousand rows at most, so one query each). */
async function* usageRows(db: Queryable, accountId: string, range: DateRange | null): AsyncGenerator<Row> {
  const { start, end } = range ?? ALL_TIME;
  const [calls, quotes] = await Promise.all([
    dailyCalls(db, accountId, start, end),
    dailyQuotes(db, accountId, start, end),
  ]);
  const days = new Map<string, Row>();
  const dayRow = (date: string) =>
    days.get(date) ?? days.set(date, { date, calls: 0, errors: 0, quotes: 0, failed_quotes: 0, grams: 0 }).get(date)!;
  for (const c of calls) Object.assign(dayRow(c.day), { calls: c.calls, errors: c.errors });
  for (const q of quotes) Object.assign(dayRow(q.day), { quotes: q.quotes, failed_quotes: q.failed, grams: q.grams });
  for (const date of [...days.keys()].sort()) yield days.get(date)!;
}

// Spreadsheet programs run a cell starting with = + - @ (or a tab / CR) as a formula; file names come from
// shoppers, so such text cells get a leading apostrophe (the OWASP advice for CSV injection).
const FORMULA_START = /^[=+\-@\t\r]/;
function defuse(row: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) out[k] = typeof v === 'string' && FORMULA_START.test(v) ? `'${v}` : v;
  return out;
}

export function csvStream(rows: AsyncGenerator<Row>, columns: readonly string[]): Readable {
  const csv = stringify({
    header: true,
    columns: [...columns],
    record_delimiter: 'windows',
    cast: { boolean: (v) => (v ? 'true' : 'false'), number: (v) => String(v) },
  });
  const safe = new Transform({ objectMode: true, transform: (row, _enc, done) => done(null, defuse(row)) });
  // pipeline destroys every stage on an error (a failed query ends the response instead of hanging it) and
  // when the response stream is destroyed (the client left), which stops the row generator's queries.
  return pipeline(Readable.from(rows), safe, csv, () => {});
}

function jsonStream(rows: AsyncGenerator<Row>, head: Record<string, unknown>): Readable {
  async function* chunks() {
    const prefix = JSON.stringify(head);
    yield `${prefix.slice(0, -1)}${prefix.length > 2 ? ',' : ''}"rows":[`;
    let count = 0;
    for await (const row of rows) yield (count++ ? ',' : '') + JSON.stringify(row);
    yield `],"count":${count}}`;
  }
  return Readable.from(chunks());
}

export interface ExportRequest {
  accountId: string;
  dataset: ExportDataset;
  format: ExportFormat;
  range: DateRange | null;
  pageRows?: number;
}

export function exportStream(db: Queryable, req: ExportRequest): Readable {
  const rows =
    req.dataset === 'quotes'
      ? quoteRows(db, req.accountId, req.range, req.pageRows ?? PAGE_ROWS)
      : usageRows(db, req.accountId, req.range);
  const columns = req.dataset === 'quotes' ? QUOTE_COLUMNS : USAGE_COLUMNS;
  if (req.format === 'csv') return csvStream(rows, columns);
  return jsonStream(rows, { dataset: req.dataset, from: req.range?.from ?? null, to: req.range?.to ?? null, columns });
}

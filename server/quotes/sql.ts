import type { Features } from '../../shared/estimate/index.ts';
import type { ResolvedChoices } from '../../shared/offer.ts';
import type { Queryable } from '../db/index.ts';
import { firstRow } from '../db/index.ts';
import type { ContractSchema } from '../openapi/index.ts';
import type { SliceMeasure } from '../slicer/index.ts';
import type { PresentedEstimate, StoredResolution } from './model.ts';

/** The stored result of a completed quote: the Quote's own fields, without those the record itself carries. */
export type StoredQuoteResult = Omit<
  ContractSchema<'Quote'>,
  'quote_id' | 'job_id' | 'status' | 'mode' | 'file_id' | 'file_name' | 'created_at' | 'completed_at' | 'expired'
>;

export type QuoteStatus = 'queued' | 'processing' | 'completed' | 'failed';

export interface QuoteRow {
  id: string;
  account_id: string;
  token_id: string | null;
  file_id: string;
  file_name: string;
  mode: 'sync' | 'async';
  status: QuoteStatus;
  progress: number;
  request: Record<string, unknown>;
  /** Set when the quote is created (the colour is the shopper's or the request's). */
  resolved: (StoredResolution & { color?: string | null }) | null;
  slicing_key: string | null;
  material: string | null;
  color: string | null;
  printer: string | null;
  currency: string | null;
  total_price: number | null;
  filament_weight_g: number | null;
  print_time_s: number | null;
  cached: boolean | null;
  result: StoredQuoteResult | null;
  error: JobError | null;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  deleted_at: Date | null;
  widget_key_id: string | null;
  shopper_hash: string | null;
  choices: ResolvedChoices | null;
  expires_at: Date | null;
  counted: boolean | null;
  /** Claim order: 0 a shopper's quote, 1 a merchant's (docs/instant-price.md). */
  priority: number;
  /** While slicing: the slicer's stage, and when the slice is expected to end. */
  stage: string | null;
  expected_done_at: Date | null;
  /** While slicing: its slice is expected to take longer than predicted (the reason its time left grew). */
  slower_than_predicted: boolean;
  /** The instant estimate shown while the slice runs, and the features it was made from (docs/estimate.md). */
  estimate: PresentedEstimate | null;
  estimate_features: Features | null;
  /** Who the slice is charged to: tok:<token>, acct:<account> (dashboard), ip:<address> (a shop's shopper). */
  caller: string | null;
  /** Slicer seconds the cost model predicted on this server (server/slicer/cost.ts); its timeout follows it. */
  predicted_s: number | null;
  /** Its slice used its allowance in the short lane once: it takes normal slots only (docs/limits.md). */
  short_lane_outgrown: boolean;
}

/** A shopper waits at the shop's page: their quote is sliced before a merchant's API quotes. */
export const PRIORITY = { shopper: 0, merchant: 1 } as const;

export type NewQuote = Pick<
  QuoteRow,
  | 'id'
  | 'account_id'
  | 'token_id'
  | 'file_id'
  | 'file_name'
  | 'mode'
  | 'status'
  | 'widget_key_id'
  | 'shopper_hash'
  | 'choices'
  | 'priority'
  | 'caller'
  | 'predicted_s'
> & {
  request: unknown;
  resolved: unknown;
  slicing_key: string | null;
  material: string | null;
  color: string | null;
  printer: string | null;
};

/**
 * JSON for a json/jsonb parameter. PostgreSQL refuses the NUL character in jsonb and text, and a refused
 * request is stored as sent: NUL (escaped \u0000, after an even run of backslashes) becomes U+FFFD.
 */
export const jsonParam = (value: unknown): string =>
  JSON.stringify(value).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1\\ufffd');

export async function insertQuote(db: Queryable, q: NewQuote): Promise<QuoteRow> {
  const rows = await db.query<QuoteRow>(
    `INSERT INTO quotes (id, account_id, token_id, file_id, file_name, mode, status, request, resolved, slicing_key, material, color,
       printer, widget_key_id, shopper_hash, choices, priority, caller, predicted_s, started_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19,
       CASE WHEN $7 = 'queued' THEN NULL ELSE now() END)
     RETURNING *`,
    [
      q.id,
      q.account_id,
      q.token_id,
      q.file_id,
      q.file_name,
      q.mode,
      q.status,
      jsonParam(q.request),
      JSON.stringify(q.resolved),
      q.slicing_key,
      q.material,
      q.color,
      q.printer,
      q.widget_key_id,
      q.shopper_hash,
      q.choices && JSON.stringify(q.choices),
      q.priority,
      q.caller,
      q.predicted_s,
    ],
  );
  return firstRow(rows);
}

export async function quoteById(db: Queryable, accountId: string, id: string): Promise<QuoteRow | undefined> {
  const [row] = await db.query<QuoteRow>(
    'SELECT * FROM quotes WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL',
    [id, accountId],
  );
  return row;
}

/** A quote as the caller may see it: a widget key sees only the quotes it created, for the same shopper. */
export async function quoteForCaller(
  db: Queryable,
  auth: { account: { id: string }; widgetKeyId: string | null; shopperHash?: string | null },
  id: string,
): Promise<QuoteRow | undefined> {
  const row = await quoteById(db, auth.account.id, id);
  if (!row || !auth.widgetKeyId) return row;
  return row.widget_key_id === auth.widgetKeyId && auth.shopperHash && row.shopper_hash === auth.shopperHash
    ? row
    : undefined;
}

/**
 * Has a widget quote of this file (or, this period, of the same mesh uploaded to the same shop) already counted
 * toward the allowance? Locks the file row first, so two quotes of one upload completing at once agree that
 * exactly one of them counts.
 */
export async function explorationCounted(
  tx: Queryable,
  fileId: string,
  lock: boolean,
  periodStart: Date,
): Promise<boolean> {
  if (lock) await tx.query('SELECT id FROM files WHERE id = $1 FOR UPDATE', [fileId]);
  // This upload's shopper quote counted (ever), or a shopper quote of another upload of the same mesh to the same
  // shop counted this period: the same cube sent again from other addresses does not close the month.
  const rows = await tx.query(
    `SELECT 1 FROM files f
       JOIN files same ON same.account_id = f.account_id AND same.mesh_sha256 = f.mesh_sha256
       JOIN quotes q ON q.file_id = same.id
      WHERE f.id = $1 AND q.widget_key_id IS NOT NULL AND q.counted AND (same.id = f.id OR q.created_at >= $2)
      LIMIT 1`,
    [fileId, periodStart],
  );
  return rows.length > 0;
}

export async function quoteStatus(db: Queryable, id: string): Promise<QuoteStatus | undefined> {
  const [row] = await db.query<{ status: QuoteStatus }>('SELECT status FROM quotes WHERE id = $1', [id]);
  return row?.status;
}

/** The columns a quote's API record is made of (presentQuote). */
export const QUOTE_RECORD_COLUMNS = [
  'id',
  'status',
  'mode',
  'file_id',
  'file_name',
  'created_at',
  'finished_at',
  'expires_at',
  'result',
  'error',
] as const satisfies readonly (keyof QuoteRow)[];
export type QuoteRecordRow = Pick<QuoteRow, (typeof QUOTE_RECORD_COLUMNS)[number]>;

/** The columns of a quote's record but its result. */
type RecordColumns = Omit<QuoteRecordRow, 'result'>;

/**
 * A quote on a page of history, as the page's statement reads it: what tells whether the record the history keeps
 * of a completed quote (server/quotes/history.ts) answers for it, and its `expired` if so; the other columns of its
 * record (`unfinished`) only for a quote in another state, whose record is presented afresh. The rest of a completed
 * quote's record is read only when its record is not kept (quoteRecords).
 */
export interface HistoryEntry extends Pick<QuoteRow, 'id' | 'status' | 'expires_at'> {
  unfinished: RecordColumns | null;
}

const HISTORY_COLUMNS = QUOTE_RECORD_COLUMNS.filter((c) => c !== 'result').join(', ');
/** The record's columns the page reads of a quote not completed (null for a completed one). */
const UNFINISHED_COLUMNS = QUOTE_RECORD_COLUMNS.filter((c) => !['id', 'status', 'expires_at', 'result'].includes(c));

/** One request for a page of an account's history. */
export interface HistoryPageRequest {
  accountId: string;
  limit: number;
  offset: number;
}

/** A page of history and the history's length. */
export interface HistoryPage {
  entries: HistoryEntry[];
  total: number;
}

/**
 * Pages of history and each history's length, for several requests in one statement (one round trip): each
 * request's count is joined to its page, so a page past the end still brings the count, on a row whose quote
 * columns are null. Of a completed quote only what HistoryEntry needs of it: a page shown before is answered from the
 * records kept, and each column more would be read and parsed for every quote on every page (a timestamp costs
 * most). Answers in the order of `pages`.
 */
export async function listQuotePages(db: Queryable, pages: HistoryPageRequest[]): Promise<HistoryPage[]> {
  const unfinished = UNFINISHED_COLUMNS.map((c) => `CASE WHEN q.status <> 'completed' THEN q.${c} END AS ${c}`);
  const rows = await db.query<RecordColumns & { page__: number; total__: number }>(
    `SELECT r.page__::int AS page__, c.total__, q.id, q.status, q.expires_at, ${unfinished.join(', ')} FROM
       unnest($1::text[], $2::int[], $3::int[]) WITH ORDINALITY AS r(account_id, page_limit, page_offset, page__)
       CROSS JOIN LATERAL (
         SELECT count(*)::int AS total__ FROM quotes WHERE account_id = r.account_id AND deleted_at IS NULL
       ) c
       LEFT JOIN LATERAL (
         SELECT ${HISTORY_COLUMNS} FROM quotes WHERE account_id = r.account_id AND deleted_at IS NULL
         ORDER BY created_at DESC, id DESC LIMIT r.page_limit OFFSET r.page_offset
       ) q ON true
     ORDER BY r.page__, q.created_at DESC, q.id DESC`,
    [pages.map((p) => p.accountId), pages.map((p) => p.limit), pages.map((p) => p.offset)],
  );
  const answers: HistoryPage[] = pages.map(() => ({ entries: [], total: 0 }));
  for (const { page__, total__, ...row } of rows) {
    const answer = answers[page__ - 1]!;
    answer.total = total__;
    if (row.id === null) continue;
    const { id, status, expires_at } = row;
    answer.entries.push({ id, status, expires_at, unfinished: status === 'completed' ? null : row });
  }
  return answers;
}

/**
 * The records of an account's quotes `ids`, by quote id: their columns and, for a completed quote, its stored result
 * (kilobytes of JSON with its resolved settings, stored compressed).
 */
export async function quoteRecords(db: Queryable, accountId: string, ids: string[]) {
  const rows = await db.query<QuoteRecordRow>(
    `SELECT ${QUOTE_RECORD_COLUMNS.join(', ')} FROM quotes WHERE account_id = $1 AND id = ANY($2::text[])`,
    [accountId, ids],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/** History delete: the quote leaves history, but still counts toward usage and analytics (it happened). */
export async function softDeleteQuote(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const rows = await db.query(
    'UPDATE quotes SET deleted_at = now() WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL RETURNING id',
    [id, accountId],
  );
  return rows.length === 1;
}

/**
 * A shopper's new quote of an upload supersedes their unfinished earlier ones (docs/instant-price.md): those end as
 * failed with `superseded`, without events (nobody waits for them), and a worker slicing one stops at its next
 * heartbeat. Unless another unfinished request shares its slice: the new quote (a colour change slices the same),
 * another shopper's or a merchant's quote; that one goes on. Returns how many were superseded.
 */
export async function supersedeShopperQuotes(db: Queryable, latest: QuoteRow): Promise<number> {
  const rows = await db.query(
    `UPDATE quotes q SET status = 'failed', progress = 100, error = $5, finished_at = now(), lease_owner = NULL,
       lease_expires_at = NULL
     WHERE q.file_id = $1 AND q.widget_key_id = $2 AND q.shopper_hash = $3 AND q.id <> $4
       AND q.status IN ('queued', 'processing')
       AND NOT EXISTS (
         SELECT 1 FROM quotes o WHERE o.slicing_key = q.slicing_key AND o.id <> q.id AND o.status IN ('queued', 'processing')
           AND (o.id = $4 OR o.file_id <> $1 OR o.widget_key_id IS DISTINCT FROM $2 OR o.shopper_hash IS DISTINCT FROM $3))
     RETURNING q.id`,
    [latest.file_id, latest.widget_key_id, latest.shopper_hash, latest.id, jsonParam(SUPERSEDED)],
  );
  return rows.length;
}

const SUPERSEDED: JobError = {
  code: 'superseded',
  message: 'The shopper asked for another quote of this upload before this one was ready.',
  status: 409,
};

/** The slicing keys of quotes waiting to be claimed, most urgent first (a few: enough to spare their slices). */
export async function waitingKeys(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ slicing_key: string }>(
    `SELECT slicing_key FROM quotes WHERE status = 'queued' AND slicing_key IS NOT NULL ORDER BY priority, created_at LIMIT 20`,
  );
  return rows.map((r) => r.slicing_key);
}

/** Quotes waiting to be sliced: all of them, the account's, and the caller's (their queue bounds). */
export async function countWaitingJobs(db: Queryable, accountId: string, caller: string) {
  const rows = await db.query<{ total: number; account: number; caller: number }>(
    `SELECT count(*)::int AS total, (count(*) FILTER (WHERE account_id = $1))::int AS account,
       (count(*) FILTER (WHERE account_id = $1 AND caller = $2))::int AS caller
     FROM quotes WHERE status = 'queued'`,
    [accountId, caller],
  );
  return firstRow(rows);
}

export interface JobProgress {
  percent: number;
  stage: string | null;
  expectedDoneAt: Date | null;
  /** The slice is expected to take longer than predicted. */
  slower: boolean;
}

/** Extends the lease while the worker is alive and records progress; false when another worker has taken the job over. */
export async function renewLease(
  db: Queryable,
  id: string,
  owner: string,
  leaseMs: number,
  progress: JobProgress,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE quotes SET lease_expires_at = now() + make_interval(secs => $3::float8 / 1000), progress = greatest(progress, $4),
       stage = coalesce($5, stage), expected_done_at = $6, slower_than_predicted = $7
     WHERE id = $1 AND lease_owner = $2 AND status = 'processing' RETURNING id`,
    [id, owner, leaseMs, progress.percent, progress.stage, progress.expectedDoneAt, progress.slower],
  );
  return rows.length === 1;
}

export interface Completion {
  expires_at: Date;
  counted: boolean;
  currency: string;
  total_price: number;
  filament_weight_g: number;
  print_time_s: number;
  cached: boolean;
  result: unknown;
}

/** Finishes a job held by `owner` (null: a quote answered inline, never leased). */
export async function completeQuote(
  db: Queryable,
  id: string,
  owner: string | null,
  c: Completion,
): Promise<QuoteRow | undefined> {
  const [row] = await db.query<QuoteRow>(
    `UPDATE quotes SET status = 'completed', progress = 100, currency = $3, total_price = $4, filament_weight_g = $5, print_time_s = $6,
       cached = $7, result = $8, expires_at = $9, counted = $10, finished_at = now(), lease_owner = NULL, lease_expires_at = NULL
     WHERE id = $1 AND lease_owner IS NOT DISTINCT FROM $2 AND status IN ('queued', 'processing') RETURNING *`,
    [
      id,
      owner,
      c.currency,
      c.total_price,
      c.filament_weight_g,
      c.print_time_s,
      c.cached,
      JSON.stringify(c.result),
      c.expires_at,
      c.counted,
    ],
  );
  return row;
}

/** Why a quote failed; `details` (optional) are answered with the error. */
export interface JobError {
  code: string;
  message: string;
  status: number;
  details?: Record<string, unknown>;
}

/** A failed job is finished: its progress is 100, like a completed one's (docs/webhooks.md). */
export async function failQuote(db: Queryable, id: string, owner: string | null, error: JobError) {
  const [row] = await db.query<QuoteRow & { previous_status: QuoteStatus }>(
    `UPDATE quotes SET status = 'failed', progress = 100, error = $3, finished_at = now(), lease_owner = NULL, lease_expires_at = NULL
     WHERE id = $1 AND lease_owner IS NOT DISTINCT FROM $2 AND status IN ('queued', 'processing') RETURNING *`,
    [id, owner, jsonParam(error)],
  );
  return row;
}

export interface SliceRow {
  key: string;
  stats: SliceMeasure;
  slicer: string;
  slicer_version: string;
  duration_ms: number;
  /** Of which reading the G-code (null for slices stored before it was measured). */
  gcode_read_ms?: number | null;
}

export async function sliceByKey(db: Queryable, key: string): Promise<SliceRow | undefined> {
  const [row] = await db.query<SliceRow>('SELECT * FROM slices WHERE key = $1', [key]);
  return row;
}

export async function insertSlice(db: Queryable, s: SliceRow): Promise<void> {
  await db.query(
    `INSERT INTO slices (key, stats, slicer, slicer_version, duration_ms, gcode_read_ms) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (key) DO NOTHING`,
    [
      s.key,
      JSON.stringify(s.stats),
      s.slicer,
      s.slicer_version,
      Math.round(s.duration_ms),
      s.gcode_read_ms === undefined || s.gcode_read_ms === null ? null : Math.round(s.gcode_read_ms),
    ],
  );
}

/**
 * Hands back the jobs a stopping worker holds: their leases end now, so any worker claims them at once, and the
 * interrupted claim does not count as an attempt (a graceful stop is not a failure). Returns how many.
 */
/** The owners holding a running lease on a quote or a prefetch (the dead among them are released at start). */
export async function leaseHolders(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ lease_owner: string }>(
    `SELECT lease_owner FROM quotes WHERE status = 'processing' AND lease_expires_at >= now() AND lease_owner IS NOT NULL
     UNION SELECT lease_owner FROM prefetches WHERE lease_expires_at >= now() AND lease_owner IS NOT NULL`,
  );
  return rows.map((r) => r.lease_owner);
}

/**
 * What a job handed back keeps of its attempt: nothing of when it was expected to end. It waits for a worker, and
 * its time left is unknown until the next attempt's first heartbeat (docs/instant-price.md), not a last second.
 */
const FORGET_EXPECTED_END = 'expected_done_at = NULL, slower_than_predicted = false';

/**
 * A dead owner's leases end now, its quotes' progress back to 0: its slices died with it, and the job waits to
 * be claimed again (the killed attempt still counts, as a crash may be the file's doing).
 */
export async function releaseDeadOwner(db: Queryable, owner: string): Promise<number> {
  const quotes = await db.query(
    `UPDATE quotes SET lease_expires_at = now() - interval '1 millisecond', progress = 0, ${FORGET_EXPECTED_END}
     WHERE lease_owner = $1 AND status = 'processing' RETURNING id`,
    [owner],
  );
  await db.query(`UPDATE prefetches SET lease_expires_at = now() - interval '1 millisecond' WHERE lease_owner = $1`, [
    owner,
  ]);
  return quotes.length;
}

/**
 * The slice outgrew the short lane: the job is handed back at once (its lease ended, the attempt not counted) for
 * a normal slot, never the lane again. False when this worker no longer holds it.
 */
export async function handBackOutgrown(db: Queryable, id: string, owner: string): Promise<boolean> {
  const rows = await db.query(
    `UPDATE quotes SET lease_expires_at = now() - interval '1 millisecond', attempts = greatest(attempts - 1, 0),
       short_lane_outgrown = true, ${FORGET_EXPECTED_END}
     WHERE id = $1 AND lease_owner = $2 AND status = 'processing' RETURNING id`,
    [id, owner],
  );
  return rows.length === 1;
}

export async function releaseLeases(db: Queryable, owner: string): Promise<number> {
  const rows = await db.query(
    `UPDATE quotes SET lease_expires_at = now() - interval '1 millisecond', attempts = greatest(attempts - 1, 0),
       ${FORGET_EXPECTED_END}
     WHERE lease_owner = $1 AND status = 'processing' RETURNING id`,
    [owner],
  );
  return rows.length;
}

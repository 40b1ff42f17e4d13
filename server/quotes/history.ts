// The quote history's page (GET /v2/quotes), answered as JSON put together from each quote's record. A completed
// quote's record never changes but for `expired`: once presented, its JSON is kept by quote id, and a later page
// that shows the quote again neither reads its result from the database (kilobytes of JSON with the quote's
// resolved settings) nor parses it nor writes it out again. What is kept is JSON.stringify of the very record the
// page held before, as UTF-8 bytes, and the page's bytes are those of JSON.stringify of the page, so the answer is
// the same, byte for byte; kept as bytes, a page is copied together instead of encoded again for every answer.
// The quotes of other states (queued, processing, failed) are presented afresh: their records are small. The pages
// asked in one turn of the event loop, whoever asks them, are read in one statement (db/per-turn.ts).

import { perTurn, type Queryable } from '../db/index.ts';
import { type PageRequest, pageResponse } from '../http/index.ts';
import { presentQuote, quoteExpired } from './present.ts';
import { type HistoryPageRows, type HistoryRow, listQuotePages, quoteResults, type StoredQuoteResult } from './sql.ts';

/** The most bytes of records kept (a record is a few thousand): the least recently shown are let go first. */
const KEPT_BYTES = 8_000_000;

/** How many times a page is read again when a quote on it was deleted between its two statements. */
const PAGE_ATTEMPTS = 3;

const DATA_OPENS = '{"data":[';
const COMMA = Buffer.from(',');
const EXPIRY = { true: Buffer.from(',"expired":true}'), false: Buffer.from(',"expired":false}') };

/** What the history's pages keep of completed quotes' records: the JSON before `expired`, by quote id. */
function keptRecords(maxBytes: number) {
  const heads = new Map<string, Buffer>();
  let bytes = 0;
  return {
    recall(id: string): Buffer | undefined {
      const head = heads.get(id);
      if (head === undefined) return undefined;
      heads.delete(id); // shown again: the most recent now (a Map iterates in insertion order)
      heads.set(id, head);
      return head;
    },
    keep(id: string, head: Buffer): void {
      if (head.length > maxBytes || heads.has(id)) return;
      heads.set(id, head);
      bytes += head.length;
      for (const [oldest, gone] of heads) {
        if (bytes <= maxBytes) break;
        heads.delete(oldest);
        bytes -= gone.length;
      }
    },
  };
}

/**
 * A completed quote's record as JSON, split before `expired` when that is its last field (then the rest is kept):
 * `head` followed by `,"expired":true}` is JSON.stringify of the record.
 */
function completedRecord(row: HistoryRow, result: StoredQuoteResult, now: Date) {
  const record = presentQuote({ ...row, result }, now);
  if (Object.keys(record).at(-1) !== 'expired') return { whole: Buffer.from(JSON.stringify(record)) };
  const { expired: _, ...before } = record as typeof record & { expired: boolean };
  return { head: Buffer.from(JSON.stringify(before).slice(0, -1)) };
}

/** A page request as the key the pages of one turn share a statement by: the same page of one account is read once. */
const pageKey = (accountId: string, page: PageRequest) => `${accountId} ${page.limit} ${page.offset}`;

/** The pages asked in one turn, read together: `pageKey`s in, their rows out. */
function pagesPerTurn(db: Queryable): (key: string) => Promise<HistoryPageRows> {
  return perTurn(
    async (keys: string[]) => {
      const requests = keys.map((key) => {
        const [accountId, limit, offset] = key.split(' ');
        return { accountId: accountId!, limit: Number(limit), offset: Number(offset) };
      });
      const pages = await listQuotePages(db, requests);
      return new Map(keys.map((key, i) => [key, pages[i]!]));
    },
    { rows: [], total: 0 },
  );
}

/** The history's pages of one process, read from `db`; `maxBytes`: how much record JSON it keeps. */
export function historyPages(db: Queryable, maxBytes = KEPT_BYTES) {
  const kept = keptRecords(maxBytes);
  const pageRows = pagesPerTurn(db);

  /** A completed quote's record: kept, or presented from `results` (and kept); null when its result is gone. */
  function completed(row: HistoryRow, results: Map<string, StoredQuoteResult | null>, now: Date): Buffer[] | null {
    let head = kept.recall(row.id);
    if (head === undefined) {
      if (!results.has(row.id)) return null;
      const record = completedRecord(row, results.get(row.id)!, now);
      if (record.whole) return [record.whole];
      head = record.head;
      kept.keep(row.id, head);
    }
    return [head, EXPIRY[`${quoteExpired(row.expires_at, now)}`]];
  }

  /** The page's JSON, or null when a completed quote on it is gone (deleted between the page and its results). */
  async function pageJson(accountId: string, page: PageRequest, now: Date): Promise<Buffer | null> {
    const { rows, total } = await pageRows(pageKey(accountId, page));
    const unread = rows.filter((r) => r.status === 'completed' && kept.recall(r.id) === undefined).map((r) => r.id);
    const results = unread.length ? await quoteResults(db, accountId, unread) : new Map();
    const parts: Buffer[] = [];
    for (const row of rows) {
      if (parts.length) parts.push(COMMA);
      if (row.status !== 'completed') {
        parts.push(Buffer.from(JSON.stringify(presentQuote({ ...row, result: null }, now))));
        continue;
      }
      const record = completed(row, results, now);
      if (!record) return null;
      parts.push(...record);
    }
    // The page's own fields as pageResponse gives them, after the records where its empty data was.
    const envelope = JSON.stringify({ ...pageResponse(rows, page, total), data: [] });
    return Buffer.concat([Buffer.from(DATA_OPENS), ...parts, Buffer.from(envelope.slice(DATA_OPENS.length))]);
  }

  return async function historyPage(accountId: string, page: PageRequest, now: Date) {
    for (let attempt = 1; ; attempt++) {
      const json = await pageJson(accountId, page, now);
      if (json !== null) return json;
      if (attempt === PAGE_ATTEMPTS) throw new Error('the quote history kept changing while its page was read');
    }
  };
}

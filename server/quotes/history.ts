// The quote history's page (GET /v2/quotes), answered as JSON text put together from each quote's record. A
// completed quote's record never changes but for `expired`: once presented, its text is kept by quote id, and a
// later page that shows the quote again neither reads its result from the database (kilobytes of JSON with the
// quote's resolved settings) nor parses it nor writes it out again. The text kept is JSON.stringify of the very
// record the page held before, and the page's text is JSON.stringify of the page, so the answer is the same, byte
// for byte. The quotes of other states (queued, processing, failed) are presented afresh: their records are small.

import type { Queryable } from '../db/index.ts';
import { type PageRequest, pageResponse } from '../http/index.ts';
import { presentQuote, quoteExpired } from './present.ts';
import { type HistoryRow, listQuotes, quoteResults, type StoredQuoteResult } from './sql.ts';

/** The most characters of records kept (a record is a few thousand): the least recently shown are let go first. */
const KEPT_CHARS = 8_000_000;

/** How many times a page is read again when a quote on it was deleted between its two statements. */
const PAGE_ATTEMPTS = 3;

/** What the history's pages keep of completed quotes' records: the text before `expired`, by quote id. */
function keptRecords(maxChars: number) {
  const heads = new Map<string, string>();
  let chars = 0;
  return {
    recall(id: string): string | undefined {
      const head = heads.get(id);
      if (head === undefined) return undefined;
      heads.delete(id); // shown again: the most recent now (a Map iterates in insertion order)
      heads.set(id, head);
      return head;
    },
    keep(id: string, head: string): void {
      if (head.length > maxChars || heads.has(id)) return;
      heads.set(id, head);
      chars += head.length;
      for (const [oldest, text] of heads) {
        if (chars <= maxChars) break;
        heads.delete(oldest);
        chars -= text.length;
      }
    },
  };
}

/**
 * A completed quote's record as JSON text, split before `expired` when that is its last field (then the rest is
 * kept): `head` + `,"expired":true}` is JSON.stringify of the record.
 */
function completedRecord(row: HistoryRow, result: StoredQuoteResult, now: Date) {
  const record = presentQuote({ ...row, result }, now);
  if (Object.keys(record).at(-1) !== 'expired') return { text: JSON.stringify(record) };
  const { expired: _, ...before } = record as typeof record & { expired: boolean };
  return { head: JSON.stringify(before).slice(0, -1) };
}

const withExpiry = (head: string, row: HistoryRow, now: Date) =>
  `${head},"expired":${quoteExpired(row.expires_at, now)}}`;

/** The history's pages of one process; `maxChars`: how much record text it keeps. */
export function historyPages(maxChars = KEPT_CHARS) {
  const kept = keptRecords(maxChars);

  /** The page's text, or null when a completed quote on it is gone (deleted between the page and its results). */
  async function pageText(db: Queryable, accountId: string, page: PageRequest, now: Date): Promise<string | null> {
    const { rows, total } = await listQuotes(db, accountId, page.limit, page.offset);
    const heads = new Map<string, string>();
    for (const row of rows) {
      const head = row.status === 'completed' ? kept.recall(row.id) : undefined;
      if (head !== undefined) heads.set(row.id, head);
    }
    const unread = rows.filter((r) => r.status === 'completed' && !heads.has(r.id)).map((r) => r.id);
    const results = unread.length ? await quoteResults(db, accountId, unread) : new Map();
    const records: string[] = [];
    for (const row of rows) {
      if (row.status !== 'completed') {
        records.push(JSON.stringify(presentQuote({ ...row, result: null }, now)));
        continue;
      }
      let head = heads.get(row.id);
      if (head === undefined) {
        if (!results.has(row.id)) return null;
        const record = completedRecord(row, results.get(row.id)!, now);
        if (record.text !== undefined) {
          records.push(record.text);
          continue;
        }
        head = record.head;
        kept.keep(row.id, head);
      }
      records.push(withExpiry(head, row, now));
    }
    // The page's own fields as pageResponse gives them, with the records' text where its empty data was.
    const envelope = JSON.stringify({ ...pageResponse(rows, page, total), data: [] });
    return `{"data":[${records.join(',')}${envelope.slice('{"data":['.length)}`;
  }

  return async function historyPage(db: Queryable, accountId: string, page: PageRequest, now: Date) {
    for (let attempt = 1; ; attempt++) {
      const text = await pageText(db, accountId, page, now);
      if (text !== null) return text;
      if (attempt === PAGE_ATTEMPTS) throw new Error('the quote history kept changing while its page was read');
    }
  };
}

// The quote history's page (GET /v2/quotes), answered as JSON put together from each quote's record. A completed
// quote's record never changes but for `expired`: once presented, its JSON is kept by quote id, and a later page
// that shows the quote again reads only its id, state and expiry from the database, not the rest of its record
// (its result is kilobytes of JSON with the quote's resolved settings), and neither parses nor writes it out again.
// What is kept is JSON.stringify of the very record the page held before, as UTF-8 bytes, and the page's bytes are
// those of JSON.stringify of the page, so the answer is the same, byte for byte; kept as bytes, a page is written
// out in its parts (answerJsonParts) instead of encoded again for every answer. The records of quotes in other
// states (queued, processing, failed) are small: the page's statement reads them whole, and they are presented
// afresh. The pages asked in one turn of the event loop, whoever asks them, are read in one statement
// (db/per-turn.ts).

import { perTurn, type Queryable } from '../db/index.ts';
import { type PageRequest, pageResponse } from '../http/index.ts';
import { presentQuote, quoteExpired } from './present.ts';
import { type HistoryPage, listQuotePages, type QuoteRecordRow, quoteRecords } from './sql.ts';

/** The most bytes of records kept (a record is a few thousand): those not shown again for longest are let go first. */
const KEPT_BYTES = 8_000_000;

/** How many times a page is read again when a quote on it was deleted between its two statements. */
const PAGE_ATTEMPTS = 3;

const DATA_OPENS = '{"data":[';
const COMMA = Buffer.from(',');
const EXPIRY = { true: Buffer.from(',"expired":true}'), false: Buffer.from(',"expired":false}') };

/**
 * What the history's pages keep of completed quotes' records: the JSON before `expired`, by quote id. A record shown
 * again is marked, not moved: when the bytes run over, the oldest kept goes unless it was marked since it was last
 * passed over; then it loses its mark and goes to the back (the "second chance" of a page cache). A page's twenty
 * records then cost twenty lookups, not forty changes of the map.
 */
function keptRecords(maxBytes: number) {
  const heads = new Map<string, { head: Buffer; shown: boolean }>();
  let bytes = 0;
  return {
    recall(id: string): Buffer | undefined {
      const kept = heads.get(id);
      if (kept === undefined) return undefined;
      kept.shown = true;
      return kept.head;
    },
    keep(id: string, head: Buffer): void {
      if (head.length > maxBytes || heads.has(id)) return;
      heads.set(id, { head, shown: false });
      bytes += head.length;
      for (const [oldest, kept] of heads) {
        if (bytes <= maxBytes) break;
        heads.delete(oldest);
        if (kept.shown) {
          kept.shown = false;
          heads.set(oldest, kept); // at the back: the loop comes to it again only once all before it are passed
        } else {
          bytes -= kept.head.length;
        }
      }
    },
  };
}

/**
 * A completed quote's record as JSON, split before `expired` when that is its last field (then the rest is kept):
 * `head` followed by `,"expired":true}` is JSON.stringify of the record.
 */
function completedRecord(row: QuoteRecordRow, now: Date) {
  const record = presentQuote(row, now);
  if (Object.keys(record).at(-1) !== 'expired') return { whole: Buffer.from(JSON.stringify(record)) };
  const { expired: _, ...before } = record as typeof record & { expired: boolean };
  return { head: Buffer.from(JSON.stringify(before).slice(0, -1)) };
}

/** A page request as the key the pages of one turn share a statement by: the same page of one account is read once. */
const pageKey = (accountId: string, page: PageRequest) => `${accountId} ${page.limit} ${page.offset}`;

/** The pages asked in one turn, read together: `pageKey`s in, their rows out. */
function pagesPerTurn(db: Queryable): (key: string) => Promise<HistoryPage> {
  return perTurn(
    async (keys: string[]) => {
      const requests = keys.map((key) => {
        const [accountId, limit, offset] = key.split(' ');
        return { accountId: accountId!, limit: Number(limit), offset: Number(offset) };
      });
      const pages = await listQuotePages(db, requests);
      return new Map(keys.map((key, i) => [key, pages[i]!]));
    },
    { entries: [], total: 0 },
  );
}

/** The history's pages of one process, read from `db`; `maxBytes`: how much record JSON it keeps. */
export function historyPages(db: Queryable, maxBytes = KEPT_BYTES) {
  const kept = keptRecords(maxBytes);
  const pageRows = pagesPerTurn(db);

  /** A record read afresh, as JSON (a completed quote's is kept); null when the quote is gone. */
  function presented(record: QuoteRecordRow | undefined, now: Date): Buffer[] | null {
    if (!record) return null;
    if (record.status !== 'completed') return [Buffer.from(JSON.stringify(presentQuote(record, now)))];
    const { whole, head } = completedRecord(record, now);
    if (whole) return [whole];
    kept.keep(record.id, head!);
    return [head!, EXPIRY[`${quoteExpired(record.expires_at, now)}`]];
  }

  /** The page's JSON, in parts, or null when a quote on it is gone (deleted between the page and its records). */
  async function pageJson(accountId: string, page: PageRequest, now: Date): Promise<Buffer[] | null> {
    const { entries, total } = await pageRows(pageKey(accountId, page));
    const heads = entries.map((e) => (e.unfinished ? undefined : kept.recall(e.id)));
    const unread = entries.filter((e, i) => !e.unfinished && heads[i] === undefined).map((e) => e.id);
    const records = unread.length ? await quoteRecords(db, accountId, unread) : new Map<string, QuoteRecordRow>();
    const parts: Buffer[] = [Buffer.from(DATA_OPENS)];
    for (let i = 0; i < entries.length; i++) {
      if (i) parts.push(COMMA);
      const entry = entries[i]!;
      const head = heads[i];
      if (head) {
        parts.push(head, EXPIRY[`${quoteExpired(entry.expires_at, now)}`]);
        continue;
      }
      const record = presented(entry.unfinished ? { ...entry.unfinished, result: null } : records.get(entry.id), now);
      if (!record) return null;
      parts.push(...record);
    }
    // The page's own fields as pageResponse gives them, after the records where its empty data was.
    const envelope = JSON.stringify({ ...pageResponse(entries, page, total), data: [] });
    parts.push(Buffer.from(envelope.slice(DATA_OPENS.length)));
    return parts;
  }

  return async function historyPage(accountId: string, page: PageRequest, now: Date) {
    for (let attempt = 1; ; attempt++) {
      const json = await pageJson(accountId, page, now);
      if (json !== null) return json;
      if (attempt === PAGE_ATTEMPTS) throw new Error('the quote history kept changing while its page was read');
    }
  };
}

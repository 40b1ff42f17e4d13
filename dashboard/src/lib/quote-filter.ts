// Filtering of the quote history by material and date. GET /v2/quotes takes only page and limit, so the
// dashboard reads the history newest first in pages of 100 and filters here, stopping as soon as it has
// the requested page of matches, reaches quotes older than the "from" day, or hits the scan cap.
import { api, call } from './api.ts';
import type { Page, Quote } from './types.ts';

export interface QuoteFilter {
  material: string;
  /** Local calendar days, YYYY-MM-DD, inclusive; '' for open. */
  from: string;
  to: string;
}

export interface FilteredPage extends Page<Quote> {
  /** Quotes read from the history to answer. */
  scanned: number;
  /** True when the scan cap stopped the search before the history's end. */
  truncated: boolean;
}

const SCAN_LIMIT = 100;
export const MAX_SCAN_PAGES = 50;

export const isFiltered = (f: QuoteFilter) => Boolean(f.material || f.from || f.to);

const startOf = (day: string) => (day ? new Date(`${day}T00:00:00`).getTime() : -Infinity);
const endOf = (day: string) => (day ? new Date(`${day}T23:59:59.999`).getTime() : Infinity);

export function matches(q: Quote, f: QuoteFilter): boolean {
  const t = new Date(q.created_at).getTime();
  if (t < startOf(f.from) || t > endOf(f.to)) return false;
  return !f.material || q.printInfo?.material.toLowerCase() === f.material.toLowerCase();
}

export async function filteredQuotes(f: QuoteFilter, page: number, limit: number): Promise<FilteredPage> {
  const needed = page * limit + 1; // one more than the page tells whether a next page exists
  const found: Quote[] = [];
  let scanned = 0;
  let truncated = false;
  for (let p = 1; ; p++) {
    if (p > MAX_SCAN_PAGES) {
      truncated = true;
      break;
    }
    const batch = await call(api.GET('/v2/quotes', { params: { query: { page: p, limit: SCAN_LIMIT } } }));
    scanned += batch.data.length;
    found.push(...batch.data.filter((q) => matches(q, f)));
    const oldest = batch.data.at(-1);
    const pastFrom = oldest !== undefined && new Date(oldest.created_at).getTime() < startOf(f.from);
    if (found.length >= needed || !batch.has_more || pastFrom) break;
  }
  const start = (page - 1) * limit;
  return {
    data: found.slice(start, start + limit),
    page,
    limit,
    total: found.length,
    has_more: found.length > start + limit,
    scanned,
    truncated,
  };
}

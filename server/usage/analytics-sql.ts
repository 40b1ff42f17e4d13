// Quote analytics over the quotes table, for one account and a [start, end) range of finished_at.
//
// Identical results on PGlite and PostgreSQL: sums and averages run on numeric (exact, so the order in
// which rows are added cannot change the last digit) and are rounded in SQL; days, weeks (ISO, starting
// Monday: date_trunc('week')) and months are taken in UTC with AT TIME ZONE 'UTC', whatever the session's
// TimeZone; text ties sort with COLLATE "C", whatever the database's locale.
// Quotes deleted from history still count: they were computed, counted against the quota and priced.
import type { Queryable } from '../db/index.ts';
import { firstRow } from '../db/index.ts';

export type GroupBy = 'day' | 'week' | 'month';

const COMPLETED = `account_id = $1 AND status = 'completed' AND finished_at >= $2 AND finished_at < $3`;
const range = (accountId: string, start: Date, end: Date) => [accountId, start.toISOString(), end.toISOString()];

// $4 is the group_by unit; the label is the day, the ISO week (2026-W47) or the month.
const BUCKET = `date_trunc($4::text, finished_at AT TIME ZONE 'UTC')`;
const BUCKET_START = `to_char(${BUCKET}, 'YYYY-MM-DD')`;
const BUCKET_LABEL = `to_char(${BUCKET}, CASE $4::text WHEN 'week' THEN 'IYYY-"W"IW' WHEN 'month' THEN 'YYYY-MM' ELSE 'YYYY-MM-DD' END)`;

export async function quoteTotals(db: Queryable, accountId: string, start: Date, end: Date) {
  const rows = await db.query<{
    completed: number;
    failed: number;
    cached: number;
    deleted: number;
    grams: number;
    print_time_s: number;
  }>(
    `SELECT (count(*) FILTER (WHERE status = 'completed'))::int AS completed,
            (count(*) FILTER (WHERE status = 'failed'))::int AS failed,
            (count(*) FILTER (WHERE status = 'completed' AND cached))::int AS cached,
            (count(*) FILTER (WHERE deleted_at IS NOT NULL))::int AS deleted,
            round(coalesce(sum(filament_weight_g::numeric) FILTER (WHERE status = 'completed'), 0), 2) AS grams,
            round(coalesce(sum(print_time_s::numeric) FILTER (WHERE status = 'completed'), 0), 0) AS print_time_s
     FROM quotes WHERE account_id = $1 AND status IN ('completed', 'failed') AND finished_at >= $2 AND finished_at < $3`,
    range(accountId, start, end),
  );
  return firstRow(rows);
}

/**
 * Shoppers' quotes → orders → carts: the uploads shoppers quoted through a widget key (one exploration of a model
 * counts once, as the allowance counts it), how many of them were ordered (added through the widget, whether or not
 * a cart took the line), how many a shop's cart took (an acknowledged line), and the lines added in the range. Read
 * from the shop's orders (`cart_lines`: every add to a cart through a widget key).
 */
export async function cartConversion(db: Queryable, accountId: string, start: Date, end: Date) {
  const rows = await db.query<{
    quoted_uploads: number;
    ordered_uploads: number;
    carted_uploads: number;
    cart_lines: number;
  }>(
    `WITH quoted AS (
       SELECT DISTINCT file_id FROM quotes WHERE ${COMPLETED} AND widget_key_id IS NOT NULL
     ), carts AS (
       SELECT file_id, created_at, acknowledged_at FROM cart_lines WHERE account_id = $1 AND widget_key_id IS NOT NULL
     )
     SELECT (SELECT count(*) FROM quoted)::int AS quoted_uploads,
            (SELECT count(*) FROM quoted q WHERE EXISTS (SELECT 1 FROM carts c WHERE c.file_id = q.file_id))::int
              AS ordered_uploads,
            (SELECT count(*) FROM quoted q WHERE EXISTS (
               SELECT 1 FROM carts c WHERE c.file_id = q.file_id AND c.acknowledged_at IS NOT NULL))::int
              AS carted_uploads,
            (SELECT count(*) FROM carts WHERE created_at >= $2 AND created_at < $3)::int AS cart_lines`,
    range(accountId, start, end),
  );
  return firstRow(rows);
}

export interface OrderValue {
  currency: string;
  lines: number;
  in_cart_lines: number;
  not_in_cart_lines: number;
  total: number;
  in_cart: number;
  not_in_cart: number;
}

/**
 * The orders added in the range (every cart line, as the Orders page lists them), per currency: how many lines and
 * the sum of their line totals, split into the lines a shop's cart took (acknowledged) and those no cart took (the
 * widget asked the shopper for a quote request). Each total_price is whole minor units (at most 4 decimals): read as numeric, the sums
 * are exact, and round(…, 4) changes nothing but a double's last-digit noise.
 */
export async function orderValue(db: Queryable, accountId: string, start: Date, end: Date): Promise<OrderValue[]> {
  const taken = 'acknowledged_at IS NOT NULL';
  return db.query<OrderValue>(
    `SELECT currency, count(*)::int AS lines,
            (count(*) FILTER (WHERE ${taken}))::int AS in_cart_lines,
            (count(*) FILTER (WHERE NOT (${taken})))::int AS not_in_cart_lines,
            round(sum(total_price::numeric), 4) AS total,
            round(coalesce(sum(total_price::numeric) FILTER (WHERE ${taken}), 0), 4) AS in_cart,
            round(coalesce(sum(total_price::numeric) FILTER (WHERE NOT (${taken})), 0), 4) AS not_in_cart
     FROM cart_lines WHERE account_id = $1 AND created_at >= $2 AND created_at < $3
     GROUP BY currency ORDER BY lines DESC, currency COLLATE "C"`,
    range(accountId, start, end),
  );
}

export interface RequestCounts {
  requests: number;
  requested: number;
  priced: number;
  ordered: number;
  by_reason: { no_cart: number; not_priceable: number; merchant_rule: number };
}

/**
 * The quote requests shoppers sent in the range (docs/widget.md, "Request a quote"), apart from the orders: how many
 * wait for the shop's price, how many are priced (the link is out) and how many were ordered from their link (a
 * cart line of the priced quote exists, as the Orders page reads it), and why they were sent.
 */
export async function requestCounts(db: Queryable, accountId: string, start: Date, end: Date): Promise<RequestCounts> {
  const rows = await db.query<Omit<RequestCounts, 'by_reason'> & RequestCounts['by_reason']>(
    `WITH r AS (
       SELECT r.reason, r.priced_quote_id IS NOT NULL AS priced,
              EXISTS (SELECT 1 FROM cart_lines c WHERE c.quote_id = r.priced_quote_id AND c.account_id = r.account_id)
                AS ordered
       FROM quote_requests r WHERE r.account_id = $1 AND r.created_at >= $2 AND r.created_at < $3
     )
     SELECT count(*)::int AS requests,
            (count(*) FILTER (WHERE NOT priced))::int AS requested,
            (count(*) FILTER (WHERE priced AND NOT ordered))::int AS priced,
            (count(*) FILTER (WHERE ordered))::int AS ordered,
            (count(*) FILTER (WHERE reason = 'no_cart'))::int AS no_cart,
            (count(*) FILTER (WHERE reason = 'not_priceable'))::int AS not_priceable,
            (count(*) FILTER (WHERE reason = 'merchant_rule'))::int AS merchant_rule
     FROM r`,
    range(accountId, start, end),
  );
  const { no_cart, not_priceable, merchant_rule, ...counts } = firstRow(rows);
  return { ...counts, by_reason: { no_cart, not_priceable, merchant_rule } };
}

export interface PriceStats {
  currency: string;
  quotes: number;
  total: number;
  average: number;
  min: number;
  max: number;
  average_per_gram: number | null;
}

const PRICE_COLUMNS = `count(*)::int AS quotes,
  round(sum(total_price::numeric), 2) AS total,
  round(avg(total_price::numeric), 2) AS average,
  round(min(total_price::numeric), 2) AS min,
  round(max(total_price::numeric), 2) AS max,
  round(sum(total_price::numeric) / nullif(sum(filament_weight_g::numeric), 0), 4) AS average_per_gram`;

/** Prices are only comparable within a currency, so every price statistic is per currency. */
export async function pricesByCurrency(
  db: Queryable,
  accountId: string,
  start: Date,
  end: Date,
): Promise<PriceStats[]> {
  return db.query<PriceStats>(
    `SELECT currency, ${PRICE_COLUMNS}
     FROM quotes WHERE ${COMPLETED} AND currency IS NOT NULL AND total_price IS NOT NULL
     GROUP BY currency ORDER BY quotes DESC, currency COLLATE "C"`,
    range(accountId, start, end),
  );
}

export async function materialUsage(db: Queryable, accountId: string, start: Date, end: Date) {
  return db.query<{ material: string; quotes: number; grams: number }>(
    `SELECT coalesce(material, 'unknown') AS material, count(*)::int AS quotes,
            round(coalesce(sum(filament_weight_g::numeric), 0), 2) AS grams
     FROM quotes WHERE ${COMPLETED}
     GROUP BY 1 ORDER BY quotes DESC, grams DESC, coalesce(material, 'unknown') COLLATE "C"`,
    range(accountId, start, end),
  );
}

export async function materialTrends(db: Queryable, accountId: string, start: Date, end: Date, groupBy: GroupBy) {
  return db.query<{ period_start: string; period: string; material: string; quotes: number; grams: number }>(
    `SELECT ${BUCKET_START} AS period_start, ${BUCKET_LABEL} AS period, coalesce(material, 'unknown') AS material,
            count(*)::int AS quotes, round(coalesce(sum(filament_weight_g::numeric), 0), 2) AS grams
     FROM quotes WHERE ${COMPLETED}
     GROUP BY ${BUCKET}, 3 ORDER BY 1, quotes DESC, coalesce(material, 'unknown') COLLATE "C"`,
    [...range(accountId, start, end), groupBy],
  );
}

export async function costTrends(db: Queryable, accountId: string, start: Date, end: Date, groupBy: GroupBy) {
  return db.query<PriceStats & { period_start: string; period: string; grams: number }>(
    `SELECT ${BUCKET_START} AS period_start, ${BUCKET_LABEL} AS period, currency, ${PRICE_COLUMNS},
            round(coalesce(sum(filament_weight_g::numeric), 0), 2) AS grams
     FROM quotes WHERE ${COMPLETED} AND currency IS NOT NULL AND total_price IS NOT NULL
     GROUP BY ${BUCKET}, currency ORDER BY 1, currency COLLATE "C"`,
    [...range(accountId, start, end), groupBy],
  );
}

/** Completed quotes per UTC day (for /v2/usage's daily trend). */
export async function dailyQuotes(db: Queryable, accountId: string, start: Date, end: Date) {
  return db.query<{ day: string; quotes: number; failed: number; grams: number }>(
    `SELECT to_char(finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
            (count(*) FILTER (WHERE status = 'completed'))::int AS quotes,
            (count(*) FILTER (WHERE status = 'failed'))::int AS failed,
            round(coalesce(sum(filament_weight_g::numeric) FILTER (WHERE status = 'completed'), 0), 2) AS grams
     FROM quotes WHERE account_id = $1 AND status IN ('completed', 'failed') AND finished_at >= $2 AND finished_at < $3
     GROUP BY 1 ORDER BY 1`,
    range(accountId, start, end),
  );
}

export async function popularColors(db: Queryable, accountId: string, start: Date, end: Date, limit: number) {
  return db.query<{ material: string; color: string; quotes: number }>(
    `SELECT coalesce(material, 'unknown') AS material, coalesce(color, 'unknown') AS color, count(*)::int AS quotes
     FROM quotes WHERE ${COMPLETED}
     GROUP BY 1, 2 ORDER BY quotes DESC, coalesce(material, 'unknown') COLLATE "C", coalesce(color, 'unknown') COLLATE "C" LIMIT $4`,
    [...range(accountId, start, end), limit],
  );
}

export async function popularPrinters(db: Queryable, accountId: string, start: Date, end: Date, limit: number) {
  return db.query<{ printer: string; quotes: number }>(
    `SELECT coalesce(printer, 'unknown') AS printer, count(*)::int AS quotes
     FROM quotes WHERE ${COMPLETED}
     GROUP BY 1 ORDER BY quotes DESC, coalesce(printer, 'unknown') COLLATE "C" LIMIT $4`,
    [...range(accountId, start, end), limit],
  );
}

/**
 * A printer configuration: the printer plus the resolved settings that shape a print most (layer height,
 * infill density and pattern, supports), read from the quote's resolved settings; null when absent.
 */
export async function popularConfigurations(db: Queryable, accountId: string, start: Date, end: Date, limit: number) {
  return db.query<{
    printer: string;
    layer_height: unknown;
    fill_density: unknown;
    infill_pattern: unknown;
    support_material: unknown;
    quotes: number;
  }>(
    `SELECT coalesce(printer, 'unknown') AS printer,
            resolved #> '{settings,printer,layer_height}' AS layer_height,
            resolved #> '{settings,printer,fill_density}' AS fill_density,
            resolved #> '{settings,printer,infill_pattern}' AS infill_pattern,
            resolved #> '{settings,printer,support_material}' AS support_material,
            count(*)::int AS quotes
     FROM quotes WHERE ${COMPLETED}
     GROUP BY 1, 2, 3, 4, 5
     ORDER BY quotes DESC, coalesce(printer, 'unknown') COLLATE "C", 2, 3,
              (resolved #> '{settings,printer,infill_pattern}')::text COLLATE "C", 5 LIMIT $4`,
    [...range(accountId, start, end), limit],
  );
}

/** One exported quote: the columns of the quotes table (quotes/sql.ts) that the export writes. */
export interface ExportQuoteRow {
  cursor: string;
  id: string;
  status: 'queued' | 'processing' | 'completed' | 'failed';
  mode: 'sync' | 'async';
  created_at: Date;
  finished_at: Date | null;
  deleted_at: Date | null;
  file_id: string;
  file_name: string;
  material: string | null;
  color: string | null;
  printer: string | null;
  currency: string | null;
  total_price: number | null;
  filament_weight_g: number | null;
  print_time_s: number | null;
  cached: boolean | null;
  token_id: string | null;
}

export interface QuoteCursor {
  /** created_at in UTC with microseconds (a JS Date would drop them and skip or repeat rows). */
  at: string;
  id: string;
}

/** One page of every quote (any status, deleted ones too) created in [start, end), after the cursor. */
export async function exportQuotesPage(
  db: Queryable,
  accountId: string,
  start: Date,
  end: Date,
  after: QuoteCursor | null,
  limit: number,
) {
  return db.query<ExportQuoteRow>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS cursor,
            id, status, mode, created_at, finished_at, deleted_at, file_id, file_name, material, color, printer,
            currency, total_price, filament_weight_g, print_time_s, cached, token_id
     FROM quotes
     WHERE account_id = $1 AND created_at >= $2 AND created_at < $3
       AND (created_at, id) > (($4::timestamp) AT TIME ZONE 'UTC', $5::text)
     ORDER BY created_at, id LIMIT $6`,
    [accountId, start.toISOString(), end.toISOString(), after?.at ?? '1970-01-01T00:00:00', after?.id ?? '', limit],
  );
}

// The request log read back for GET /v2/usage and the export: calls per endpoint, per day and per caller kind.
import type { Queryable } from '../db/index.ts';
import { CALLER_VIAS, type CallerVia } from '../limits/index.ts';

/**
 * 499: the client went away first (request-log.ts), e.g. the widget dropped a quote the shopper's next change
 * superseded. Counted as cancelled, not as an error.
 */
const CLIENT_CLOSED = 499;

export interface EndpointStat {
  method: string;
  route: string;
  calls: number;
  errors: number;
  cancelled: number;
  median_ms: number;
  p95_ms: number;
}

// Percentiles interpolate (percentile_cont) over the exact durations; numeric rounding makes PGlite and
// PostgreSQL print the same digits. COLLATE "C" keeps tie order independent of the database's locale.
export async function endpointStats(
  db: Queryable,
  accountId: string,
  from: Date,
  to: Date,
  via: readonly CallerVia[] = CALLER_VIAS,
): Promise<EndpointStat[]> {
  return db.query<EndpointStat>(
    `SELECT method, route, count(*)::int AS calls,
            (count(*) FILTER (WHERE status >= 400 AND status <> ${CLIENT_CLOSED}))::int AS errors,
            (count(*) FILTER (WHERE status = ${CLIENT_CLOSED}))::int AS cancelled,
            round((percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms))::numeric, 2) AS median_ms,
            round((percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms))::numeric, 2) AS p95_ms
     FROM api_requests WHERE account_id = $1 AND created_at >= $2 AND created_at < $3 AND via = ANY($4::text[])
     GROUP BY method, route
     ORDER BY calls DESC, route COLLATE "C", method COLLATE "C"`,
    [accountId, from.toISOString(), to.toISOString(), via],
  );
}

export async function dailyCalls(
  db: Queryable,
  accountId: string,
  from: Date,
  to: Date,
  via: readonly CallerVia[] = CALLER_VIAS,
) {
  return db.query<{ day: string; calls: number; errors: number; cancelled: number }>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS calls,
            (count(*) FILTER (WHERE status >= 400 AND status <> ${CLIENT_CLOSED}))::int AS errors,
            (count(*) FILTER (WHERE status = ${CLIENT_CLOSED}))::int AS cancelled
     FROM api_requests WHERE account_id = $1 AND created_at >= $2 AND created_at < $3 AND via = ANY($4::text[])
     GROUP BY 1 ORDER BY 1`,
    [accountId, from.toISOString(), to.toISOString(), via],
  );
}

/** Calls per caller kind over the range, whatever the via filter (every kind listed, zeros included). */
export async function callsByVia(db: Queryable, accountId: string, from: Date, to: Date) {
  const rows = await db.query<{ via: CallerVia; calls: number; errors: number; cancelled: number }>(
    `SELECT via, count(*)::int AS calls,
            (count(*) FILTER (WHERE status >= 400 AND status <> ${CLIENT_CLOSED}))::int AS errors,
            (count(*) FILTER (WHERE status = ${CLIENT_CLOSED}))::int AS cancelled
     FROM api_requests WHERE account_id = $1 AND created_at >= $2 AND created_at < $3
     GROUP BY via`,
    [accountId, from.toISOString(), to.toISOString()],
  );
  return CALLER_VIAS.map((via) => rows.find((r) => r.via === via) ?? { via, calls: 0, errors: 0, cancelled: 0 });
}

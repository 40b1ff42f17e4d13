// Prometheus metrics (docs/deployment.md, "Metrics"). Two kinds:
// - what this process did (requests, upload bytes, slices, cache lookups): counters and histograms in memory,
//   labelled by route template, never by id, so the number of series stays bounded;
// - what the whole service holds (queue, webhook deliveries, stored bytes): gauges read from the database at
//   scrape time, the same from every process, so a dashboard takes max() over instances instead of sum().
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Queryable } from '../db/index.ts';
import { type RequestTimes, requestTimes } from './request-times.ts';

export interface Metrics {
  registry: Registry;
  /** Each request's duration, held and counted into slicequote_http_request_duration_seconds in batches. */
  requests: RequestTimes;
  uploadBytes: Counter;
  slices: Histogram<'outcome'>;
  sliceCache: Counter<'result'>;
  prefetches: Counter<'outcome'>;
  /** Uploads whose prefetches this process is planning (it runs after the upload's answer). */
  prefetchPlanning: Gauge;
  /** Prefetches this process is slicing right now. */
  prefetchesRunning: Gauge;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const SLICE_SECONDS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600];

export function createMetrics(db: Queryable): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'slicequote_' });
  const requests: RequestTimes = requestTimes(
    new Histogram({
      name: 'slicequote_http_request_duration_seconds',
      help: 'HTTP requests by method, route template and status (499: the client went away first)',
      labelNames: ['method', 'route', 'status'],
      buckets: SECONDS,
      registers: [registry],
      collect: () => requests.count(),
    }),
  );
  const metrics: Metrics = {
    registry,
    requests,
    uploadBytes: new Counter({
      name: 'slicequote_upload_bytes_total',
      help: 'Bytes of model files received',
      registers: [registry],
    }),
    slices: new Histogram({
      name: 'slicequote_slice_duration_seconds',
      help: 'PrusaSlicer runs by this process, by outcome (ok, failed, timeout)',
      labelNames: ['outcome'],
      buckets: SLICE_SECONDS,
      registers: [registry],
    }),
    sliceCache: new Counter({
      name: 'slicequote_slice_cache_lookups_total',
      help: 'Slice cache lookups by quotes this process answered (hit: no slice needed)',
      labelNames: ['result'],
      registers: [registry],
    }),
    prefetches: new Counter({
      name: 'slicequote_prefetches_total',
      help: 'Prefetched slices by outcome: sliced, cached (already there), preempted (made way for a quote), failed',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    prefetchPlanning: new Gauge({
      name: 'slicequote_prefetch_planning',
      help: 'Uploads whose prefetches this process is planning right now (after the upload was answered)',
      registers: [registry],
    }),
    prefetchesRunning: new Gauge({
      name: 'slicequote_prefetches_running',
      help: 'Prefetches this process is slicing right now',
      registers: [registry],
    }),
  };
  serviceGauges(db, registry);
  return metrics;
}

/** Gauges of the service's state, read when Prometheus scrapes. */
function serviceGauges(db: Queryable, registry: Registry) {
  labelledCount(db, registry, {
    name: 'slicequote_quote_jobs',
    help: 'Quote jobs waiting for or holding a slicer, by status (the whole service)',
    label: 'status',
    values: ['queued', 'processing'],
    sql: `SELECT status AS label, count(*)::int AS n FROM quotes WHERE status IN ('queued', 'processing') GROUP BY status`,
  });
  labelledCount(db, registry, {
    name: 'slicequote_webhook_deliveries',
    help: 'Webhook deliveries by state (the whole service)',
    label: 'state',
    values: DELIVERY_STATES,
    sql: 'SELECT state AS label, count(*)::int AS n FROM webhook_deliveries GROUP BY state',
  });
  labelledCount(db, registry, {
    name: 'slicequote_webhook_attempts',
    help: "Webhook delivery attempts made, by the delivery's state (the whole service)",
    label: 'state',
    values: DELIVERY_STATES,
    sql: 'SELECT state AS label, coalesce(sum(attempts), 0)::int AS n FROM webhook_deliveries GROUP BY state',
  });
  new Gauge({
    name: 'slicequote_stored_file_bytes',
    help: 'Bytes of model files stored (the whole service)',
    registers: [registry],
    async collect() {
      const [row] = await db.query<{ n: number }>('SELECT coalesce(sum(size_bytes), 0)::float8 AS n FROM files');
      this.set(row?.n ?? 0);
    },
  });
}

const DELIVERY_STATES = ['pending', 'delivered', 'failed'];

/** A gauge with one series per label value, from a query answering (label, n); absent values read 0. */
function labelledCount(
  db: Queryable,
  registry: Registry,
  g: { name: string; help: string; label: string; values: string[]; sql: string },
) {
  new Gauge({
    name: g.name,
    help: g.help,
    labelNames: [g.label],
    registers: [registry],
    async collect() {
      const rows = await db.query<{ label: string; n: number }>(g.sql);
      for (const value of g.values) this.set({ [g.label]: value }, rows.find((r) => r.label === value)?.n ?? 0);
    },
  });
}

declare module '../deps.ts' {
  interface Deps {
    /** Prometheus metrics of this process and of the service's state (served at /metrics). */
    metrics: Metrics;
  }
}

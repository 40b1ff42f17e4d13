// The request histogram's observations (slicequote_http_request_duration_seconds), held and counted into it
// REQUEST_BATCH at a time, and all of them before every scrape, so a scrape sees every request that ended before it.
// Counted one by one between the requests' own work, each cost about twice as much CPU under load as counted in one
// loop (docs/performance.md, run 10): prom-client builds and looks up a key of the labels for every observation.
import type { Histogram } from 'prom-client';

export interface RequestTimes {
  /** A request that ended: its method, route template, status and duration. */
  observe(method: string, route: string, status: number, seconds: number): void;
  /** Counts what is held into the histogram (prom-client calls it when it is scraped). */
  count(): void;
}

const REQUEST_BATCH = 64;

export function requestTimes(histogram: Histogram<'method' | 'route' | 'status'>): RequestTimes {
  const methods: string[] = [];
  const routes: string[] = [];
  const statuses: number[] = [];
  const durations: number[] = [];
  function count() {
    for (let i = 0; i < methods.length; i++) {
      histogram.observe({ method: methods[i]!, route: routes[i]!, status: String(statuses[i]) }, durations[i]!);
    }
    methods.length = routes.length = statuses.length = durations.length = 0;
  }
  return {
    observe(method, route, status, seconds) {
      methods.push(method);
      routes.push(route);
      statuses.push(status);
      if (durations.push(seconds) >= REQUEST_BATCH) count();
    },
    count,
  };
}

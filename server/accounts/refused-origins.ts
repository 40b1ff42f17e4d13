// The origins a widget key was refused from, so the dashboard can say "http://localhost:5173 was refused"
// instead of leaving the merchant a bare 403 in a shopper's console (docs/dashboard.md, "Widget keys").
//
// Kept in memory, bounded, per process: a widget key is public, so any page on the internet can make us
// refuse it; a refusal must not cost a database write. What is lost on a restart comes back with the next
// page load that is refused. With API_PROCESSES > 1 each process lists what it refused itself; a page load
// makes several calls, spread over the processes, so each sees a misconfigured origin at once.

/** One origin a key was refused from: how often, and when last. */
export interface RefusedOrigin {
  origin: string;
  count: number;
  last_refused_at: string;
}

export interface RefusedOrigins {
  record(widgetKeyId: string, origin: string, at: Date): void;
  /** The most recent first. */
  list(widgetKeyId: string): RefusedOrigin[];
}

/** Origins kept per key (the most recently refused), keys kept in all (the most recently refused). */
export const REFUSED_ORIGINS_PER_KEY = 20;
const KEYS_KEPT = 10_000;
/** An Origin header is the page's own text: kept no longer than any real origin. */
const MAX_ORIGIN_LENGTH = 300;

export function createRefusedOrigins(): RefusedOrigins {
  // Maps iterate in insertion order: deleting and setting again moves an entry to the end (the newest).
  const byKey = new Map<string, Map<string, { count: number; last: Date }>>();
  return {
    record(widgetKeyId, origin, at) {
      const name = origin.slice(0, MAX_ORIGIN_LENGTH) || 'no origin';
      const origins = byKey.get(widgetKeyId) ?? new Map();
      byKey.delete(widgetKeyId);
      byKey.set(widgetKeyId, origins);
      const seen = origins.get(name);
      origins.delete(name);
      origins.set(name, { count: (seen?.count ?? 0) + 1, last: at });
      dropOldest(origins, REFUSED_ORIGINS_PER_KEY);
      dropOldest(byKey, KEYS_KEPT);
    },
    list(widgetKeyId) {
      const origins = [...(byKey.get(widgetKeyId) ?? new Map<string, { count: number; last: Date }>())];
      return origins
        .reverse()
        .map(([origin, seen]) => ({ origin, count: seen.count, last_refused_at: seen.last.toISOString() }));
    },
  };
}

function dropOldest<K, V>(map: Map<K, V>, keep: number): void {
  for (const key of map.keys()) {
    if (map.size <= keep) return;
    map.delete(key);
  }
}

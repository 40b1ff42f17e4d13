// What a process remembers of live credentials (API tokens in api-tokens.ts, widget keys in widget-key-cache.ts): the
// rows read to check one, kept for AUTH_CACHE_MS, so the hot path of every API and storefront call reads nothing.
// Any change to an account, a token's validity or a widget key's, by the service or by an operator's SQL, empties
// every process's memory at once: the triggers of migrations 017, 034 and 035 NOTIFY on AUTH_CHANGES_CHANNEL when
// the change commits, and a process whose listening connection dropped empties its memory too.
import type { Db } from '../db/index.ts';

export const AUTH_CHANGES_CHANNEL = 'slicequote_tokens';
/** Bounds staleness should a notification be lost. */
const AUTH_CACHE_MS = 30_000;
/** Past this many, the memory starts afresh: it stays bounded whatever callers send. */
const AUTH_CACHE_MAX = 10_000;

export function authCache<T>(db: Pick<Db, 'listen'>) {
  const live = new Map<string, { value: T; until: number }>();
  // Counts the forgets: rows read before a change must not be kept after the change's NOTIFY emptied the memory.
  let generation = 0;
  const forget = () => {
    generation++;
    live.clear();
  };
  return {
    /** What is kept for `key`, unless its time is over at `at` (ms). */
    recall(key: string, at: number): T | undefined {
      const hit = live.get(key);
      return hit && hit.until > at ? hit.value : undefined;
    },
    /** Reads with `read` and keeps what it finds under `key`, unless the memory was emptied while it read. */
    async read<V extends T | undefined>(key: string, at: number, read: () => Promise<V>): Promise<V> {
      const readIn = generation;
      const value = await read();
      if (value === undefined) return value;
      if (live.size >= AUTH_CACHE_MAX) live.clear();
      if (readIn === generation) live.set(key, { value, until: at + AUTH_CACHE_MS });
      return value;
    },
    /** Empties the memory (a change was notified, or this process made one). */
    forget,
    start: () => db.listen(AUTH_CHANGES_CHANNEL, forget),
  };
}

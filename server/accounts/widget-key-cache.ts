// The storefront's hot path: every call of the widget sends its shop's key, and a shopper's page polls while a part
// is sliced. A live key's row and its account's are read once per WIDGET_KEY_CACHE_MS and process instead of on
// every call, as API tokens are (api-tokens.ts): any change to a key's validity or to an account, by the service or
// by an operator's SQL, empties the cache of every process at once (the triggers of migrations 017 and 035), and the
// process that revokes a key forgets at once. An unknown or revoked key is not remembered: it is read each time.
import type { Db } from '../db/index.ts';
import { AUTH_CHANGES_CHANNEL } from './api-tokens.ts';
import { type AccountRow, accountById } from './sql.ts';
import { liveWidgetKey, type WidgetKeyRow } from './widget-keys-sql.ts';

/** Bounds staleness should a notification be lost; a dropped LISTEN connection also empties the cache. */
const WIDGET_KEY_CACHE_MS = 30_000;
const WIDGET_KEY_CACHE_MAX = 10_000;

export interface LiveWidgetKey {
  key: WidgetKeyRow;
  account: AccountRow;
}

export interface WidgetKeyCache {
  /** The live key sent as `raw` and its account; undefined for a key unknown, revoked or of a deleted account. */
  lookup(raw: string): LiveWidgetKey | undefined | Promise<LiveWidgetKey | undefined>;
  /** After a revocation: this process forgets at once, before the trigger's NOTIFY reaches it. */
  revoked(): void;
  start(): Promise<void>;
}

export function createWidgetKeyCache(db: Db, now: () => Date): WidgetKeyCache {
  const live = new Map<string, { found: LiveWidgetKey; until: number }>();
  // Counts the forgets: rows read before a change must not be kept after the change's NOTIFY emptied the cache.
  let generation = 0;
  const forget = () => {
    generation++;
    live.clear();
  };
  async function load(raw: string, at: number): Promise<LiveWidgetKey | undefined> {
    const readIn = generation;
    const key = await liveWidgetKey(db, raw);
    const account = key && (await accountById(db, key.account_id));
    if (!key || !account) return undefined;
    const found = { key, account };
    if (live.size >= WIDGET_KEY_CACHE_MAX) live.clear();
    if (readIn === generation) live.set(raw, { found, until: at + WIDGET_KEY_CACHE_MS });
    return found;
  }
  return {
    lookup(raw) {
      const at = now().getTime();
      const hit = live.get(raw);
      return hit && hit.until > at ? hit.found : load(raw, at);
    },
    revoked: forget,
    start: () => db.listen(AUTH_CHANGES_CHANNEL, forget),
  };
}

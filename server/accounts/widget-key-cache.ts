// The storefront's hot path: every call of the widget sends its shop's key, and a shopper's page polls while a part
// is sliced. A live key's row and its account's are read once per 30 s and process instead of on every
// call, as API tokens are (auth-cache.ts): any change to a key's validity or to an account, by the service or
// by an operator's SQL, empties the cache of every process at once (the triggers of migrations 017 and 035), and the
// process that revokes a key forgets at once. An unknown or revoked key is not remembered: it is read each time.
import type { Db } from '../db/index.ts';
import { authCache } from './auth-cache.ts';
import { type AccountRow, accountById } from './sql.ts';
import { liveWidgetKey, type WidgetKeyRow } from './widget-keys-sql.ts';

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
  const live = authCache<LiveWidgetKey>(db);
  async function load(raw: string): Promise<LiveWidgetKey | undefined> {
    const key = await liveWidgetKey(db, raw);
    const account = key && (await accountById(db, key.account_id));
    return key && account ? { key, account } : undefined;
  }
  return {
    lookup(raw) {
      const at = now().getTime();
      return live.recall(raw, at) ?? live.read(raw, at, () => load(raw));
    },
    revoked: live.forget,
    start: live.start,
  };
}

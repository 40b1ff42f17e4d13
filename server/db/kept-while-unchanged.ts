// Answers that are costly to make and depend on a few rows only (the offer a caller quotes from, the widget's
// configuration): each is kept under its name with the fingerprint of the rows it was made from, which one cheap
// statement reads, and answered again while that statement reads the same. Nothing has to tell the memory of a
// change: a change by this process, another one or an operator's SQL changes the fingerprint, and the next ask makes
// the answer afresh. On a miss, the fingerprint and the answer are read in one snapshot (REPEATABLE READ), so a change
// committed while the answer is made is never kept under the fingerprint of the state before it.
import type { Db, Queryable } from './types.ts';

export interface KeptWhileUnchanged<T> {
  /** The answer kept for `name` if `fingerprint` still reads its fingerprint, else `make`'s, then kept. */
  answer(
    db: Db,
    name: string,
    fingerprint: (q: Queryable) => Promise<string>,
    make: (q: Queryable) => Promise<T>,
  ): Promise<T>;
}

/** `max`: past this many names, the memory starts afresh, so it stays bounded whatever callers ask. */
export function keptWhileUnchanged<T>(max: number): KeptWhileUnchanged<T> {
  const kept = new Map<string, { fingerprint: string; value: T }>();
  return {
    async answer(db, name, fingerprint, make) {
      const now = await fingerprint(db);
      const hit = kept.get(name);
      if (hit?.fingerprint === now) return hit.value;
      const fresh = await db.transaction(async (tx) => {
        await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
        return { fingerprint: await fingerprint(tx), value: await make(tx) };
      });
      if (kept.size >= max) kept.clear();
      kept.set(name, fresh);
      return fresh.value;
    },
  };
}

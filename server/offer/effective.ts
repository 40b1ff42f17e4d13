// The offer a caller quotes from, asked by every storefront call (the configuration, each estimate and quote, the
// prices side by side, the cart, a finished job's quote) and by the merchant's. A shop without an offer of its own
// has one derived from its profiles, which resolves the settings of every material: about 2 ms of CPU on each call.
// So each database handle remembers the last offer it answered for each account and key, with the fingerprint of what
// that offer is made from (offerInputsFingerprint), and answers it again while one statement reads the same
// fingerprint. Nothing has to tell it of a change: a change by the service, by another process or by an operator's
// SQL changes the fingerprint, and the next call reads the offer afresh.
import type { Offer } from '../../shared/offer.ts';
import type { Db, Queryable } from '../db/index.ts';
import { type OfferSource, readEffectiveOffer } from './offer.ts';
import { offerInputsFingerprint } from './sql.ts';

type Effective = { offer: Offer; source: OfferSource };

/** Past this many accounts' and keys' offers, a handle's memory starts afresh: it stays bounded. */
const KEPT_OFFERS = 1000;

/** What each database handle remembers (a handle is one deployment's database: tests open several in a process). */
const keptBy = new WeakMap<Queryable, Map<string, { fingerprint: string; answer: Effective }>>();

const isHandle = (db: Queryable): db is Db => 'transaction' in db;

/** The offer of `accountId` for `widgetKeyId` (its own, else the account's, else the derived one), and where from. */
export async function effectiveOffer(db: Queryable, accountId: string, widgetKeyId: string | null): Promise<Effective> {
  // Inside a caller's transaction the offer is read as that transaction sees it.
  if (!isHandle(db)) return readEffectiveOffer(db, accountId, widgetKeyId);
  const kept = keptBy.get(db) ?? new Map();
  keptBy.set(db, kept);
  const name = `${accountId} ${widgetKeyId ?? ''}`;
  const fingerprint = await offerInputsFingerprint(db, accountId, widgetKeyId);
  const hit = kept.get(name);
  if (hit?.fingerprint === fingerprint) return hit.answer;
  // The fingerprint and the offer read in one snapshot: a change committed meanwhile is not kept under the
  // fingerprint of the state before it.
  const fresh = await db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const read = await offerInputsFingerprint(tx, accountId, widgetKeyId);
    return { fingerprint: read, answer: deepFreeze(await readEffectiveOffer(tx, accountId, widgetKeyId)) };
  });
  if (kept.size >= KEPT_OFFERS) kept.clear();
  kept.set(name, fresh);
  return fresh.answer;
}

/** One answer is shared by every call until the next change: none may alter it for the others. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

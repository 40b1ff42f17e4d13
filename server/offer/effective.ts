// The offer a caller quotes from, asked by every storefront call (the configuration, each estimate and quote, the
// prices side by side, the cart, a finished job's quote) and by the merchant's. A shop without an offer of its own
// has one derived from its profiles, which resolves the settings of every material: about 2 ms of CPU on each call.
// So each database handle keeps the last offer it answered for each account and key while the fingerprint of what that
// offer is made from (offerInputsFingerprint) reads the same (keptWhileUnchanged: one statement per call).
import type { Offer } from '../../shared/offer.ts';
import { type Db, type KeptWhileUnchanged, keptWhileUnchanged, type Queryable } from '../db/index.ts';
import { type OfferSource, readEffectiveOffer } from './offer.ts';
import { offerInputsFingerprint } from './sql.ts';

type Effective = { offer: Offer; source: OfferSource };

/** Past this many accounts' and keys' offers, a handle's memory starts afresh: it stays bounded. */
const KEPT_OFFERS = 1000;

/** What each database handle keeps (a handle is one deployment's database: tests open several in a process). */
const keptBy = new WeakMap<Db, KeptWhileUnchanged<Effective>>();

const isHandle = (db: Queryable): db is Db => 'transaction' in db;

/** The offer of `accountId` for `widgetKeyId` (its own, else the account's, else the derived one), and where from. */
export async function effectiveOffer(db: Queryable, accountId: string, widgetKeyId: string | null): Promise<Effective> {
  // Inside a caller's transaction the offer is read as that transaction sees it.
  if (!isHandle(db)) return readEffectiveOffer(db, accountId, widgetKeyId);
  let kept = keptBy.get(db);
  if (!kept) {
    kept = keptWhileUnchanged<Effective>(KEPT_OFFERS);
    keptBy.set(db, kept);
  }
  return kept.answer(
    db,
    `${accountId} ${widgetKeyId ?? ''}`,
    (q) => offerInputsFingerprint(q, accountId, widgetKeyId),
    async (q) => deepFreeze(await readEffectiveOffer(q, accountId, widgetKeyId)),
  );
}

/** One answer is shared by every call until the next change: none may alter it for the others. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

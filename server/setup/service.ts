// The first-run checklist of a shop (the dashboard's Overview): each step read from what the shop has done, so
// it ticks itself. Key → offer → its own prices for every offered material (currency, minimum) → a cart that takes
// the widget's lines → a test order. An order no cart took shows the cart as not connected: the shop page lacks a
// cart listener.
import type { Deps } from '../deps.ts';
import { effectiveOffer } from '../offer/index.ts';
import { resolveSettings } from '../profiles/index.ts';
import { examplePricedMaterials } from './prices.ts';
import { keyOfferMaterials, setupCounts } from './sql.ts';

export async function setupChecklist(deps: Pick<Deps, 'db'>, accountId: string) {
  const counts = await setupCounts(deps.db, accountId);
  const { offer } = await effectiveOffer(deps.db, accountId, null);
  const base = await resolveSettings(deps.db, accountId, {});
  const offered = distinct([
    ...offer.materials.map((m) => m.material),
    ...(await keyOfferMaterials(deps.db, accountId)),
  ]);
  const examples = await examplePricedMaterials(deps.db, accountId, offered);
  const steps = {
    widget_key: { done: counts.widget_keys > 0, widget_keys: counts.widget_keys },
    offer: { done: counts.account_offer || counts.key_offers > 0 },
    prices: {
      done: offered.length > 0 && examples.length === 0,
      own_profiles: counts.own_profiles,
      materials: offered.length,
      example_priced_materials: examples,
      currency: base.settings.quote.currency,
      minimum_price: offer.minimum_price,
      minimum_line_price: offer.minimum_line_price,
    },
    cart: {
      done: counts.acknowledged > 0,
      not_connected: counts.orders > 0 && counts.acknowledged === 0,
      acknowledged: counts.acknowledged,
    },
    test_order: { done: counts.orders > 0, orders: counts.orders },
  };
  return { ...steps, complete: Object.values(steps).every((s) => s.done) };
}

/** Names once each, case-insensitively (profiles are looked up so), in their first spelling. */
function distinct(names: string[]): string[] {
  const seen = new Map<string, string>();
  for (const n of names) if (!seen.has(n.toLowerCase())) seen.set(n.toLowerCase(), n);
  return [...seen.values()];
}

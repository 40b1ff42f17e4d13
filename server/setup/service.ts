// The first-run checklist of a shop (the dashboard's Overview): each step read from what the shop has done, so
// it ticks itself. Key → offer → its own prices (currency, minimum) → a cart that takes the widget's lines → a
// test order. An order no cart took shows the cart as not connected: the shop page lacks a cart listener.
import type { Deps } from '../deps.ts';
import { effectiveOffer } from '../offer/offer.ts';
import { resolveSettings } from '../quotes/resolve.ts';
import { setupCounts } from './sql.ts';

export async function setupChecklist(deps: Deps, accountId: string) {
  const counts = await setupCounts(deps.db, accountId);
  const { offer } = await effectiveOffer(deps.db, accountId, null);
  const base = await resolveSettings(deps.db, accountId, {});
  const steps = {
    widget_key: { done: counts.widget_keys > 0, widget_keys: counts.widget_keys },
    offer: { done: counts.account_offer || counts.key_offers > 0 },
    prices: {
      done: counts.own_profiles > 0,
      own_profiles: counts.own_profiles,
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

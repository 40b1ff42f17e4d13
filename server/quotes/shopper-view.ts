// What a shop's shoppers see of a quote (docs/offer.md, "Cost breakdown"): unless the merchant's offer says
// `show_cost_breakdown`, a widget key's answers carry the price and its tax but not how the shop arrives at it —
// no material, support, machine, energy or fee lines, no price per gram, no resolved settings (hourly cost, power,
// price per kg). The merchant's own API token and dashboard always see everything.
import type { Auth } from '../accounts/access/index.ts';
import type { Deps } from '../deps.ts';
import { effectiveOffer } from '../offer/index.ts';
import type { ContractSchema } from '../openapi/index.ts';

type Quote = ContractSchema<'Quote'>;
type Breakdown = ContractSchema<'PriceBreakdown'>;

/** Whether this caller sees how a price is made: the merchant always, a shopper when the offer says so. */
export async function showsCostBreakdown(deps: Pick<Deps, 'db'>, auth: Auth, widgetKeyId = auth.widgetKeyId) {
  if (auth.via !== 'widget') return true;
  return (await effectiveOffer(deps.db, auth.account.id, widgetKeyId)).offer.show_cost_breakdown;
}

/** The breakdown's price lines a shopper may read: what the part costs them, with its tax, never its costs. */
function shopperBreakdown(b: Breakdown): ContractSchema<'ShopperPriceBreakdown'> {
  return {
    currency: b.currency,
    digits: b.digits,
    exchange_rate: b.exchange_rate,
    subtotal: b.subtotal,
    tax: b.tax,
    total: b.total,
    minimum_price_applied: b.minimum_price_adjustment > 0,
    ...(b.minimum_unit_price !== undefined ? { minimum_unit_price: b.minimum_unit_price } : {}),
    minor_units: { subtotal: b.minor_units.subtotal, tax: b.minor_units.tax, total: b.minor_units.total },
  };
}

/** A presented quote without the cost breakdown and the resolved settings it is made from. */
export function withoutCosts(quote: Quote): Quote {
  const { settings: _settings, setting_sources: _sources, price_breakdown, ...rest } = quote;
  if (!price_breakdown || !('machine' in price_breakdown)) return rest;
  return { ...rest, price_breakdown: shopperBreakdown(price_breakdown) };
}

/** The quote as this caller sees it under an offer already read (`show_cost_breakdown`). */
export function quoteAsSeen(auth: Auth, offer: { show_cost_breakdown: boolean }, quote: Quote): Quote {
  return auth.via !== 'widget' || offer.show_cost_breakdown ? quote : withoutCosts(quote);
}

/** The quote as this caller may see it. */
export async function quoteForViewer(deps: Pick<Deps, 'db'>, auth: Auth, quote: Quote): Promise<Quote> {
  if (quote.status !== 'completed' || auth.via !== 'widget') return quote;
  return (await showsCostBreakdown(deps, auth)) ? quote : withoutCosts(quote);
}

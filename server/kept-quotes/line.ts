// A kept quote's line: the quantity the shopper kept, priced exactly as the cart will price it when the link's
// holder orders it (the same function, the same offer), with its delivery option and the day it would ship.

import type { Auth } from '../accounts/access/index.ts';
import type { Deps } from '../deps.ts';
import { effectiveOffer } from '../offer/index.ts';
import type { QuoteRow } from '../quotes/index.ts';
import { chosenLeadTime, quoteLinePrice } from '../widget/index.ts';

type Offer = Awaited<ReturnType<typeof effectiveOffer>>['offer'];

/**
 * The offer a kept quote is priced and ordered with: a shopper's, their widget key's (the cart's); for the
 * merchant's token, the offer the quote was made under.
 */
export async function keptOffer(deps: Pick<Deps, 'db'>, auth: Auth, row: QuoteRow): Promise<Offer> {
  const key = auth.via === 'widget' ? auth.widgetKeyId : row.widget_key_id;
  return (await effectiveOffer(deps.db, row.account_id, key)).offer;
}

/** The link's quantity; a link made before links kept one stands for the offer's smallest quantity. */
export const keptQuantity = (offer: Offer, linked: number | null) => linked ?? offer.quantity.min;

/** The KeptLine of the contract: the line's price, its quantity and delivery, in the quote's currency. */
export function keptLine(deps: Pick<Deps, 'now'>, row: QuoteRow, quantity: number, offer: Offer) {
  const price = quoteLinePrice(row, quantity, offer);
  return {
    quantity,
    unit_price: row.total_price!,
    subtotal: price.subtotal,
    discount_percent: price.discount_percent,
    quantity_discount: price.quantity_discount,
    lead_time_surcharge: price.lead_time_surcharge,
    minimum_line_adjustment: price.minimum_line_adjustment,
    total_price: price.total,
    currency: row.currency!,
    lead_time: chosenLeadTime(row, deps.now()),
  };
}

export type KeptLine = ReturnType<typeof keptLine>;

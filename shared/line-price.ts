// What a cart line costs (docs/pricing.md, "A cart line"): the one function the server (authoritative: the cart,
// the orders, the webhook), the widget (the line total and break prices a shopper sees) and the dashboard (what a
// kept line's figures say) compute a line with, so that every place shows the same figure to the minor unit.
//
// Exactness: amounts arrive as major-unit numbers that are whole minor units (2.35 USD, 1.005 KWD); they are read
// into integer minor units once, every step after that is integer arithmetic (percentages in BigInt, so no product
// is ever rounded by a double), and the figures go back to major units only at the end.
import { roundHalfUp } from './money.ts';
import type { LeadTimeOption, QuantityBreak } from './offer-terms.ts';
import { MAX_MINOR_UNITS, PriceOutOfRangeError } from './pricing.ts';

/** What prices a line besides the unit price: the offer's breaks and line minimum, the quote's lead time. */
export interface LineTerms {
  quantity_breaks?: readonly QuantityBreak[];
  lead_time?: Pick<LeadTimeOption, 'surcharge_percent' | 'surcharge_amount'> | null;
  /** In the shop currency. */
  minimum_line_price: number | null;
  /**
   * The part at its minimum price with its tax, in the quote currency (PriceBreakdown.minimum_unit_price): a break
   * never takes a part below it. null or absent: no minimum.
   */
  minimum_unit_price?: number | null;
  /** Units of the quote currency per unit of the shop currency (1: the same currency). */
  rate?: number;
}

/** The break that applies to a quantity (the largest whose min_quantity it reaches), or null. */
export function breakFor(breaks: readonly QuantityBreak[], quantity: number): QuantityBreak | null {
  let found: QuantityBreak | null = null;
  for (const b of breaks) if (quantity >= b.min_quantity && (!found || b.min_quantity > found.min_quantity)) found = b;
  return found;
}

/** A major-unit amount that is whole minor units, read as its integer of minor units. */
const minorOf = (major: number, scale: number) => roundHalfUp(major * scale);

/**
 * `percent` (in steps of 0.01, as the offer allows) of a whole number of minor units, rounded half up, exactly:
 * floor((minor × hundredths + 5000) / 10000) in BigInt.
 */
export function percentOf(minor: number, percent: number): number {
  const hundredths = BigInt(Math.round(percent * 100));
  return Number((BigInt(minor) * hundredths + 5_000n) / 10_000n);
}

/**
 * A cart line in integer minor units:
 * - subtotal = unit × quantity;
 * - quantity_discount = subtotal × the break's percent (half up), at most what takes the parts down to their
 *   minimum price (the floor applies after the break: a part never sells below the minimum price per part);
 * - lead_time_surcharge = (subtotal − discount) × the surcharge percent (half up) + the surcharge amount;
 * - minimum_line_adjustment lifts the line to the offer's minimum line price;
 * - total = subtotal − discount + surcharge + adjustment.
 * The figures are in major units with `minor_units` alongside. A line above MAX_MINOR_UNITS is refused
 * (PriceOutOfRangeError), as a part's price is.
 */
export function priceLine(unitPrice: number, quantity: number, terms: LineTerms, digits: number) {
  const scale = 10 ** digits;
  const rate = terms.rate ?? 1;
  const unit = minorOf(unitPrice, scale);
  const big = BigInt(unit) * BigInt(quantity);
  if (big > BigInt(MAX_MINOR_UNITS)) {
    throw new PriceOutOfRangeError(`the line of ${quantity} parts exceeds ${MAX_MINOR_UNITS / scale}`);
  }
  const subtotal = Number(big);
  const rule = breakFor(terms.quantity_breaks ?? [], quantity);
  const minimumUnit = terms.minimum_unit_price ? minorOf(terms.minimum_unit_price, scale) : 0;
  const floor = Math.min(subtotal, minimumUnit * quantity);
  const nominal = rule ? percentOf(subtotal, rule.discount_percent) : 0;
  const discount = Math.min(nominal, subtotal - floor);
  const lead = terms.lead_time;
  const surcharge = lead
    ? percentOf(subtotal - discount, lead.surcharge_percent) + roundHalfUp(lead.surcharge_amount * rate * scale)
    : 0;
  const before = subtotal - discount + surcharge;
  const minimum = terms.minimum_line_price === null ? 0 : roundHalfUp(terms.minimum_line_price * rate * scale);
  const adjustment = Math.max(0, minimum - before);
  const minor = {
    subtotal,
    quantity_discount: discount,
    lead_time_surcharge: surcharge,
    minimum_line_adjustment: adjustment,
    total: before + adjustment,
  };
  return {
    unit_price: unit / scale,
    subtotal: subtotal / scale,
    quantity_discount: discount / scale,
    discount_percent: rule?.discount_percent ?? 0,
    /** The break that applies (its min_quantity), or null. */
    break_from: rule?.min_quantity ?? null,
    /** The break was held back so that no part sells below its minimum price. */
    discount_at_minimum: discount < nominal,
    lead_time_surcharge: surcharge / scale,
    minimum_line_adjustment: adjustment / scale,
    total: minor.total / scale,
    minor_units: minor,
  };
}

export type LinePrice = ReturnType<typeof priceLine>;

/** One break as a shopper reads it beside the price: what a piece costs from `min_quantity` on. */
export interface BreakPrice {
  min_quantity: number;
  discount_percent: number;
  /** A piece's price at this break, in major units: the unit price less the percent, never below the minimum. */
  each: number;
  /** The minimum price per part stopped the break: `each` is that minimum. */
  at_minimum: boolean;
}

/**
 * What a piece costs at each break that lowers it ("10+: $2.38 each"). A break that cannot lower the price, as the
 * part already sells at its minimum price, is left out. Piece prices are rounded half up per piece; the cart
 * discounts the line as a whole (priceLine), so a line can differ from quantity × piece by a rounding unit.
 */
export function breakPrices(
  unitPrice: number,
  breaks: readonly QuantityBreak[],
  minimumUnitPrice: number | null | undefined,
  digits: number,
): BreakPrice[] {
  const scale = 10 ** digits;
  const unit = minorOf(unitPrice, scale);
  const floor = Math.min(unit, minimumUnitPrice ? minorOf(minimumUnitPrice, scale) : 0);
  return breaks
    .map((b) => {
      // The piece's price rounded half up (not the discount: a piece is a price the shopper reads).
      const discounted = percentOf(unit, 100 - b.discount_percent);
      const each = Math.max(discounted, floor);
      return {
        min_quantity: b.min_quantity,
        discount_percent: b.discount_percent,
        each: each / scale,
        at_minimum: discounted < floor,
      };
    })
    .filter((b) => minorOf(b.each, scale) < unit);
}

/** A sum of major-unit amounts of one currency, added as integer minor units (no float drift, however many). */
export function sumAmounts(amounts: readonly number[], digits: number): number {
  const scale = 10 ** digits;
  return amounts.reduce((sum, a) => sum + minorOf(a, scale), 0) / scale;
}

/** The figures of a priced line as the cart, the orders and the webhook keep them (major units). */
export interface LineFigures {
  quantity: number;
  subtotal: number;
  discount_percent: number;
  quantity_discount: number;
  minimum_unit_price?: number | null;
}

/**
 * Whether a kept line's break was held back by the minimum price per part (its parts sell at that minimum and the
 * break's percent would have taken more): what priceLine's `discount_at_minimum` said when the line was priced.
 */
export function breakStoppedAtMinimum(line: LineFigures, digits: number): boolean {
  if (!(line.discount_percent > 0) || !line.minimum_unit_price) return false;
  const scale = 10 ** digits;
  const subtotal = minorOf(line.subtotal, scale);
  const discount = minorOf(line.quantity_discount, scale);
  const atFloor = subtotal - discount === minorOf(line.minimum_unit_price, scale) * line.quantity;
  return atFloor && discount < percentOf(subtotal, line.discount_percent);
}

// A cart line's whole formula, as the quote history, the quote page and Orders show it: unit price × quantity, the
// quantity break applied (and where the minimum price per part stopped it), the delivery surcharge, the minimum
// order, and the total. The figures are the line's own, priced by shared/line-price.ts when it was added.
import { html, type TemplateResult } from 'lit';
import { breakStoppedAtMinimum } from '../../../shared/line-price.ts';
import { currencyDigits, isCurrencyCode } from '../../../shared/money.ts';
import { money, num } from '../lib/format.ts';
import type { Order } from '../lib/types.ts';

type Line = Pick<
  Order,
  | 'quantity'
  | 'unit_price'
  | 'subtotal'
  | 'discount_percent'
  | 'quantity_discount'
  | 'lead_time_surcharge'
  | 'minimum_line_adjustment'
  | 'total_price'
  | 'currency'
  | 'lead_time'
> & { minimum_unit_price?: number | null };

/** The terms of the formula after unit × quantity, each a signed amount with what it is. */
export function formulaTerms(o: Line): string[] {
  const m = (v: number) => money(v, o.currency);
  const digits = isCurrencyCode(o.currency) ? currencyDigits(o.currency) : 2;
  const terms: string[] = [];
  if (o.discount_percent > 0) {
    const stopped = breakStoppedAtMinimum(o, digits)
      ? `, down to the minimum price per part, ${m(o.minimum_unit_price!)}`
      : '';
    terms.push(`− ${m(o.quantity_discount)} (${num(o.discount_percent, 2)} % off${stopped})`);
  }
  if (o.lead_time_surcharge > 0) terms.push(`+ ${m(o.lead_time_surcharge)} (${o.lead_time?.label ?? 'lead time'})`);
  if (o.minimum_line_adjustment > 0) terms.push(`+ ${m(o.minimum_line_adjustment)} (minimum order)`);
  return terms;
}

/**
 * "12 × $1.10 = $13.20 − $1.20 (10 % off, down to the minimum price per part, $1.00) + $4.90 (Express) = $16.90";
 * a line with nothing but its parts: "3 × $2.50 = $7.50".
 */
export function lineFormula(o: Line): TemplateResult {
  const m = (v: number) => money(v, o.currency);
  const atMinimum = o.minimum_unit_price != null && o.unit_price <= o.minimum_unit_price;
  const unit = `${o.quantity} × ${m(o.unit_price)}${atMinimum ? ' (minimum price per part)' : ''}`;
  const terms = formulaTerms(o);
  const text = terms.length
    ? `${unit} = ${m(o.subtotal)} ${terms.join(' ')} = ${m(o.total_price)}`
    : `${unit} = ${m(o.total_price)}`;
  return html`<span data-testid="line-total">${text}</span>`;
}

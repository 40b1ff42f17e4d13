// A priced part as the page's events report it: `sq-quote` (the quote at the quantity chosen) and, once the server has
// recorded the cart line, `sq-add-to-cart` (the same fields at the line's price, with the line's own). A part priced
// on the page and a kept quote ordered from its link (kept-order.ts) give the page the same detail.
import { lineSummary } from './format.ts';
import { findQuality, lineTotal } from './selection.ts';
import type { PartState } from './state.ts';
import type { AddToCartDetail, CartLine, PricedLine, QuoteDetail, WidgetConfig } from './types.ts';

/** Cart refusals a fresh price mends (expired; priced at an earlier size): Try again prices the part again. */
export const REPRICE = new Set(['quote_expired', 'quote_stale']);

/** The `sq-quote` detail of a priced part: its quote, its choices as the quote names them, and the line total. */
export function quoteDetail(s: Pick<PartState, 'quote' | 'file' | 'selection'>, config: WidgetConfig): QuoteDetail {
  const q = s.quote!;
  const sel = s.selection!;
  const quality = findQuality(config, q.choices?.quality ?? sel.quality);
  return {
    quote_id: q.quote_id,
    file_id: s.file!.file_id,
    material: q.choices?.material ?? sel.material,
    color: q.choices?.color ?? sel.color,
    quality: quality?.id ?? sel.quality,
    quality_label: quality?.label ?? '',
    layer_height: quality?.layer_height ?? 0,
    fill_density: q.choices?.infill ?? sel.infill,
    quantity: sel.quantity,
    expires_at: q.expires_at,
    unit_price: q.total_price,
    total_price: lineTotal(q, sel.quantity, config),
    currency: q.currency,
    estimated_time: q.estimated_time,
    estimated_time_seconds: q.estimated_time_seconds,
    filament_weight: q.filament_weight,
    placement: q.placement ?? null,
    signature: q.signature,
    cached: q.cached ?? false,
  };
}

/** A part's quote at the price of the line the server recorded (its quantity, prices, expiry and signature). */
export function pricedAsLine(detail: QuoteDetail, line: CartLine): PricedLine {
  const { cached: _cached, ...priced } = detail;
  return {
    ...priced,
    quantity: line.quantity,
    unit_price: line.unit_price,
    total_price: line.total_price,
    currency: line.currency,
    expires_at: line.expires_at,
    signature: line.signature,
  };
}

/** The `sq-add-to-cart` detail of a recorded line: what was priced, and the line's own fields. */
export function cartLineDetail(
  priced: PricedLine,
  line: CartLine,
  fileName: string,
  locale: string | undefined,
  thumbnail: string,
): AddToCartDetail {
  return {
    ...priced,
    cart_line_id: line.cart_line_id,
    file_revision: line.file_revision,
    file_name: fileName,
    subtotal: line.subtotal,
    minimum_unit_price: line.minimum_unit_price ?? null,
    minimum_line_adjustment: line.minimum_line_adjustment,
    summary: lineSummary(priced, locale),
    thumbnail,
  };
}

// Every event <slice-quote> fires, with its detail (docs/widget.md, "Events"): one map, so each dispatch is
// checked against its event's detail, and a shop page's addEventListener('sq-quote', …) gets a typed CustomEvent.
import type { Acceptable } from './cart-handoff.ts';
import type { AddToCartDetail, AddToCartLinesDetail, ErrorDetail, EstimateDetail, QuoteDetail } from './types.ts';

export interface SliceQuoteEventDetails {
  'sq-quote': QuoteDetail;
  'sq-estimate': EstimateDetail;
  'sq-error': ErrorDetail;
  /** With `multiple`: `{lines}`, one AddToCartDetail per part added. */
  'sq-add-to-cart': (AddToCartDetail | AddToCartLinesDetail) & Acceptable;
  /** The shopper sent a quote request (docs/widget.md, "Request a quote"). */
  'sq-quote-request': QuoteRequestDetail;
}

/** Detail of `sq-quote-request`: which request, for which upload and why; the contact stays with the shop. */
export interface QuoteRequestDetail {
  request_id: string;
  file_id: string;
  quote_id: string | null;
  reason: 'no_cart' | 'not_priceable' | 'merchant_rule';
}

/** The events a part's flow reports through the element. */
export type PartEvent = 'sq-quote' | 'sq-estimate' | 'sq-error' | 'sq-quote-request';

export type SliceQuoteEvents = { [K in keyof SliceQuoteEventDetails]: CustomEvent<SliceQuoteEventDetails[K]> };

// Whether an add to a cart reached the shop's cart: shared by the Orders page and the quote history.
import type { TemplateResult } from 'lit';
import type { Order } from '../lib/types.ts';
import { badge } from './page-header.ts';

/** "In a cart" when the shop page's cart acknowledged the line; otherwise the shop must contact the shopper. */
export function cartBadge(o: Pick<Order, 'status'>): TemplateResult {
  return o.status === 'acknowledged' ? badge('In a cart', 'ok') : badge('Not in a cart', 'warn');
}

// What <slice-quote> lends the parts of itself that live in files of their own (kept-quotes.ts, part-requests.ts,
// no-cart-request.ts, several-parts.ts): the API client with the shopper's token, the shop's configuration, the page's
// events, renders, focus and the hand-off to the page's cart. An interface, so that none of them imports the element.
import type { WidgetApi } from './api.ts';
import type { PartEvent, SliceQuoteEventDetails } from './events.ts';
import type { AddToCartDetail, WidgetConfig } from './types.ts';

export interface WidgetHost {
  readonly client: WidgetApi | null;
  readonly config: WidgetConfig | null;
  readonly locale: string | undefined;
  /** Something shown changed: render. */
  changed(): void;
  emit<K extends PartEvent>(type: K, detail: SliceQuoteEventDetails[K]): void;
  /** After the next render, focus goes to the element `selector` finds, scrolled into view first with `reveal`. */
  focusAfterRender(selector: string, reveal?: boolean): void;
  /**
   * Hands lines the server recorded to the shop's cart: the page's listener (`sq-add-to-cart` with `detail`), else
   * the `cart-url`; `show` says which the shopper reads, "Added to your cart" (true) or "reserved" (cart-handoff.ts).
   */
  deliver<T extends object>(lines: AddToCartDetail[], detail: T, show: (taken: boolean) => void): Promise<void>;
}

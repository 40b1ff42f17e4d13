// Orders are never lost (docs/widget.md, "Connecting your cart"). The server records every add; the page's cart
// must then take the lines: `sq-add-to-cart` is cancelable and its detail has `accept()`, and the page
// acknowledges the lines by calling either. Acknowledged lines are reported to the server
// (POST /v2/widget/cart/acknowledge); lines no page took stay unacknowledged in the shop's orders, and the
// shopper reads that the shop will contact them rather than a false "Added to your cart". A shop without
// JavaScript names a `cart-url` instead: the signed lines go there as a form POST.
import type { AddToCartDetail } from './types.ts';

/** What the page's listener may call to say its cart took the lines (as well as preventDefault()). */
export interface Acceptable {
  accept(): void;
}

/**
 * Dispatches `sq-add-to-cart` and answers whether the page took the lines during the event; a later
 * `accept()` (after the page's own cart call) runs `onLateAccept`.
 */
export function handOff<T extends object>(target: EventTarget, detail: T, onLateAccept: () => void): boolean {
  let accepted = false;
  let dispatching = true;
  const accept = () => {
    if (accepted) return;
    accepted = true;
    if (!dispatching) onLateAccept();
  };
  const event = new CustomEvent<T & Acceptable>('sq-add-to-cart', {
    detail: { ...detail, accept },
    bubbles: true,
    composed: true,
    cancelable: true,
  });
  target.dispatchEvent(event);
  dispatching = false;
  if (event.defaultPrevented) accepted = true;
  return accepted;
}

/** The fields a `cart-url` receives per line, as `lines[<index>][<field>]`. */
const POSTED: (keyof AddToCartDetail)[] = [
  'cart_line_id',
  'quote_id',
  'file_id',
  'file_name',
  'quantity',
  'unit_price',
  'total_price',
  'currency',
  'summary',
  'expires_at',
];

/** Sends the lines to the shop's cart page as an ordinary form POST (the page navigates there). */
export function postToCartUrl(url: string, lines: AddToCartDetail[]): void {
  const form = document.createElement('form');
  form.method = 'POST';
  form.action = url;
  form.hidden = true;
  const field = (name: string, value: string | number) => {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = String(value);
    form.append(input);
  };
  lines.forEach((line, i) => {
    for (const key of POSTED) field(`lines[${i}][${key}]`, line[key] as string | number);
    field(`lines[${i}][signature_payload]`, line.signature.payload);
    field(`lines[${i}][signature_hmac_sha256]`, line.signature.hmac_sha256);
  });
  document.body.append(form);
  form.submit();
}

// Ordering a kept quote from its link: Add to cart asks the server for the line at the link's quantity
// (POST /v2/kept-quotes/{token}/cart: recorded in the shop's orders, signed, sent to its webhooks like any add) and
// hands it to the page's cart in `sq-add-to-cart`, with the same detail as a part priced here, so a shop's cart
// code takes both alike; without a cart on the page, the same fallback as any add (cart-url, else a quote request;
// a price the shop set by hand on a request already has the shopper's contact: "reserved").
import { html, nothing, type TemplateResult } from 'lit';
import { cartLineDetail } from './cart-line.ts';
import type { KeptHandlers, KeptOrder } from './kept-types.ts';
import { shopperMessage } from './shopper-messages.ts';
import type { AddToCartDetail, CartLine, KeptQuote, PricedLine, WidgetConfig } from './types.ts';

/**
 * Add to cart under a kept quote, or why it cannot be ordered (an expired price), and what became of the add.
 * `toRequest`: no cart took it and the shopper is asked for a quote request (no-cart-request.ts), not yet sent.
 */
export function renderKeptOrder(
  kept: KeptQuote,
  order: KeptOrder | null,
  h: KeptHandlers,
  toRequest = false,
): TemplateResult {
  const expired = kept.quote.expired === true || (order?.status === 'failed' && order.code === 'quote_expired');
  const adding = order?.status === 'adding';
  const name = kept.quote.file_name;
  return html`
    <button type="button" class="primary add" part="button add-button" ?disabled=${expired}
      aria-disabled=${adding ? 'true' : 'false'} aria-describedby=${expired ? 'kept-order-note' : nothing}
      @click=${() => h.order(kept)}>${adding ? 'Adding…' : 'Add to cart'}</button>
    ${
      expired
        ? html`<p class="hint add-note" id="kept-order-note" part="kept-order-note">This price has expired and can no longer be ordered: upload your part again for today's price.</p>`
        : nothing
    }
    ${
      order?.status === 'added'
        ? order.reserved && toRequest
          ? html`<p class="added reserved" part="added reserved" role="status">No cart took your part yet: request a quote above, and the shop will send you a link to order it.</p>`
          : order.reserved
            ? html`<p class="added reserved" part="added reserved" role="status">Your part is reserved — the shop will contact you.</p>`
            : html`<p class="added" part="added" role="status">Added ${order.line.quantity} × ${name} to your cart.</p>`
        : nothing
    }
    ${
      order?.status === 'failed' && order.code !== 'quote_expired'
        ? html`<p class="field-error" part="kept-order-error" role="alert" data-code=${order.code}>${shopperMessage(order.code, order.retryable)}</p>`
        : nothing
    }`;
}

/** The `sq-add-to-cart` detail of a kept quote's line: the same fields as for a part priced on the page. */
export function keptCartDetail(
  kept: KeptQuote,
  line: CartLine,
  config: WidgetConfig | null,
  thumbnail: string,
  locale: string | undefined,
): AddToCartDetail {
  const q = kept.quote;
  const c = line.choices ?? q.choices;
  const quality = config?.qualities.find((x) => x.id === c?.quality);
  const priced: PricedLine = {
    quote_id: line.quote_id,
    file_id: line.file_id,
    material: c?.material ?? '',
    color: c?.color ?? '',
    quality: c?.quality ?? '',
    quality_label: c?.quality_label ?? '',
    layer_height: quality?.layer_height ?? 0,
    fill_density: c?.infill ?? 0,
    quantity: line.quantity,
    unit_price: line.unit_price,
    total_price: line.total_price,
    currency: line.currency,
    estimated_time: q.estimated_time!,
    estimated_time_seconds: q.estimated_time_seconds!,
    filament_weight: q.filament_weight!,
    placement: line.placement ?? q.placement ?? null,
    expires_at: line.expires_at,
    signature: line.signature,
  };
  return cartLineDetail(priced, line, q.file_name, locale, thumbnail);
}

/** The kept quote's picture at 128 × 128, as a cart line's thumbnail; '' without one (or when it cannot be drawn). */
export async function keptThumbnail(picture: string | null): Promise<string> {
  if (!picture) return '';
  try {
    const image = new Image();
    image.src = picture;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 128;
    canvas.getContext('2d')!.drawImage(image, 0, 0, 128, 128);
    return canvas.toDataURL('image/png');
  } catch {
    return '';
  }
}

// What a storefront widget needs: the merchant's offer (materials, colours, qualities, infill, quantities,
// build volume, currency) and add-to-cart, which tells the merchant's webhooks with the authoritative,
// signed quote from the database (docs/widget.md).
import type { Deps, Auth } from '../deps.ts';
import { quoteForCaller } from '../quotes/sql.ts';
import { writeEvent } from '../webhooks/outbox-sql.ts';
import { resolveSettings } from '../quotes/resolve.ts';
import { specResult } from '../quotes/present.ts';
import { effectiveOffer } from '../offer/offer.ts';
import { priceLine, quantityProblem } from '../../shared/offer.ts';
import { currencyDigits } from '../../shared/pricing.ts';
import { ApiError, ValidationError, notFound } from '../http/errors.ts';

export async function widgetConfig(deps: Deps, auth: Auth) {
  const base = await resolveSettings(deps.db, auth.account.id, {});
  const { offer } = await effectiveOffer(deps.db, auth.account.id, auth.widgetKeyId);
  const p = base.settings.printer;
  return {
    shop_name: auth.account.shop_name ?? 'Print shop',
    currency: base.settings.quote.currency,
    max_upload_bytes: deps.config.maxUploadBytes,
    build_volume: { x: p.bed_size_x, y: p.bed_size_y, z: p.bed_size_z },
    materials: offer.materials.map((m) => ({ name: m.material, colors: m.colors })),
    default_material: offer.default_material,
    qualities: offer.qualities.map((q) => ({
      id: q.id,
      label: q.label,
      layer_height: q.printer_config.layer_height ?? p.layer_height,
    })),
    default_quality: offer.default_quality,
    infill_options: offer.infill_options,
    default_infill: offer.default_infill,
    quantity: offer.quantity,
    minimum_price: offer.minimum_price ?? (base.settings.quote.minimum_price || null),
    minimum_line_price: offer.minimum_line_price,
    lead_time: offer.lead_time,
  };
}

export async function addToCart(deps: Deps, auth: Auth, quoteId: string, quantity: number, origin: string | null) {
  const quote = await quoteForCaller(deps.db, auth, quoteId);
  if (!quote) throw notFound('quote', quoteId);
  if (quote.status !== 'completed')
    throw new ApiError(409, 'quote_not_completed', 'Only a completed quote can be added to the cart.', {
      status: quote.status,
    });
  if (quote.expires_at && quote.expires_at <= deps.now()) {
    throw new ApiError(410, 'quote_expired', 'This quote has expired; quote the part again for a current price.', {
      expired_at: quote.expires_at.toISOString(),
    });
  }
  const { offer } = await effectiveOffer(deps.db, auth.account.id, auth.widgetKeyId);
  const problem = quantityProblem(offer, quantity);
  if (problem) throw new ValidationError([{ field: 'quantity', message: problem }]);
  const unit = quote.total_price!;
  const currency = quote.currency!;
  const price = priceLine(unit, quantity, offer.minimum_line_price, currencyDigits(currency));
  const result = quote.result!;
  const line = {
    quote_id: quote.id,
    quantity,
    unit_price: unit,
    subtotal: price.subtotal,
    minimum_line_adjustment: price.minimum_line_adjustment,
    total_price: price.total,
    currency,
    choices: quote.choices,
    expires_at: result.expires_at,
    signature: result.signature,
  };
  await writeEvent(deps.db, {
    account_id: quote.account_id,
    token_id: null,
    event: 'widget.added_to_cart',
    data: {
      quoteId: quote.id,
      fileId: quote.file_id,
      fileName: quote.file_name,
      quantity,
      unitPrice: unit,
      subtotal: price.subtotal,
      minimumLineAdjustment: price.minimum_line_adjustment,
      totalPrice: price.total,
      currency,
      material: quote.material,
      color: quote.color,
      choices: quote.choices,
      expiresAt: result.expires_at,
      signature: result.signature,
      widgetKeyId: auth.widgetKeyId,
      origin,
      quote: specResult(quote),
    },
  });
  deps.events.wake();
  return line;
}

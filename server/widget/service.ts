// What a storefront widget needs: the merchant's offer (materials, colours, qualities, infill, quantities,
// build volume, currency) and add-to-cart, which tells the merchant's webhooks with the authoritative,
// signed quote from the database (docs/widget.md).
import type { Deps, Auth } from '../deps.ts';
import { quoteForCaller } from '../quotes/sql.ts';
import { writeEvent, type OutboxEvent } from '../webhooks/outbox-sql.ts';
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

export interface CartRequestLine {
  quote_id: string;
  quantity: number;
}

/** POST /v2/widget/cart {quote_id, quantity}: one cart line. */
export async function addToCart(deps: Deps, auth: Auth, quoteId: string, quantity: number, origin: string | null) {
  const [line] = await addLinesToCart(deps, auth, [{ quote_id: quoteId, quantity }], origin, false);
  return line!;
}

/**
 * POST /v2/widget/cart {lines}: every line is checked before any is recorded, and all are recorded in one
 * transaction, so a cart is never half added. A refused line's error names it in `details.line`.
 */
export async function addCartLines(deps: Deps, auth: Auth, lines: CartRequestLine[], origin: string | null) {
  const seen = new Map<string, number>();
  lines.forEach((l, i) => {
    const first = seen.get(l.quote_id);
    if (first !== undefined) {
      throw new ApiError(
        400,
        'validation_failed',
        `lines.${i}.quote_id: the quote is already line ${first}; one line per quote, with its whole quantity.`,
        { fields: [{ field: `lines.${i}.quote_id`, message: `repeats line ${first}` }], line: i },
      );
    }
    seen.set(l.quote_id, i);
  });
  return addLinesToCart(deps, auth, lines, origin, true);
}

async function addLinesToCart(deps: Deps, auth: Auth, lines: CartRequestLine[], origin: string | null, batch: boolean) {
  const { offer } = await effectiveOffer(deps.db, auth.account.id, auth.widgetKeyId);
  const checked: CheckedLine[] = [];
  for (const [i, l] of lines.entries()) {
    try {
      checked.push(await checkedLine(deps, auth, offer, l, origin));
    } catch (e) {
      throw batch && e instanceof ApiError ? naming(e, i) : e;
    }
  }
  await deps.db.transaction(async (tx) => {
    for (const { event } of checked) await writeEvent(tx, event);
  });
  deps.events.wake();
  return checked.map((c) => c.line);
}

/** The same error about line i of a batch: its index in `details.line`, its fields as `lines.i.field`. */
function naming(e: ApiError, i: number): ApiError {
  const fields = e.details?.fields as { field: string; message: string }[] | undefined;
  const details = {
    ...e.details,
    line: i,
    ...(fields ? { fields: fields.map((f) => ({ ...f, field: `lines.${i}.${f.field}` })) } : {}),
  };
  const message = fields ? `lines.${i}.${e.message}` : `Line ${i}: ${e.message}`;
  return new ApiError(e.status, e.code, message, details, e.headers);
}

type Offer = Awaited<ReturnType<typeof effectiveOffer>>['offer'];

/** One line checked and priced, with the widget.added_to_cart event to record for it. */
interface CheckedLine {
  line: Record<string, unknown>;
  event: OutboxEvent;
}

async function checkedLine(
  deps: Deps,
  auth: Auth,
  offer: Offer,
  { quote_id: quoteId, quantity }: CartRequestLine,
  origin: string | null,
): Promise<CheckedLine> {
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
  const event = {
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
  };
  return { line, event };
}

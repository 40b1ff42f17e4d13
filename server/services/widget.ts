// What a storefront widget needs: the merchant's offer (materials, colours, build volume, currency)
// and add-to-cart, which tells the merchant's webhooks with the authoritative quote from the database.
import type { Deps, Auth } from '../deps.ts';
import { listProfiles } from '../db/queries/profiles.ts';
import { quoteForCaller } from '../db/queries/quotes.ts';
import { writeEvent } from '../db/queries/outbox.ts';
import { resolveSettings } from '../quotes/resolve.ts';
import { specResult } from '../quotes/present.ts';
import { currencyDigits } from '../../shared/pricing.ts';
import { ApiError, notFound } from '../errors.ts';

const LAYER_HEIGHTS = [0.1, 0.15, 0.2, 0.25, 0.3];
const INFILL_OPTIONS = [10, 15, 20, 30, 50, 100];

export async function widgetConfig(deps: Deps, auth: Auth) {
  const defaults = await resolveSettings(deps.db, auth.account.id, {});
  const p = defaults.settings.printer;
  const seen = new Set<string>();
  const materials = [];
  for (const row of await listProfiles(deps.db, auth.account.id, 'material')) {
    if (seen.has(row.name.toLowerCase())) continue; // the account's own profile hides a global one of that name
    seen.add(row.name.toLowerCase());
    const s = row.settings as Record<string, any>;
    const colors: string[] = s.colors ?? (s.color ? [s.color] : []);
    materials.push({ name: row.name, colors, density: s.density ?? null, price_per_kg: s.price_per_kg ?? (s.price_per_gram !== undefined ? s.price_per_gram * 1000 : null) });
  }
  return {
    shop_name: auth.account.shop_name ?? 'Print shop',
    currency: defaults.settings.quote.currency,
    max_upload_bytes: deps.config.maxUploadBytes,
    build_volume: { x: p.bed_size_x, y: p.bed_size_y, z: p.bed_size_z },
    default_material: defaults.material.name,
    materials,
    layer_heights: LAYER_HEIGHTS.filter((h) => h >= p.min_layer_height && h <= p.max_layer_height && h <= p.nozzle_diameter),
    default_layer_height: p.layer_height,
    infill_options: INFILL_OPTIONS,
    default_infill: p.fill_density,
  };
}

export async function addToCart(deps: Deps, auth: Auth, quoteId: string, quantity: number, origin: string | null) {
  const quote = await quoteForCaller(deps.db, auth, quoteId);
  if (!quote) throw notFound('quote', quoteId);
  if (quote.status !== 'completed') throw new ApiError(409, 'quote_not_completed', 'Only a completed quote can be added to the cart.', { status: quote.status });
  const unit = quote.total_price!;
  const digits = currencyDigits(quote.currency!);
  const total = Math.round(unit * quantity * 10 ** digits) / 10 ** digits;
  const line = { quote_id: quote.id, quantity, unit_price: unit, total_price: total, currency: quote.currency! };
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
      totalPrice: total,
      currency: quote.currency,
      material: quote.material,
      color: quote.color,
      widgetKeyId: auth.widgetKeyId,
      origin,
      quote: specResult(quote),
    },
  });
  deps.events.wake();
  return line;
}

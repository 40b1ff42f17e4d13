// The merchant's offer in the dashboard (docs/offer.md): the account's at /v2/offer, a widget key's own at
// /dashboard/api/widget-keys/{id}/offer. Both answer the offer in effect with its source.

import type { components } from '../../../shared/api/schema.ts';
import { configMaterials, type Offer } from '../../../shared/offer.ts';
import type { WidgetConfig } from '../../../widget/src/types.ts';
import { api, call, csrfHeader } from './api.ts';

export type { Offer };
export type OfferSource = 'widget_key' | 'account' | 'default';
export type OfferView = Offer & { source: OfferSource };

/** The contract's offer as shared/offer.ts types it: the server answers it normalised (every list present). */
const asView = (offer: components['schemas']['Offer']) => offer as OfferView;

/** Whose offer an editor changes: the account's, or one widget key's own. */
export type OfferTarget = { kind: 'account' } | { kind: 'key'; id: string; name: string };

export type OfferInput = components['schemas']['OfferInput'];

const KEY_OFFER = '/dashboard/api/widget-keys/{widget_key_id}/offer';
const keyPath = (id: string) => ({ params: { path: { widget_key_id: id }, header: csrfHeader() } });

export const loadOffer = async (target: OfferTarget) =>
  asView(await call(target.kind === 'account' ? api.GET('/v2/offer') : api.GET(KEY_OFFER, keyPath(target.id))));
export const saveOffer = async (target: OfferTarget, body: OfferInput) =>
  asView(
    await call(
      target.kind === 'account' ? api.PUT('/v2/offer', { body }) : api.PUT(KEY_OFFER, { ...keyPath(target.id), body }),
    ),
  );
/** Back to the offer underneath: the account's for a key, the default derived from the profiles for the account. */
export const removeOffer = async (target: OfferTarget) =>
  asView(await call(target.kind === 'account' ? api.DELETE('/v2/offer') : api.DELETE(KEY_OFFER, keyPath(target.id))));

/** Every material a shopper can choose: the account offer's and each widget key's own, sorted by name. */
export async function offeredMaterials(): Promise<string[]> {
  const keys = await call(api.GET('/dashboard/api/widget-keys'));
  const offers = await Promise.all([
    loadOffer({ kind: 'account' }),
    ...keys.data.map((k) => loadOffer({ kind: 'key', id: k.widget_key_id, name: k.name })),
  ]);
  return [...new Set(offers.flatMap((o) => o.materials.map((m) => m.material)))].sort();
}

/** The shop as the widget sees it (currency, build volume, shop name), read with the dashboard session. */
export const loadWidgetConfig = () => call(api.GET('/v2/widget/config'));

/**
 * What GET /v2/widget/config would answer with this offer: the shop's own fields from the server, the
 * shopper's options from the (unsaved) offer, as server/widget/config.ts builds them.
 */
export function widgetConfigFor(
  shop: WidgetConfig,
  offer: Offer,
  layerHeightOf: (q: Offer['qualities'][number]) => number,
): WidgetConfig {
  return {
    ...shop,
    materials: configMaterials(offer),
    default_material: offer.default_material,
    qualities: offer.qualities.map((q) => ({
      id: q.id,
      label: q.label,
      layer_height: layerHeightOf(q),
      // The preview prices nothing: it measures no estimate of its own.
      slice_settings: null,
    })),
    default_quality: offer.default_quality,
    infill_options: [...offer.infill_options].sort((a, b) => a - b),
    default_infill: offer.default_infill,
    quantity: offer.quantity,
    minimum_price: offer.minimum_price,
    minimum_line_price: offer.minimum_line_price,
    lead_time: offer.lead_time,
    quantity_breaks: offer.quantity_breaks ?? [],
    lead_times: (offer.lead_times ?? []).map((o) => ({
      ...o,
      surcharge_percent: o.surcharge_percent ?? 0,
      surcharge_amount: o.surcharge_amount ?? 0,
    })),
    default_lead_time: offer.default_lead_time ?? null,
  };
}

export const SOURCE_TEXT: Record<OfferSource, string> = {
  account: 'Your offer',
  default: 'Default offer, derived from your profiles',
  widget_key: 'This key’s own offer',
};

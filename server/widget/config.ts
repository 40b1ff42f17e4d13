// GET /v2/widget/config: what a storefront's widget shows and measures with (the offer's materials, qualities,
// infill and terms, the build volume, the settings each choice slices with). Every page that shows the widget asks for
// it, and anyone holding the shop's public key may: building it resolves the settings of the page, of each material and
// of each quality, milliseconds of CPU. The answer depends on the account's offer, the key's offer and the profiles
// only, so each process keeps the last answer built for each key while the fingerprint of those inputs
// (offerInputsFingerprint) reads the same, as the offer itself is kept (keptWhileUnchanged: one statement per call).
import { configMaterials, type Offer, type QualityPreset } from '../../shared/offer.ts';
import type { Auth } from '../accounts/access/index.ts';
import { keptWhileUnchanged, type Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { ApiError } from '../http/index.ts';
import { effectiveOffer, offerInputsFingerprint } from '../offer/index.ts';
import { resolveSettings } from '../profiles/index.ts';
import { sliceSettingsOf } from './instant-estimate.ts';

/** Past this many keys' answers, the memory starts afresh: it stays bounded however many shops a process serves. */
const KEPT_ANSWERS = 1000;

/** The configuration, from the answers this process keeps: one per router (server/widget/router.ts). */
export function widgetConfigs(deps: Pick<Deps, 'config' | 'db'>) {
  const kept = keptWhileUnchanged<Awaited<ReturnType<typeof buildConfig>>>(KEPT_ANSWERS);
  return async function widgetConfig(auth: Auth) {
    const accountId = auth.account.id;
    const { currency, ...rest } = await kept.answer(
      deps.db,
      `${accountId} ${auth.widgetKeyId ?? ''}`,
      (q) => offerInputsFingerprint(q, accountId, auth.widgetKeyId),
      (q) => buildConfig(q, auth),
    );
    // The shop's name comes with its account (refreshed on any change to it), the upload limit with the process.
    return {
      shop_name: auth.account.shop_name ?? 'Print shop',
      currency,
      max_upload_bytes: deps.config.maxUploadBytes,
      ...rest,
    };
  };
}

async function buildConfig(db: Queryable, auth: Auth) {
  const accountId = auth.account.id;
  const base = await resolveSettings(db, accountId, {});
  const { offer } = await effectiveOffer(db, accountId, auth.widgetKeyId);
  const p = base.settings.printer;
  return {
    currency: base.settings.quote.currency,
    build_volume: { x: p.bed_size_x, y: p.bed_size_y, z: p.bed_size_z },
    materials: configMaterials(offer),
    default_material: offer.default_material,
    qualities: await Promise.all(
      offer.qualities.map(async (q) => ({
        id: q.id,
        label: q.label,
        layer_height: q.printer_config.layer_height ?? (await profileLayerHeight(db, accountId, q)) ?? p.layer_height,
        // The widget measures a changed choice's estimate with these (docs/instant-price.md), infill set by itself.
        slice_settings: await sliceSettingsOf(db, accountId, offer, { quality: q.id }),
      })),
    ),
    default_quality: offer.default_quality,
    infill_options: offer.infill_options,
    default_infill: offer.default_infill,
    quantity: offer.quantity,
    minimum_price: offer.minimum_price ?? (base.settings.quote.minimum_price || null),
    minimum_line_price: offer.minimum_line_price,
    lead_time: offer.lead_time,
    quantity_breaks: offer.quantity_breaks,
    lead_times: offer.lead_times,
    default_lead_time: offer.default_lead_time,
    slice_settings: await sliceSettingsOf(db, accountId, offer),
    request_quote_above: requestQuoteAbove(offer),
  };
}

function requestQuoteAbove(offer: Offer) {
  const above = offer.request_quote_above;
  return above ? { hours: above.hours ?? null, amount: above.amount ?? null } : null;
}

/** The layer height of the printer profile a quality slices with (an imported print preset); null: none. */
async function profileLayerHeight(db: Queryable, accountId: string, q: QualityPreset): Promise<number | null> {
  if (!q.printer_profile) return null;
  return resolveSettings(db, accountId, {}, { printer_profile: q.printer_profile }).then(
    (r) => r.settings.printer.layer_height,
    // Deleted since the offer was read: the quote names the problem; the configuration still answers.
    (err) => {
      if (err instanceof ApiError) return null;
      throw err;
    },
  );
}

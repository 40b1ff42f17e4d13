// The first price a shopper sees, before their upload has arrived (docs/instant-price.md): the widget's worker
// measures the estimator's features on the mesh it has already parsed, with the slice settings the widget
// configuration publishes, and sends those few numbers (never the mesh). The merchant's calibration and cost model
// stay here: the features are priced with the same formula as an estimate on a quote. An estimate is never a
// price: it has no quote id, so no cart takes it, and no webhook carries it; the quote re-derives everything from
// the file once it has arrived.
import type { Deps } from '../deps.ts';
import type { Auth } from '../accounts/index.ts';
import { SETTINGS } from '../../shared/settings.ts';
import { EstimateError, predict, type Features } from '../../shared/estimate/index.ts';
import { PriceOutOfRangeError } from '../../shared/pricing.ts';
import type { Offer, OfferChoices } from '../../shared/offer.ts';
import { checkChoices, choicesLayer, effectiveOffer } from '../offer/index.ts';
import { resolveSettings } from '../profiles/index.ts';
import { printerLabel, scopeOf, presentEstimate, type PresentedEstimate } from '../quotes/index.ts';
import { ApiError, ValidationError } from '../http/index.ts';
import { estimateSettingsOf, type SliceSettings } from '../slicer/index.ts';

/** The printer settings that change a slice: what the browser's estimator may read. Prices never leave. */
const SLICE_FIELDS = SETTINGS.filter(
  (d) => d.section === 'printer_config' && (d.affects === 'slice' || d.affects === 'support'),
).map((d) => d.name);

/**
 * The slice settings of the offer's default choices as the widget configuration publishes them: the printer
 * fields that change a slice, and the material's density and diameter. Not the cost model (hourly cost, power,
 * material prices, fees, taxes): those stay on the server.
 */
export function publishedSliceSettings(settings: SliceSettings) {
  const printer = settings.printer as unknown as Record<string, unknown>;
  const { motion } = estimateSettingsOf(settings);
  return {
    printer: Object.fromEntries(SLICE_FIELDS.map((name) => [name, printer[name]])),
    material: { density: settings.material.density, diameter: settings.material.diameter },
    // A shop's own config: its speeds per feature, which the browser's estimate must follow as the server's does.
    ...(motion ? { motion } : {}),
  };
}

/**
 * What the offer's choices slice with (the defaults for those not given), for GET /v2/widget/config; null when
 * they cannot be resolved (a default material without a profile, a quality's printer profile deleted since): the
 * widget then shows no estimate of its own for them, and the quote says why.
 */
export async function sliceSettingsOf(deps: Deps, auth: Auth, offer: Offer, choices: OfferChoices = {}) {
  try {
    const layer = choicesLayer(offer, checkChoices(offer, choices));
    return publishedSliceSettings((await resolveSettings(deps.db, auth.account.id, {}, layer)).settings);
  } catch (err) {
    if (err instanceof ApiError) return null;
    throw err;
  }
}

const refused = (message: string) => new ValidationError([{ field: 'features', message }], 422);

/** An estimate whose figures are not finite non-negative numbers came from features no mesh has. */
function checkFigures(e: PresentedEstimate): PresentedEstimate {
  const figures = [e.total_price, ...e.price_range, e.filament_weight, ...e.weight_range, ...e.time_range];
  if (!figures.every((x) => Number.isFinite(x) && x >= 0))
    throw refused('do not describe a printable part; measure them again with the published settings');
  return e;
}

/**
 * POST /v2/widget/estimate: features priced with the merchant's calibration and cost model, for the shopper's
 * choices (the offer's defaults when none are sent). Features measured with other settings are a 422 naming
 * `features`, as are numbers that price to nothing sensible.
 */
export async function estimateFromFeatures(
  deps: Deps,
  auth: Auth,
  body: { features: Features; choices?: OfferChoices },
) {
  const { offer } = await effectiveOffer(deps.db, auth.account.id, auth.widgetKeyId);
  const choices = checkChoices(offer, body.choices);
  const resolution = await resolveSettings(deps.db, auth.account.id, {}, choicesLayer(offer, choices));
  const scope = scopeOf(printerLabel(resolution.settings.printer), resolution.material.id);
  const { calibration, source } = await deps.estimator.calibrationFor(auth.account.id, scope, resolution.settings);
  try {
    const estimate = predict(body.features, resolution.settings, calibration);
    return { estimate: checkFigures(presentEstimate(estimate, body.features, resolution, source)), choices };
  } catch (err) {
    if (err instanceof EstimateError) throw refused(err.message);
    if (err instanceof PriceOutOfRangeError)
      throw refused('price out of the range a quote can have; measure them again');
    // The settings and the calibration are the server's own: what cannot be read here are the features (a section
    // that is null or not a record).
    if (err instanceof TypeError) throw refused("are not the estimator's features; measure them again");
    throw err;
  }
}

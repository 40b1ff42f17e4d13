// The first price a shopper sees, before their upload has arrived (docs/instant-price.md): the widget's worker
// measures the estimator's features on the mesh it has already parsed, with the slice settings the widget
// configuration publishes, and sends those few numbers (never the mesh). The merchant's calibration and cost model
// stay here: the features are priced with the same formula as an estimate on a quote. An estimate is never a
// price: it has no quote id, so no cart takes it, and no webhook carries it; the quote re-derives everything from
// the file once it has arrived.

import {
  type CoarseFeatures,
  DEFAULT_COARSE_CALIBRATION,
  type Estimate,
  EstimateError,
  type Features,
  predict,
  predictCoarse,
  withUnmeasuredRanges,
} from '../../shared/estimate/index.ts';
import type { Offer, OfferChoices } from '../../shared/offer.ts';
import { PriceOutOfRangeError } from '../../shared/pricing.ts';
import { SETTINGS } from '../../shared/settings.ts';
import type { Auth } from '../accounts/access/index.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { ApiError, ValidationError } from '../http/index.ts';
import { checkChoices, choicesLayer, effectiveOffer } from '../offer/index.ts';
import { resolveSettings } from '../profiles/index.ts';
import { type PresentedEstimate, presentEstimate, printerLabel, scopeOf } from '../quotes/index.ts';
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
export async function sliceSettingsOf(db: Queryable, accountId: string, offer: Offer, choices: OfferChoices = {}) {
  try {
    const layer = choicesLayer(offer, checkChoices(offer, choices));
    return publishedSliceSettings((await resolveSettings(db, accountId, {}, layer)).settings);
  } catch (err) {
    if (err instanceof ApiError) return null;
    throw err;
  }
}

/** Which feature set a request sent: the fine stage's (`features`) or the coarse stage's (`coarse_features`). */
type Stage = 'features' | 'coarse_features';

const refused = (field: Stage, message: string) => new ValidationError([{ field, message }], 422);

/** An estimate whose figures are not finite non-negative numbers came from features no mesh has. */
function checkFigures(e: PresentedEstimate, field: Stage): PresentedEstimate {
  const figures = [e.total_price, ...e.price_range, e.filament_weight, ...e.weight_range, ...e.time_range];
  if (!figures.every((x) => Number.isFinite(x) && x >= 0))
    throw refused(field, 'do not describe a printable part; measure them again with the published settings');
  return e;
}

/** The one feature set sent: 400 naming the field when there are none or both. */
function stageOf(body: { features?: unknown; coarse_features?: unknown }): Stage {
  const fine = body.features !== undefined;
  const coarse = body.coarse_features !== undefined;
  if (fine === coarse) {
    const field = fine ? 'coarse_features' : 'features';
    throw new ValidationError([{ field, message: 'send either features or coarse_features, exactly one of them' }]);
  }
  return fine ? 'features' : 'coarse_features';
}

/**
 * POST /v2/widget/estimate: features priced with the merchant's calibration and cost model, for the shopper's
 * choices (the offer's defaults when none are sent). `coarse_features` (the coarse stage, the first figure) are
 * priced with the shipped coarse calibration: accounts refine the fine one only. Features measured with other
 * settings are a 422 naming the field, as are numbers that price to nothing sensible.
 */
export async function estimateFromFeatures(
  deps: Pick<Deps, 'db' | 'estimator'>,
  auth: Auth,
  body: { features?: Features; coarse_features?: CoarseFeatures; choices?: OfferChoices },
) {
  const field = stageOf(body);
  const { offer } = await effectiveOffer(deps.db, auth.account.id, auth.widgetKeyId);
  const choices = checkChoices(offer, body.choices);
  const resolution = await resolveSettings(deps.db, auth.account.id, {}, choicesLayer(offer, choices));
  try {
    const { estimate, measured, source } =
      field === 'features'
        ? await fineEstimate(deps, auth, body.features!, resolution)
        : coarseEstimate(body.coarse_features!, resolution);
    return { estimate: checkFigures(presentEstimate(estimate, measured, resolution, source), field), choices };
  } catch (err) {
    if (err instanceof EstimateError) throw refused(field, err.message);
    if (err instanceof PriceOutOfRangeError)
      throw refused(field, 'price out of the range a quote can have; measure them again');
    // The settings and the calibration are the server's own: what cannot be read here are the features (a section
    // that is null or not a record).
    if (err instanceof TypeError) throw refused(field, "are not the estimator's features; measure them again");
    throw err;
  }
}

type Resolution = Awaited<ReturnType<typeof resolveSettings>>;
interface Made {
  estimate: Estimate;
  /** What presentEstimate reads of the features: the layer count and height of the slice it prices. */
  measured: Features;
  source: PresentedEstimate['calibration'];
}

/** The fine stage: the account's calibration for the printer and material (its own slices, or the shipped one). */
async function fineEstimate(
  deps: Pick<Deps, 'estimator'>,
  auth: Auth,
  features: Features,
  resolution: Resolution,
): Promise<Made> {
  const scope = scopeOf(printerLabel(resolution.settings.printer), resolution.material.id);
  const { calibration, source } = await deps.estimator.calibrationFor(auth.account.id, scope, resolution.settings);
  return { estimate: predict(features, resolution.settings, calibration), measured: features, source };
}

/** The coarse stage: the shipped coarse calibration (accounts refine the fine calibration only). */
function coarseEstimate(features: CoarseFeatures, resolution: Resolution): Made {
  // A shop's own config: the coarse residuals were measured on the service's own config only (as the fine ones).
  const calibration = resolution.settings.imported
    ? withUnmeasuredRanges(DEFAULT_COARSE_CALIBRATION)
    : DEFAULT_COARSE_CALIBRATION;
  const estimate = predictCoarse(features, resolution.settings, calibration);
  // predictCoarse has checked the features: their layers and height are numbers, all presentEstimate reads.
  const measured = { layers: features.layers, height_mm: features.height_mm } as Features;
  return { estimate, measured, source: 'shipped' };
}

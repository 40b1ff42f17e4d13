// Creating quotes. A quote whose slice is cached is finished inline (finish.ts); any other quote becomes a job row
// that a worker claims (see job-runner.ts), for sync and async requests alike.

import { DEFAULT_MAX_SLICE_SECONDS, type OfferChoices } from '../../shared/offer.ts';
import { canonicalSection, type SettingSection, validateConfigSection } from '../../shared/settings.ts';
import type { Auth } from '../accounts/access/index.ts';
import type { Deps } from '../deps.ts';
import type { FileRow } from '../files/index.ts';
import { fileForCaller } from '../files/index.ts';
import { ApiError, type FieldProblem, ValidationError } from '../http/index.ts';
import { newId } from '../ids.ts';
import { checkChoices, choicesLayer, effectiveOffer } from '../offer/index.ts';
import { writeEvent } from '../outbox/index.ts';
import type { QuoteRequest } from '../profiles/index.ts';
import { admitQuote, admitSlice } from './admit.ts';
import { type EstimatePorts, estimateQuote } from './estimate.ts';
import { failJob, finishQuote, jobStatusChanged } from './finish.ts';
import type { PresentedEstimate } from './model.ts';
import { multiMaterialRefusal } from './multi-material.ts';
import { planCost, planSlice, slicerVersionOf } from './plan.ts';
import { failedEventData } from './present.ts';
import { printerLabel } from './printer-label.ts';
import { refuseOverLimit } from './slice-cost.ts';
import {
  failQuote,
  insertQuote,
  type JobError,
  type NewQuote,
  PRIORITY,
  type QuoteRow,
  sliceByKey,
  supersedeShopperQuotes,
} from './sql.ts';
import { qualitiesWithinLimit } from './within-limit.ts';

const SECTIONS: SettingSection[] = ['printer_config', 'material_config', 'quote_config'];

export interface ParsedQuoteRequest {
  request: QuoteRequest;
  /** The shopper's choices from the offer, when the body sent `choices`. */
  choices?: OfferChoices;
}

/**
 * A token or session caller may send settings, choices from the offer, or both (settings win). A widget key
 * sends only choices: prices, fees, currency and slicer settings belong to the merchant (docs/offer.md).
 */
export function validateQuoteRequest(body: unknown, widget: boolean): ParsedQuoteRequest {
  if (body === undefined || body === null) return { request: {} };
  if (typeof body !== 'object' || Array.isArray(body))
    throw new ValidationError([{ field: 'body', message: 'must be a JSON object' }]);
  const problems: FieldProblem[] = [];
  const { choices, ...rest } = body as Record<string, unknown>;
  for (const [key, value] of Object.entries(rest)) {
    if (widget) {
      problems.push({
        field: key,
        message:
          'cannot be sent with a widget key: the shop sets prices and settings; send only choices from its offer',
      });
    } else if (key === 'color') {
      if (typeof value !== 'string' || !value.trim() || value.length > 40)
        problems.push({ field: 'color', message: 'must be a colour name of 1 to 40 characters' });
    } else if (SECTIONS.includes(key as SettingSection)) {
      problems.push(...validateConfigSection(key as SettingSection, value));
    } else {
      problems.push({
        field: key,
        message: 'is not a known field (expected choices, printer_config, material_config, quote_config, color)',
      });
    }
  }
  if (problems.length) throw new ValidationError(problems);
  const request = Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [
      key,
      SECTIONS.includes(key as SettingSection) ? canonicalSection(key as SettingSection, value) : value,
    ]),
  );
  return { request: request as QuoteRequest, ...(choices !== undefined ? { choices: choices as OfferChoices } : {}) };
}

/** The offer layer of a request that made choices (always for a widget key), with the choices filled in. */
async function offerChoices(deps: Pick<Deps, 'db'>, auth: Auth, parsed: ParsedQuoteRequest) {
  if (parsed.choices === undefined && auth.via !== 'widget')
    return { layer: undefined, choices: null, maxSliceSeconds: null, offer: null };
  const { offer } = await effectiveOffer(deps.db, auth.account.id, auth.widgetKeyId);
  const choices = checkChoices(offer, parsed.choices);
  // Only a shop's shopper is bound by the offer's slicer budget per part; the merchant's own API is not.
  const maxSliceSeconds = auth.via === 'widget' ? (offer.max_slice_seconds ?? DEFAULT_MAX_SLICE_SECONDS) : null;
  return { layer: choicesLayer(offer, choices), choices, maxSliceSeconds, offer };
}

/** A quote of a file: its quota and budgets (plans, clock), the slice cache or a job, the events it writes. */
type QuoteFilePorts = Pick<Deps, 'config' | 'db' | 'plans' | 'now' | 'metrics' | 'jobs' | 'events'>;
/** Creating a quote also makes the instant estimate of one that waits for its slice. */
export type QuotePorts = QuoteFilePorts & EstimatePorts;

/**
 * Quotes a file the caller may see. A well-formed request for that file that cannot be quoted (422: unknown
 * material, conflicting settings, no price, currency, price range, build volume) is a failed quote: in
 * history with its error, with quote.failed, and its id in the error's details. Refusals of the request
 * rather than the quote are not recorded: a malformed body or fields the caller may not send (400), rate
 * limits, an exhausted allowance, a full queue, no slicer (docs/webhooks.md).
 */
export async function createQuote(
  deps: QuotePorts,
  auth: Auth,
  fileId: string,
  body: unknown,
  mode: 'sync' | 'async',
): Promise<CreatedQuote> {
  const file = await fileForCaller(deps, auth, fileId);
  try {
    const row = await quoteFile(deps, auth, file, body, mode);
    // A quote that waits for its slice gets an instant estimate, made while the slicer works (docs/estimate.md).
    const estimate = row.status === 'queued' ? estimateQuote(deps, row) : Promise.resolve(null);
    return { row, estimate };
  } catch (err) {
    if (!isQuoteRefusal(err)) throw err;
    throw await recordRefusal(deps, auth, file, body, mode, err);
  }
}

export interface CreatedQuote {
  row: QuoteRow;
  /** The estimate being made for a queued quote (null: none, e.g. answered from the cache). */
  estimate: Promise<PresentedEstimate | null>;
}

const isQuoteRefusal = (err: unknown): err is ApiError => err instanceof ApiError && err.status === 422;

/** The one insert builder: what every new quote takes from its caller and file, and the rest as given. */
function newQuote(auth: Auth, file: FileRow, mode: 'sync' | 'async', rest: QuoteRequestColumns): NewQuote {
  return {
    id: newId(mode === 'async' ? 'job' : 'qt'),
    account_id: auth.account.id,
    token_id: auth.tokenId,
    file_id: file.id,
    file_name: file.name,
    mode,
    widget_key_id: auth.widgetKeyId,
    shopper_hash: auth.shopperHash ?? null,
    priority: auth.via === 'widget' ? PRIORITY.shopper : PRIORITY.merchant,
    caller: auth.caller,
    ...rest,
  };
}

type QuoteRequestColumns = Omit<
  NewQuote,
  | 'id'
  | 'account_id'
  | 'token_id'
  | 'file_id'
  | 'file_name'
  | 'mode'
  | 'widget_key_id'
  | 'shopper_hash'
  | 'priority'
  | 'caller'
>;

/** Records a refused quote as failed (never sliced, not counted) and answers its error with the quote id. */
async function recordRefusal(
  deps: Pick<Deps, 'db' | 'now' | 'events'>,
  auth: Auth,
  file: FileRow,
  body: unknown,
  mode: 'sync' | 'async',
  err: ApiError,
): Promise<ApiError> {
  const error: JobError = {
    code: err.code,
    message: err.message,
    status: err.status,
    ...(err.details ? { details: err.details } : {}),
  };
  const requested =
    body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const failed = await deps.db.transaction(async (tx) => {
    const quote = await insertQuote(
      tx,
      newQuote(auth, file, mode, {
        status: 'processing',
        request: requested,
        resolved: null,
        slicing_key: null,
        material: null,
        color: null,
        printer: null,
        choices: null,
        predicted_s: null,
      }),
    );
    // Answered with the error at once: there is no job to follow, so quote.failed only.
    const row = await failQuote(tx, quote.id, null, error);
    if (!row) throw new Error(`quote ${quote.id}, inserted as processing, could not be failed`);
    await writeEvent(tx, {
      account_id: row.account_id,
      token_id: row.token_id,
      event: 'quote.failed',
      data: failedEventData(row),
      at: deps.now(),
    });
    return row;
  });
  deps.events.wake();
  return new ApiError(err.status, err.code, err.message, { ...err.details, quote_id: failed.id }, err.headers);
}

async function quoteFile(
  deps: QuoteFilePorts,
  auth: Auth,
  file: FileRow,
  body: unknown,
  mode: 'sync' | 'async',
): Promise<QuoteRow> {
  const parsed = validateQuoteRequest(body, auth.via === 'widget');
  const { layer, choices, maxSliceSeconds, offer } = await offerChoices(deps, auth, parsed);
  await admitQuote(deps, auth, file);
  // A model that fits the printer in no orientation is recorded as a failed quote here and never sliced.
  const version = await slicerVersionOf(deps);
  const plan = await planSlice(deps, file, parsed.request, layer, version);
  const { resolution, key } = plan;
  // A multi-colour part is not sliced for a shopper: its one-filament price would be wrong (multi-material.ts).
  const refusal = plan.refusal ?? (auth.via === 'widget' ? multiMaterialRefusal(file) : null);
  const cached = mode === 'sync' && !refusal ? await sliceByKey(deps.db, key) : undefined;
  if (mode === 'sync' && !refusal) deps.metrics.sliceCache.inc({ result: cached ? 'hit' : 'miss' });
  // Only a quote that will be sliced needs its cost: one answered from the cache or refused costs nothing.
  const cost = !cached && !refusal ? await planCost(deps, file, plan) : null;
  if (cost) {
    if (maxSliceSeconds !== null && cost.predicted_s > maxSliceSeconds) {
      const chosen = offer && choices ? offer.qualities.find((q) => q.id === choices.quality) : undefined;
      const within =
        offer && choices
          ? await qualitiesWithinLimit(deps, file, parsed.request, offer, choices, maxSliceSeconds, version)
          : [];
      refuseOverLimit(cost, maxSliceSeconds, chosen ? { quality: chosen.id, label: chosen.label } : null, within);
    }
    await admitSlice(deps, auth);
  }
  const row = await deps.db.transaction(async (tx) => {
    const quote = await insertQuote(
      tx,
      newQuote(auth, file, mode, {
        status: cached || refusal ? 'processing' : 'queued',
        request: parsed.choices !== undefined ? { ...parsed.request, choices: parsed.choices } : parsed.request,
        resolved: { ...plan.resolved, color: resolution.color },
        slicing_key: key,
        material: resolution.settings.material.filament_type,
        color: resolution.color,
        printer: printerLabel(resolution.settings.printer),
        choices,
        predicted_s: cost?.predicted_s ?? null,
      }),
    );
    // The shopper changed an option before the last price came: that quote is no longer awaited.
    if (auth.widgetKeyId && auth.shopperHash) await supersedeShopperQuotes(tx, quote);
    if (refusal) return failJob(tx, quote, null, refusal, deps.now());
    if (cached) return finishQuote(tx, deps, quote, null, { stats: cached.stats, slice: cached, cached: true });
    await jobStatusChanged(tx, quote, null, deps.now());
    return quote;
  });
  deps.events.wake();
  if (!cached && !refusal) deps.jobs.wake();
  return row;
}

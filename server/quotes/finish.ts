// Finishing a quote, the one path for a quote answered from the slice cache and for a worker's slice: the result
// priced and signed, the row completed or failed, the month's count and the events, in the caller's transaction.
// The worker half (quote-worker.ts, job-runner.ts, file-work.ts) imports this, never the request half.

import {
  type Conversion,
  computePrice,
  formatDuration,
  PriceOutOfRangeError,
  type PrintStats,
} from '../../shared/pricing.ts';
import type { ResolvedSettings } from '../../shared/settings.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { ApiError } from '../http/index.ts';
import { countQuote, countWidgetQuote, monthPeriod } from '../limits/index.ts';
import { writeEvent } from '../outbox/index.ts';
import type { QuotePlacement } from '../placement/index.ts';
import { mapInfillPattern, printStats, type SliceMeasure, supportDensityUsed } from '../slicer/index.ts';
import { recordCalibrationSample } from './estimate.ts';
import { completedEventData, failedEventData, jobEventData, processingTimeMs } from './present.ts';
import { settingsDigest, signingSecret, signQuote } from './signing.ts';
import {
  completeQuote,
  explorationCounted,
  failQuote,
  type JobError,
  type QuoteRow,
  type QuoteStatus,
  type SliceRow,
} from './sql.ts';

export interface FinishInput {
  /** The slice's measure; grams and filament length follow from the quote's material. */
  stats: SliceMeasure;
  slice: Pick<SliceRow, 'slicer' | 'slicer_version' | 'duration_ms'>;
  cached: boolean;
}

/** The stored result: the documented result fields, then the breakdown, statistics and resolved settings with sources. */
export function buildResult(row: QuoteRow, input: FinishInput, now: Date) {
  const resolved = row.resolved!;
  const s = resolved.settings;
  const stats = printStats(input.stats, s.material);
  const price = priceOf(stats, s, resolved.conversion);
  const pattern = mapInfillPattern(s.printer.infill_pattern);
  return {
    total_price: price.total,
    minimum_unit_price: price.minimum_unit_price ?? null,
    currency: price.currency,
    estimated_time: formatDuration(stats.print_time_s),
    estimated_time_seconds: Math.round(stats.print_time_s),
    filament_weight: Math.round(stats.filament_weight_g * 100) / 100,
    printInfo: { technology: 'FDM', material: s.material.filament_type, color: resolved.color },
    cached: input.cached,
    processing_time_ms: processingTimeMs(row, now),
    price_breakdown: price,
    print_stats: stats,
    infill_pattern: { requested: pattern.requested, used: pattern.used, exact: pattern.exact },
    support_density: { requested: s.printer.support_density, used: supportDensityUsed(s.printer.support_density) },
    settings: { printer_config: s.printer, material_config: s.material, quote_config: s.quote },
    setting_sources: resolved.sources,
    slicer: { name: input.slice.slicer, version: input.slice.slicer_version, slice_time_ms: input.slice.duration_ms },
    ...placementFields(resolved.placement),
  };
}

function priceOf(stats: PrintStats, s: ResolvedSettings, conversion: Conversion | null) {
  try {
    return computePrice(stats, s, conversion);
  } catch (err) {
    if (!(err instanceof PriceOutOfRangeError)) throw err;
    const message = `The quote cannot be priced: ${err.message}. Check the prices in the request and profiles.`;
    throw new ApiError(422, 'price_out_of_range', message);
  }
}

/** Expiry and signature of a completed quote (docs/quote-signatures.md). */
async function signResult(
  tx: Queryable,
  deps: Pick<Deps, 'now'>,
  row: QuoteRow,
  result: ReturnType<typeof buildResult>,
) {
  const settings = row.resolved!.settings;
  const expiresAt = new Date(deps.now().getTime() + settings.quote.quote_validity_days * 86_400_000);
  const placed = row.resolved!.placement;
  const placement = placed?.placement ?? null;
  const digest = settingsDigest({ settings, color: result.printInfo.color, choices: row.choices, placement });
  const signature = signQuote(await signingSecret(tx, row.account_id), {
    quote_id: row.id,
    file_id: row.file_id,
    // Quotes placed before placements (or revisions) were kept priced the file as uploaded.
    file_revision: placed?.file_revision ?? 1,
    unit: placement?.unit ?? 'mm',
    scale: placement?.scale ?? 1,
    orientation: placement?.orientation ?? 'as_uploaded',
    settings_digest: digest,
    unit_amount_minor: result.price_breakdown.minor_units.total,
    currency: result.currency,
    lead_time: row.choices?.lead_time?.id ?? '',
    business_days: row.choices?.lead_time?.business_days ?? 0,
    expires_at: expiresAt,
  });
  return {
    expiresAt,
    fields: { expires_at: expiresAt.toISOString(), choices: row.choices, settings_digest: digest, signature },
  };
}

/** What a quote states of its placement (quotes created before placements were stored state nothing). */
function placementFields(p: QuotePlacement | undefined) {
  return p?.placement ? { placement: p.placement, warnings: p.warnings } : {};
}

/** Completes a quote in the caller's transaction: row, monthly count and quote.completed together. */
export async function finishQuote(
  tx: Queryable,
  deps: Pick<Deps, 'plans' | 'now'>,
  row: QuoteRow,
  owner: string | null,
  input: FinishInput,
): Promise<QuoteRow> {
  const result = buildResult(row, input, deps.now());
  const signed = await signResult(tx, deps, row, result);
  // A shopper's exploration of one upload counts once; every API quote counts (docs/limits.md).
  const counted =
    !row.widget_key_id || !(await explorationCounted(tx, row.file_id, true, monthPeriod(deps.now()).start));
  const done = await completeQuote(tx, row.id, owner, {
    expires_at: signed.expiresAt,
    counted,
    currency: result.currency,
    total_price: result.total_price,
    filament_weight_g: result.print_stats.filament_weight_g,
    print_time_s: result.print_stats.print_time_s,
    cached: input.cached,
    result: { ...result, ...signed.fields },
  });
  if (!done) throw new LeaseLostError(row.id);
  if (counted) await countQuote(tx, deps, row.account_id, row.token_id);
  if (counted && row.widget_key_id) await countWidgetQuote(tx, deps, row.account_id, row.widget_key_id);
  // The estimate it was shown with and the real slice: a calibration sample of the account's printer and material.
  await recordCalibrationSample(tx, done, input.stats, done.file_id); // done: the features stored since the claim
  await writeEvent(tx, {
    account_id: done.account_id,
    token_id: done.token_id,
    event: 'quote.completed',
    data: completedEventData(done),
    at: deps.now(),
  });
  return done;
}

export async function failJob(tx: Queryable, row: QuoteRow, owner: string | null, error: JobError, at: Date) {
  const failed = await failQuote(tx, row.id, owner, error);
  if (!failed) throw new LeaseLostError(row.id);
  await writeEvent(tx, {
    account_id: failed.account_id,
    token_id: failed.token_id,
    event: 'quote.failed',
    data: failedEventData(failed),
    at,
  });
  await jobStatusChanged(tx, failed, row.status, at);
  return failed;
}

/**
 * job.status_changed goes to the jobs of asynchronous requests only: a synchronous caller gets the outcome in
 * the response (or polls the job it was answered 202 with), whether its quote was sliced or cached; quote.completed
 * and quote.failed are sent for both (docs/webhooks.md).
 */
export async function jobStatusChanged(
  tx: Queryable,
  row: QuoteRow,
  previous: QuoteStatus | null,
  at: Date,
): Promise<void> {
  if (row.mode !== 'async') return;
  await writeEvent(tx, {
    account_id: row.account_id,
    token_id: row.token_id,
    event: 'job.status_changed',
    data: jobEventData(row, previous),
    at,
  });
}

/** Another worker took the job over (this one's lease ran out): its result is discarded. */
export class LeaseLostError extends Error {
  constructor(id: string) {
    super(`lost the lease on ${id}`);
  }
}

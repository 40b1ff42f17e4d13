// Quote shapes: the API record, the quote result, and the webhook event bodies (docs/webhooks.md).
import type { QuoteRow } from './sql.ts';
import type { JobStep } from './time-left.ts';
import type { ContractSchema } from '../openapi/index.ts';

/** The quote result object plus the breakdown and print statistics (stored at completion). */
export function presentQuote(row: QuoteRow, now: Date): ContractSchema<'Quote'> {
  return {
    quote_id: row.id,
    job_id: row.id,
    status: row.status,
    mode: row.mode,
    file_id: row.file_id,
    file_name: row.file_name,
    created_at: row.created_at.toISOString(),
    completed_at: row.finished_at?.toISOString() ?? null,
    ...(row.status === 'completed' ? completedFields(row.result!, row.expires_at, now) : {}),
    ...(row.status === 'failed'
      ? { error: row.error ? { code: row.error.code, message: row.error.message } : null }
      : {}),
  };
}

/** A completed quote's result; one stored before minimum_unit_price was a field of its own reads it from its breakdown. */
function completedFields(result: NonNullable<QuoteRow['result']>, expiresAt: Date | null, now: Date) {
  return {
    ...result,
    minimum_unit_price: result.minimum_unit_price ?? result.price_breakdown?.minimum_unit_price ?? null,
    expired: !!expiresAt && expiresAt <= now,
  };
}

/** A job as GET /v2/jobs answers it; `progress` is its step and time left (time-left.ts). */
export function presentJob(
  row: QuoteRow,
  now: Date,
  progress: { step: JobStep | null; expected_remaining_seconds: number | null },
): ContractSchema<'Job'> {
  return {
    job_id: row.id,
    quote_id: row.id,
    status: row.status,
    // Finished is 100 %, also for jobs that failed before failures recorded it.
    progress: row.status === 'failed' ? 100 : row.progress,
    estimate: row.status === 'queued' || row.status === 'processing' ? row.estimate : null,
    stage: row.status === 'processing' ? row.stage : null,
    ...progress,
    file_id: row.file_id,
    file_name: row.file_name,
    attempts: row.attempts,
    created_at: row.created_at.toISOString(),
    started_at: row.started_at?.toISOString() ?? null,
    finished_at: row.finished_at?.toISOString() ?? null,
    result: row.status === 'completed' ? presentQuote(row, now) : null,
    error: row.status === 'failed' && row.error ? { code: row.error.code, message: row.error.message } : null,
  };
}

/** The result fields only: what the quote.completed event carries as data.result (docs/webhooks.md). */
export function specResult(row: QuoteRow) {
  const r = row.result!;
  return {
    quote_id: row.id,
    total_price: r.total_price,
    currency: r.currency,
    estimated_time: r.estimated_time,
    estimated_time_seconds: r.estimated_time_seconds,
    filament_weight: r.filament_weight,
    printInfo: r.printInfo,
  };
}

/** From the request to its end: `now`, by the service's clock, for a quote that has not finished yet. */
export function processingTimeMs(row: QuoteRow, now: Date): number {
  return Math.max(0, (row.finished_at ?? now).getTime() - row.created_at.getTime());
}

export function quoteEventData(row: QuoteRow) {
  return {
    jobId: row.id,
    quoteId: row.id,
    status: row.status,
    fileName: row.file_name,
    fileId: row.file_id,
    // Sent for finished quotes only (quote.completed, quote.failed): their end is recorded.
    processingTimeMs: processingTimeMs(row, row.finished_at ?? row.created_at),
    cached: row.cached ?? false,
    result: row.status === 'completed' ? specResult(row) : null,
    error: row.status === 'failed' && row.error ? { code: row.error.code, message: row.error.message } : null,
  };
}

export function jobEventData(row: QuoteRow, previous: string | null) {
  return {
    jobId: row.id,
    quoteId: row.id,
    fileId: row.file_id,
    fileName: row.file_name,
    status: row.status,
    previousStatus: previous,
    progress: row.progress,
    attempts: row.attempts,
  };
}

// Quote shapes: the API record, the quote result, and the webhook event bodies (docs/webhooks.md).

import type { ContractSchema } from '../openapi/index.ts';
import type { QuoteRecordRow, QuoteRow, QuoteStatus } from './sql.ts';
import type { JobTimeLeft } from './time-left.ts';

/** The quote result object plus the breakdown and print statistics (stored at completion). */
export function presentQuote(row: QuoteRecordRow, now: Date): ContractSchema<'Quote'> {
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
    expired: quoteExpired(expiresAt, now),
  };
}

/** A completed quote's `expired`: the one field of its record that changes once it is completed. */
export const quoteExpired = (expiresAt: Date | null, now: Date) => !!expiresAt && expiresAt <= now;

/** A job as GET /v2/jobs answers it; `progress` is its step and time left (time-left.ts). */
export function presentJob(row: QuoteRow, now: Date, progress: JobTimeLeft): ContractSchema<'Job'> {
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

type CompletedData = ContractSchema<'WebhookEventQuoteCompleted'>['data'];
type FailedData = ContractSchema<'WebhookEventQuoteFailed'>['data'];
type JobData = ContractSchema<'WebhookEventJobStatusChanged'>['data'];

/** The result fields only: what the quote.completed event carries as data.result (docs/webhooks.md). */
export function specResult(row: QuoteRow): CompletedData['result'] {
  const r = row.result!;
  return {
    quote_id: row.id,
    total_price: r.total_price!,
    currency: r.currency!,
    estimated_time: r.estimated_time!,
    estimated_time_seconds: r.estimated_time_seconds!,
    filament_weight: r.filament_weight!,
    printInfo: r.printInfo!,
  };
}

/** From the request to its end: `now`, by the service's clock, for a quote that has not finished yet. */
export function processingTimeMs(row: QuoteRow, now: Date): number {
  return Math.max(0, (row.finished_at ?? now).getTime() - row.created_at.getTime());
}

/** What quote.completed and quote.failed share: sent for finished quotes only, whose end is recorded. */
const finishedEventData = (row: QuoteRow) => ({
  jobId: row.id,
  quoteId: row.id,
  fileName: row.file_name,
  fileId: row.file_id,
  processingTimeMs: processingTimeMs(row, row.finished_at ?? row.created_at),
  cached: row.cached ?? false,
});

/** The data of quote.completed, as the contract states it. */
export function completedEventData(row: QuoteRow): CompletedData {
  return { ...finishedEventData(row), status: 'completed', result: specResult(row), error: null };
}

/** The data of quote.failed, as the contract states it. */
export function failedEventData(row: QuoteRow): FailedData {
  const error = row.error ?? { code: 'failed', message: 'The quote failed.' };
  return {
    ...finishedEventData(row),
    status: 'failed',
    result: null,
    error: { code: error.code, message: error.message },
  };
}

/** The data of job.status_changed: null as the previous status of a job's first event. */
export function jobEventData(row: QuoteRow, previous: QuoteStatus | null): JobData {
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

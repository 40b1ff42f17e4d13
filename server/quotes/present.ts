// Quote shapes: the API record, the quote result, and the webhook event bodies (docs/webhooks.md).
import type { QuoteRow } from './sql.ts';

/** The quote result object plus the breakdown and print statistics (stored at completion). */
export function presentQuote(row: QuoteRow, now: Date) {
  return {
    quote_id: row.id,
    job_id: row.id,
    status: row.status,
    mode: row.mode,
    file_id: row.file_id,
    file_name: row.file_name,
    created_at: row.created_at.toISOString(),
    completed_at: row.finished_at?.toISOString() ?? null,
    ...(row.status === 'completed' ? { ...row.result, expired: !!row.expires_at && row.expires_at <= now } : {}),
    ...(row.status === 'failed'
      ? { error: row.error ? { code: row.error.code, message: row.error.message } : null }
      : {}),
  };
}

export function presentJob(row: QuoteRow, now: Date) {
  return {
    job_id: row.id,
    quote_id: row.id,
    status: row.status,
    // Finished is 100 %, also for jobs that failed before failures recorded it.
    progress: row.status === 'failed' ? 100 : row.progress,
    estimate: row.status === 'queued' || row.status === 'processing' ? row.estimate : null,
    ...slicingProgress(row, now),
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

/** While a job slices: the slicer's stage and the seconds it is expected to take still (never below 1). */
function slicingProgress(row: QuoteRow, now: Date) {
  const slicing = row.status === 'processing';
  const remainingMs = slicing && row.expected_done_at ? row.expected_done_at.getTime() - now.getTime() : null;
  return {
    stage: slicing ? row.stage : null,
    expected_remaining_seconds: remainingMs === null ? null : Math.max(1, Math.ceil(remainingMs / 1000)),
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

export function processingTimeMs(row: QuoteRow): number {
  return Math.max(0, (row.finished_at ?? new Date()).getTime() - row.created_at.getTime());
}

export function quoteEventData(row: QuoteRow) {
  return {
    jobId: row.id,
    quoteId: row.id,
    status: row.status,
    fileName: row.file_name,
    fileId: row.file_id,
    processingTimeMs: processingTimeMs(row),
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

// Getting one price: POST the quote, and when the server answers 202 (the slice takes longer than a second)
// show its instant estimate and read the job, with its step and time left, until it completes. Each read waits
// on the server until the job finishes (or a couple of seconds pass), so the exact price shows the moment it
// exists. Short rate-limit waits are absorbed here so a shopper flicking through options does not see a 429;
// anything else surfaces as a WidgetError.
import type { QuoteRequest, WidgetApi } from './api.ts';
import { WidgetError } from './errors.ts';
import { type RetryRule, retrying, sleep } from './retry.ts';
import type { Pricing, Quote, Selection } from './types.ts';

/** Reads of an unfinished job are at least this far apart, should the server answer without waiting. */
const MIN_READ_INTERVAL_MS = 500;
const POLL_GIVE_UP_MS = 5 * 60_000;
/** How many times a call refused by a rate limit is sent again. */
const RATE_LIMIT_RETRIES = 2;
const RATE_LIMIT_MAX_WAIT_MS = 10_000;

export function quoteRequest(sel: Selection): QuoteRequest {
  return {
    choices: {
      material: sel.material,
      quality: sel.quality,
      infill: sel.infill,
      ...(sel.color ? { color: sel.color } : {}),
      ...(sel.lead_time ? { lead_time: sel.lead_time } : {}),
    },
  };
}

export async function fetchQuote(
  api: WidgetApi,
  fileId: string,
  sel: Selection,
  onProgress: (pricing: Pricing) => void,
  signal: AbortSignal,
): Promise<Quote> {
  const first = await retrying(() => api.quote(fileId, quoteRequest(sel), signal), rateLimitWait, signal);
  if ('quote' in first) return first.quote;
  const estimate = first.job.estimate ?? null;
  onProgress({ percent: 0, estimate, step: null, reading: null });
  return pollJob(api, first.job.status_url, estimate, onProgress, signal);
}

async function pollJob(
  api: WidgetApi,
  statusUrl: string,
  firstEstimate: Pricing['estimate'],
  onProgress: (pricing: Pricing) => void,
  signal: AbortSignal,
): Promise<Quote> {
  const giveUpAt = Date.now() + POLL_GIVE_UP_MS;
  for (let read = 0; ; read++) {
    // No pause between reads: each one is held by the server until the job finishes or a moment passes. The first
    // is answered at once, so that the time left shows as soon as the job is accepted.
    const sent = Date.now();
    const job = await retrying(() => api.job(statusUrl, signal, read === 0 ? 0 : undefined), rateLimitWait, signal);
    onProgress({
      percent: job.progress,
      estimate: job.estimate ?? firstEstimate,
      step: job.step ?? null,
      reading: {
        seconds: job.expected_remaining_seconds ?? null,
        reason: job.expected_remaining_reason ?? null,
        ahead: job.slices_ahead ?? null,
      },
    });
    if (job.status === 'completed' && job.result) return job.result;
    if (job.status === 'failed') {
      const code = job.error?.code ?? 'quote_failed';
      // A slicing problem (the model, the settings) fails the same way again; a timeout may not.
      throw new WidgetError(code, job.error?.message ?? 'The quote failed.', /timeout|internal|unavailable/.test(code));
    }
    if (Date.now() > giveUpAt)
      throw new WidgetError('quote_timeout', 'Slicing is taking too long. Please try again.', true);
    await sleep(MIN_READ_INTERVAL_MS - (Date.now() - sent), signal);
  }
}

/** A short rate-limit wait is absorbed, twice at most; a longer one, or any other failure, is the shopper's to see. */
const rateLimitWait: RetryRule = (e, attempt) =>
  e instanceof WidgetError &&
  e.code === 'rate_limited' &&
  attempt <= RATE_LIMIT_RETRIES &&
  e.retryAfterMs <= RATE_LIMIT_MAX_WAIT_MS
    ? e.retryAfterMs || 1000
    : null;

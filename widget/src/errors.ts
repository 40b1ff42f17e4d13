// One error type for everything that can go wrong in the widget, carrying what `sq-error` reports.
// Codes from the server and the parsers pass through unchanged, so a merchant can look them up in
// the API docs; the widget adds a few of its own (network_error, does_not_fit, ...).
import type { ErrorDetail } from './types.ts';

/**
 * A quote refused for the shop's slicer limit on these choices (`model_too_complex` with `details.field`
 * `max_slice_seconds`), not for the model: the quality chosen, and the finest of the offer's qualities within it.
 */
export interface SlicerLimit {
  /** The quality chosen (its id and label); null when the request named no offer choice. */
  over: QualityChoice | null;
  instead: QualityChoice | null;
}

/** One of the offer's qualities, as a refusal names it. */
export interface QualityChoice {
  quality: string;
  label: string;
}

export class WidgetError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
    /** From Retry-After on a 429, so a retry waits as long as the server asked. */
    readonly retryAfterMs = 0,
    /** The line of a several-line cart call that the server refused (`details.line`), else null. */
    readonly line: number | null = null,
    /** A refusal for the shop's slicer limit on these choices, else null. */
    readonly slicerLimit: SlicerLimit | null = null,
  ) {
    super(message);
    this.name = 'WidgetError';
  }

  get detail(): ErrorDetail {
    return { code: this.code, message: this.message, retryable: this.retryable };
  }
}

/** Any thrown value as a WidgetError; unknown failures are worth a retry. */
export function toWidgetError(e: unknown): WidgetError {
  if (e instanceof WidgetError) return e;
  if (e instanceof TypeError) return networkError();
  const message = e instanceof Error ? e.message : String(e);
  return new WidgetError('unexpected_error', message || 'Something went wrong.', true);
}

/** fetch and XHR fail this way when the server is unreachable or CORS refuses the origin. */
export function networkError(): WidgetError {
  return new WidgetError(
    'network_error',
    'Could not reach the quoting service. Check your connection and try again.',
    true,
  );
}

/** Builds the error of a non-2xx response from its `{error: {code, message}}` body. */
export function httpError(status: number, body: unknown, retryAfter: string | null): WidgetError {
  const err = (body as { error?: { code?: unknown; message?: unknown; details?: Record<string, unknown> } } | null)
    ?.error;
  const code = typeof err?.code === 'string' ? err.code : `http_${status}`;
  const message = typeof err?.message === 'string' ? err.message : `The quoting service answered ${status}.`;
  // 402: the shop's monthly allowance or storage is used up; trying again would not help.
  const retryable = status >= 500 || status === 429 || status === 408;
  const line = err?.details?.line;
  return new WidgetError(
    code,
    message,
    retryable,
    retryAfterMs(retryAfter),
    Number.isInteger(line) ? (line as number) : null,
    slicerLimitOf(err?.details),
  );
}

/** A slicer-limit refusal's details, read defensively: the first of `within_limit` is the one offered. */
function slicerLimitOf(details: Record<string, unknown> | undefined): SlicerLimit | null {
  if (details?.field !== 'max_slice_seconds') return null;
  const first = Array.isArray(details.within_limit) ? details.within_limit[0] : undefined;
  return { over: qualityChoice(details.over_limit), instead: qualityChoice(first) };
}

function qualityChoice(raw: unknown): QualityChoice | null {
  const q = raw as { quality?: unknown; label?: unknown } | null | undefined;
  return typeof q?.quality === 'string' && typeof q.label === 'string' ? { quality: q.quality, label: q.label } : null;
}

function retryAfterMs(header: string | null): number {
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
}

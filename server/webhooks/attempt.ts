// One delivery attempt of a claimed delivery: send the fixed body and signature, then record the outcome.
import type { Queryable } from '../db/index.ts';
import { judgeAddress, parseAddress } from './address-policy.ts';
import { type ClaimedDelivery, closeFailed, recordAttempt } from './attempts-sql.ts';
import { type Random, retryDelayMs } from './backoff.ts';
import { accountFacingReason } from './reasons.ts';
import { type SendResult, sendWebhook } from './send.ts';
import {
  ATTEMPT_SNIPPET_CHARS,
  type DeliverySettings,
  MAX_ATTEMPTS,
  MAX_INTERRUPTIONS,
  policyFor,
  SNIPPET_CHARS,
} from './settings.ts';
import { defaultResolver, type Resolver } from './url-guard.ts';

export const USER_AGENT = 'slicequote-webhooks/1';

export function deliveryHeaders(
  d: Pick<ClaimedDelivery, 'id' | 'event' | 'signature'>,
  sentAt: Date,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-webhook-signature': d.signature,
    'x-webhook-event': d.event,
    'x-webhook-delivery': d.id,
    // Not covered by the signature (the body's own timestamp is); it tells the receiver when this attempt left.
    'x-webhook-timestamp': sentAt.toISOString(),
  };
}

/** The DNS lookup happens before send.ts starts its timer; bound it so an attempt always ends within its lease. */
export function boundedResolver(ms: number, resolve: Resolver = defaultResolver): Resolver {
  return (host) =>
    new Promise<string[]>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`lookup timed out after ${ms} ms`)), ms);
      resolve(host).then(
        (addresses) => {
          clearTimeout(timer);
          ok(addresses);
        },
        (err) => {
          clearTimeout(timer);
          fail(err);
        },
      );
    });
}

// Postgres text cannot hold NUL, and control characters make the delivery log unreadable.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters being removed
const UNREADABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const clean = (text: string, max: number) => text.replace(UNREADABLE, '').slice(0, max);

/**
 * A snippet is kept only from a receiver at a public address. Never from a refused address (there is no answer
 * then anyway), and never from a private address reached through WEBHOOK_ALLOW_PRIVATE_CIDRS: on a shared
 * server that allowance must not let one account read another internal service's answers.
 */
export function snippetOf(result: SendResult, max = SNIPPET_CHARS): string | null {
  if (!result.bodySnippet || !result.address) return null;
  const ip = parseAddress(result.address);
  if (!ip || !judgeAddress(ip, { allowPrivateCidrs: [] }).ok) return null;
  if (!isTextual(result.contentType)) return null;
  return clean(result.bodySnippet, max) || null;
}

// An answer without a Content-Type is shown as text (most receivers answer "ok" that way); a declared binary
// type (an image, a zip, an HTML-less octet stream) is not: decoded as UTF-8 it would only be noise.
const TEXTUAL =
  /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded|problem\+json|problem\+xml)\b|application\/[\w.-]+\+(json|xml)\b)/i;

export function isTextual(contentType: string | undefined): boolean {
  return contentType === undefined || TEXTUAL.test(contentType.trim());
}

export interface AttemptContext {
  db: Queryable;
  settings: DeliverySettings;
  resolver?: Resolver;
  /** The injected clock: when the attempt left, and from when its retry delay counts. */
  now: () => Date;
  /** The jitter of the retry delay (backoff.ts); Math.random unless a test injects one. */
  random?: Random;
}

/** Runs one attempt; returns the state recorded (null when the lease had been taken over meanwhile). */
export async function attemptDelivery(ctx: AttemptContext, d: ClaimedDelivery) {
  if (d.interrupted_attempts >= MAX_INTERRUPTIONS) {
    // A delivery whose attempts keep dying with the process would otherwise be re-sent on every restart.
    await closeFailed(ctx.db, d.id, d.lease_owner, `closed after ${d.interrupted_attempts} interrupted attempts`);
    return 'failed' as const;
  }
  const { settings } = ctx;
  const sentAt = ctx.now();
  const result = await sendWebhook({
    url: d.url,
    body: d.body,
    headers: deliveryHeaders(d, sentAt),
    timeoutMs: settings.timeoutMs,
    policy: policyFor(settings, d.account_id),
    resolver: boundedResolver(settings.dnsTimeoutMs, ctx.resolver),
  });
  return recordAttempt(ctx.db, {
    id: d.id,
    owner: d.lease_owner,
    ok: result.ok,
    statusCode: result.status ?? null,
    error: result.ok ? null : clean(accountFacingReason(result.error ?? 'failed'), 500),
    snippet: snippetOf(result),
    attemptSnippet: snippetOf(result, ATTEMPT_SNIPPET_CHARS),
    sentAt,
    finishedAt: ctx.now(),
    durationMs: result.durationMs,
    maxAttempts: MAX_ATTEMPTS,
    // This attempt is number attempts + 1; a retry waits longer the more attempts have failed.
    retryDelayMs: retryDelayMs(d.attempts + 1, settings.sweepIntervalMs, ctx.random),
  });
}

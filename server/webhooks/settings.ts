// Delivery settings derived from Config once, at start-up.
import type { Config } from '../config.ts';
import { type AddressPolicy, parseCidrList } from './address-policy.ts';

/** At most 3 attempts per delivery (docs/webhooks.md, retries). */
export const MAX_ATTEMPTS = 3;
/** A delivery whose attempts were cut short this often (process killed each time) is closed as failed. */
export const MAX_INTERRUPTIONS = 3;
/** Attempts in flight per process, and per webhook across all processes (live leases). */
export const MAX_IN_FLIGHT = 16;
export const MAX_IN_FLIGHT_PER_WEBHOOK = 4;
/** Added to the longest an attempt can take (see deliverySettings). */
export const LEASE_MARGIN_MS = 10_000;
/** Characters of a receiver's answer kept on the delivery (the list shows it). */
export const SNIPPET_CHARS = 256;
/** Characters of a receiver's answer kept per attempt (the delivery detail shows them); 013_delivery_attempts.sql enforces it. */
export const ATTEMPT_SNIPPET_CHARS = 2048;

export interface DeliverySettings {
  /** The operator's rule (WEBHOOK_ALLOW_PRIVATE_CIDRS), for every account. */
  policy: AddressPolicy;
  /** Extra private CIDRs per account id (demo mode's loopback receiver); see policyFor. */
  accountAllowances: Record<string, string[]>;
  timeoutMs: number;
  /** Bound on the DNS lookup before an attempt (send.ts's timer starts after it). */
  dnsTimeoutMs: number;
  leaseMs: number;
  sweepIntervalMs: number;
}

/**
 * Throws (naming WEBHOOK_ALLOW_PRIVATE_CIDRS) when the CIDR list is malformed, so a bad value stops start-up.
 *
 * The lease is derived, not configured: an attempt is bounded by the DNS budget plus send.ts's timeout, and a
 * lease shorter than that would let a second process send the same delivery while the first is still sending.
 * The 10 s margin covers recording the outcome: on a busy database (or a CPU-starved PGlite) that single
 * UPDATE can queue for seconds, and a lease that ran out before it would make another process send a
 * delivery the receiver already accepted.
 */
export function deliverySettings(config: Config): DeliverySettings {
  const timeoutMs = config.webhookTimeoutMs;
  return {
    policy: { allowPrivateCidrs: parseCidrList(config.webhookAllowPrivateCidrs) },
    accountAllowances: Object.fromEntries(
      Object.entries(config.webhookAccountAllowances).map(([accountId, cidrs]) => [
        accountId,
        parseCidrList(cidrs.join(',')),
      ]),
    ),
    timeoutMs,
    dnsTimeoutMs: timeoutMs,
    leaseMs: 2 * timeoutMs + LEASE_MARGIN_MS,
    sweepIntervalMs: config.webhookSweepIntervalMs,
  };
}

/** The address rule for one account's receivers: the operator's list plus that account's own allowance, if any. */
export function policyFor(
  settings: Pick<DeliverySettings, 'policy' | 'accountAllowances'>,
  accountId: string,
): AddressPolicy {
  const own = Object.hasOwn(settings.accountAllowances, accountId) ? settings.accountAllowances[accountId]! : [];
  return own.length === 0 ? settings.policy : { allowPrivateCidrs: [...settings.policy.allowPrivateCidrs, ...own] };
}

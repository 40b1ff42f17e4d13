// Webhook signatures (docs/webhooks.md, signatures): HMAC-SHA256 of the exact raw body,
// keyed with the webhook secret, sent as `sha256=<hex>`. Same scheme as
// GitHub's X-Hub-Signature-256, so receivers can reuse existing verifiers.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'sha256=';

export function signBody(secret: string, body: Uint8Array | string): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
  return PREFIX + hmac.digest('hex');
}

/**
 * Constant-time check of a signature header against the body. The comparison
 * is exact (lower-case hex, as we send it), like @octokit/webhooks-methods.
 * Only the length can leak through timing, and the length is public anyway.
 */
export function verifySignature(secret: string, body: Uint8Array | string, header: string): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(signBody(secret, body), 'utf8');
  const given = Buffer.from(header, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A fresh signing secret: 32 random bytes, base64url, with a recognisable prefix. */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

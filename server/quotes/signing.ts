// Signed, expiring quotes (docs/quote-signatures.md). A completed quote carries a payload naming what was
// priced (quote, the file and its revision, the placement's unit, scale and orientation, a digest of the settings,
// unit price in minor units, currency, expiry) and an
// HMAC-SHA256 of that payload with the account's signing secret, so a merchant's backend can check offline
// that the price a browser reports is the one we computed, for that part, and still valid.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/index.ts';
import { firstRow } from '../db/rows.ts';

/**
 * v3 added the lead time chosen (its id and business days) before the expiry; v2 payloads (quotes signed before)
 * still verify with the same HMAC, as the verifiers in docs/quote-signatures.md read both.
 */
export const SIGNATURE_VERSION = 'v3';

export interface SignedFields {
  quote_id: string;
  file_id: string;
  /** The file's revision when it was priced: every rescale makes a new one. */
  file_revision: number;
  /** The placement priced: the unit the file was read in, its extra scale and the orientation it prints in. */
  unit: string;
  scale: number;
  orientation: string;
  settings_digest: string;
  unit_amount_minor: number;
  currency: string;
  /** The lead-time option chosen (its id) and its business days; empty and 0 when the offer has none. */
  lead_time: string;
  business_days: number;
  expires_at: Date;
}

export interface QuoteSignature {
  payload: string;
  hmac_sha256: string;
}

/** JSON with object keys sorted at every depth: equal settings always give equal text. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(v);
}

/** SHA-256 of everything that decided the part and its price: resolved settings, colour, choices. */
export function settingsDigest(what: unknown): string {
  return createHash('sha256').update(canonicalJson(what)).digest('hex');
}

/**
 * `v3:<quote_id>:<file_id>:<file_revision>:<unit>:<scale>:<orientation>:<settings_digest>:<unit_amount_minor>:
 * <currency>:<lead_time id>:<business_days>:<expires_at unix seconds>`
 */
export function signaturePayload(f: SignedFields): string {
  const expires = Math.floor(f.expires_at.getTime() / 1000);
  return [
    SIGNATURE_VERSION,
    f.quote_id,
    f.file_id,
    f.file_revision,
    f.unit,
    f.scale,
    f.orientation,
    f.settings_digest,
    f.unit_amount_minor,
    f.currency,
    f.lead_time,
    f.business_days,
    expires,
  ].join(':');
}

export function signQuote(secret: string, fields: SignedFields): QuoteSignature {
  const payload = signaturePayload(fields);
  return { payload, hmac_sha256: createHmac('sha256', secret).update(payload).digest('hex') };
}

export function signatureMatches(secret: string, s: QuoteSignature): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(s.payload).digest('hex'));
  const given = Buffer.from(s.hmac_sha256);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

const newSecret = () => `qss_${randomBytes(32).toString('base64url')}`;

/** The account's signing secret, created on first use (concurrent first uses agree on one). */
export async function signingSecret(db: Queryable, accountId: string): Promise<string> {
  const [row] = await db.query<{ quote_signing_secret: string | null }>(
    'SELECT quote_signing_secret FROM accounts WHERE id = $1',
    [accountId],
  );
  if (row?.quote_signing_secret) return row.quote_signing_secret;
  const created = await db.query<{ quote_signing_secret: string }>(
    'UPDATE accounts SET quote_signing_secret = coalesce(quote_signing_secret, $2) WHERE id = $1 RETURNING quote_signing_secret',
    [accountId, newSecret()],
  );
  return firstRow(created).quote_signing_secret;
}

/** A new secret: signatures made with the old one no longer verify offline (GET /v2/quotes/{id} still answers). */
export async function rotateSigningSecret(db: Queryable, accountId: string): Promise<string> {
  const rows = await db.query<{ quote_signing_secret: string }>(
    'UPDATE accounts SET quote_signing_secret = $2 WHERE id = $1 RETURNING quote_signing_secret',
    [accountId, newSecret()],
  );
  return firstRow(rows).quote_signing_secret;
}

// A quote priced by hand (docs/widget.md, "Request a quote"): the merchant's price of one part, made into a completed
// quote of the part at the shopper's choices and signed like every quote (docs/quote-signatures.md), so that a kept
// link, the cart, the PDF and the merchant's backend read it as any other. It carries `manual: true`; its breakdown
// states the price before tax as the fixed fee (nothing of it was computed), and its print figures are those of the
// automatic quote it replaces when there was one, else 0.

import { roundHalfUp } from '../../shared/money.ts';
import type { ResolvedChoices } from '../../shared/offer.ts';
import { currencyDigits, formatDuration, MAX_MINOR_UNITS, PRICE_LINES, type PriceLine } from '../../shared/pricing.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { settingsDigest, signingSecret, signQuote } from './signing.ts';
import type { QuoteRow, StoredQuoteResult } from './sql.ts';

/** What the merchant priced and what it is a price of. */
export interface ManualQuoteInput {
  /** The new quote's id (newId('qt')), known before it is written: its link is signed in the same transaction. */
  id: string;
  accountId: string;
  widgetKeyId: string | null;
  shopperHash: string | null;
  /** The part as it is now (a quote names the revision it priced). */
  file: { id: string; name: string; revision: number };
  /** The automatic quote the request concerned: its print figures and placement are kept when they still apply. */
  source: QuoteRow | null;
  choices: ResolvedChoices | null;
  /** The price of one part, tax included, in minor units of `currency`. */
  unitMinor: number;
  currency: string;
  /** The tax rate (percent) the price includes: its share is stated as tax, as on every quote. */
  taxRate: number;
  expiresAt: Date;
  /** The request it answers, named in the quote's request and its settings digest. */
  requestId: string;
}

/** The breakdown of a price set by hand: the tax it contains, the rest as the fixed fee. */
function manualBreakdown(unitMinor: number, currency: string, taxRate: number) {
  const digits = currencyDigits(currency);
  const subtotal = roundHalfUp((unitMinor * 100) / (100 + taxRate));
  const minor = {
    material: 0,
    support: 0,
    machine: 0,
    energy: 0,
    fixed_fee: subtotal,
    minimum_price_adjustment: 0,
    subtotal,
    tax: unitMinor - subtotal,
    total: unitMinor,
  } satisfies Record<PriceLine, number>;
  const major = Object.fromEntries(PRICE_LINES.map((k) => [k, minor[k] / 10 ** digits])) as Record<PriceLine, number>;
  return {
    currency,
    digits,
    exchange_rate: null,
    price_per_gram: 0,
    ...major,
    minimum_unit_price: null,
    minor_units: minor,
  };
}

/** The automatic quote's placement, when it placed this revision of the file; else none (a part never placed). */
function placementOf(source: QuoteRow | null, revision: number) {
  const placed = source?.resolved?.placement;
  return placed?.placement && placed.file_revision === revision ? placed.placement : null;
}

function withoutLeadTime(choices: ResolvedChoices): ResolvedChoices {
  const { lead_time: _chosen, ...rest } = choices;
  return rest;
}

/** Inserts the completed quote in the caller's transaction and answers its row. */
export async function createManualQuote(
  tx: Queryable,
  deps: Pick<Deps, 'now'>,
  q: ManualQuoteInput,
): Promise<QuoteRow> {
  if (!(Number.isInteger(q.unitMinor) && q.unitMinor > 0 && q.unitMinor <= MAX_MINOR_UNITS))
    throw new RangeError(`a manual price must be 1 to ${MAX_MINOR_UNITS} minor units`);
  const id = q.id;
  const now = deps.now();
  const placement = placementOf(q.source, q.file.revision);
  // The delivery option's surcharge is not added to a price set by hand: the quote names none.
  const choices = q.choices ? withoutLeadTime(q.choices) : null;
  const breakdown = manualBreakdown(q.unitMinor, q.currency, q.taxRate);
  const stats = q.source?.status === 'completed' ? q.source.result : null;
  const digest = settingsDigest({ manual: true, request: q.requestId, choices, placement });
  const signature = signQuote(await signingSecret(tx, q.accountId), {
    quote_id: id,
    file_id: q.file.id,
    file_revision: q.file.revision,
    unit: placement?.unit ?? 'mm',
    scale: placement?.scale ?? 1,
    orientation: placement?.orientation ?? 'as_uploaded',
    settings_digest: digest,
    unit_amount_minor: q.unitMinor,
    currency: q.currency,
    lead_time: '',
    business_days: 0,
    expires_at: q.expiresAt,
  });
  const seconds = stats?.estimated_time_seconds ?? 0;
  const printInfo = {
    technology: 'FDM',
    material: choices?.material ?? q.source?.material ?? '',
    color: choices?.color ?? q.source?.color ?? '',
  };
  const result: StoredQuoteResult = {
    total_price: breakdown.total,
    minimum_unit_price: null,
    currency: q.currency,
    estimated_time: stats?.estimated_time ?? formatDuration(seconds),
    estimated_time_seconds: seconds,
    filament_weight: stats?.filament_weight ?? 0,
    printInfo,
    cached: false,
    processing_time_ms: 0,
    price_breakdown: breakdown,
    ...(stats?.print_stats ? { print_stats: stats.print_stats } : {}),
    ...(placement ? { placement, warnings: [] } : {}),
    manual: true,
    expires_at: q.expiresAt.toISOString(),
    choices,
    settings_digest: digest,
    signature,
  };
  const resolved = {
    placement: { placement, transform: null, refusal: null, warnings: [], file_revision: q.file.revision },
  };
  const [row] = await tx.query<QuoteRow>(
    `INSERT INTO quotes (id, account_id, token_id, file_id, file_name, mode, status, progress, request, resolved,
       material, color, currency, total_price, filament_weight_g, print_time_s, cached, result, widget_key_id,
       shopper_hash, choices, expires_at, counted, created_at, started_at, finished_at)
     VALUES ($1, $2, NULL, $3, $4, 'sync', 'completed', 100, $5, $6, $7, $8, $9, $10, $11, $12, false, $13, $14, $15,
       $16, $17, false, $18, $18, $18)
     RETURNING *`,
    [
      id,
      q.accountId,
      q.file.id,
      q.file.name,
      JSON.stringify({ manual: true, quote_request_id: q.requestId }),
      JSON.stringify(resolved),
      printInfo.material || null,
      printInfo.color || null,
      q.currency,
      breakdown.total,
      stats?.filament_weight ?? 0,
      seconds,
      JSON.stringify(result),
      q.widgetKeyId,
      q.shopperHash,
      choices && JSON.stringify(choices),
      q.expiresAt,
      now,
    ],
  );
  return row!;
}

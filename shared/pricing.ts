// The price formula (docs/pricing.md), shared by the server (authoritative) and the widget/dashboard.
// Every line is computed from grams and seconds in the shop currency, converted when the quote asks for another
// currency, and rounded half-up to integer minor units of the quote currency; the subtotal, tax and total are
// sums of those integers, so the printed lines always add up.

import { aliasOf, aliasValue } from './aliases.ts';
import { currencyDigits, roundHalfUp } from './money.ts';
import type { ResolvedSettings } from './settings.ts';

export { currencyDigits } from './money.ts';

export interface PrintStats {
  filament_weight_g: number;
  support_weight_g: number;
  print_time_s: number;
}

/** The quote asks for another currency than the shop's: amounts in `from` are multiplied by `rate`. */
export interface Conversion {
  from: string;
  to: string;
  rate: number;
}

/** The lines of a breakdown, in the order they add up: six parts, subtotal, tax, total. */
export const PRICE_LINES = [
  'material',
  'support',
  'machine',
  'energy',
  'fixed_fee',
  'minimum_price_adjustment',
  'subtotal',
  'tax',
  'total',
] as const;
export type PriceLine = (typeof PRICE_LINES)[number];
export const PART_LINES = PRICE_LINES.slice(0, 6) as readonly PriceLine[];

export type PriceBreakdown = {
  currency: string;
  /** Decimal places of the currency's minor unit (ISO 4217). */
  digits: number;
  /** The rate used when the quote's currency is not the shop's; null when no conversion took place. */
  exchange_rate: Conversion | null;
  /** Material price per gram in the quote currency (a rate, not rounded). */
  price_per_gram: number;
  /** The part at its minimum price with its tax, in the quote currency (a quantity break stops there); null: none. */
  minimum_unit_price?: number | null;
  /** The same lines as integers in minor units (cents for USD): material + … = subtotal, subtotal + tax = total. */
  minor_units: Record<PriceLine, number>;
} & Record<PriceLine, number>;

/** Above this many minor units (10^13) a price is refused: far beyond any print, and still exact as a double. */
export const MAX_MINOR_UNITS = 10 ** 13;

export class PriceOutOfRangeError extends RangeError {}

/** The material price per gram, whichever of its two names the settings hold. */
function pricePerGram(m: ResolvedSettings['material']): number | undefined {
  return aliasValue(aliasOf('material_config', 'price_per_gram')!, m, 'price_per_gram');
}

/** Each part of the price in the shop currency, unrounded: grams × prices, hours × costs. */
function rawParts(stats: PrintStats, s: ResolvedSettings, perGram: number) {
  const hours = stats.print_time_s / 3600;
  const modelGrams = Math.max(0, stats.filament_weight_g - stats.support_weight_g);
  return {
    material: modelGrams * perGram,
    support: stats.support_weight_g * perGram * s.material.support_cost_multiplier,
    machine: hours * s.printer.hourly_cost,
    energy: (s.printer.power_watts / 1000) * hours * s.quote.energy_cost_per_kwh,
    fixed_fee: s.quote.fixed_fee,
  };
}

/**
 * The price of one part. `stats` are grams and seconds, however they were obtained; `conversion` comes from the
 * resolution when the quote asks for another currency than the shop's.
 */
export function computePrice(
  stats: PrintStats,
  s: ResolvedSettings,
  conversion: Conversion | null = null,
): PriceBreakdown {
  const perGram = pricePerGram(s.material);
  if (perGram === undefined) throw new Error('material has no price');
  const currency = s.quote.currency;
  const digits = currencyDigits(currency);
  const rate = conversion?.rate ?? 1;
  const minor = (shopAmount: number) => roundHalfUp(shopAmount * rate * 10 ** digits);
  const raw = rawParts(stats, s, perGram);
  const parts = {
    material: minor(raw.material),
    support: minor(raw.support),
    machine: minor(raw.machine),
    energy: minor(raw.energy),
    fixed_fee: minor(raw.fixed_fee),
  };
  const sum = Object.values(parts).reduce((a, b) => a + b, 0);
  const minimum = minor(s.quote.minimum_price);
  const minimum_price_adjustment = Math.max(0, minimum - sum);
  const subtotal = sum + minimum_price_adjustment;
  const taxOf = (amount: number) => roundHalfUp((amount * s.quote.tax_rate) / 100);
  const tax = taxOf(subtotal);
  const minorUnits = { ...parts, minimum_price_adjustment, subtotal, tax, total: subtotal + tax };
  if (!(minorUnits.total <= MAX_MINOR_UNITS)) {
    throw new PriceOutOfRangeError(`the price exceeds ${MAX_MINOR_UNITS / 10 ** digits} ${currency}`);
  }
  const major = Object.fromEntries(PRICE_LINES.map((k) => [k, minorUnits[k] / 10 ** digits])) as Record<
    PriceLine,
    number
  >;
  return {
    currency,
    digits,
    exchange_rate: conversion,
    price_per_gram: Number((perGram * rate).toPrecision(15)),
    ...major,
    minimum_unit_price: minimum > 0 ? (minimum + taxOf(minimum)) / 10 ** digits : null,
    minor_units: minorUnits,
  };
}

/** "2h 15m", "45m", "30s": the human form of a print time. */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m`;
  return `${s}s`;
}

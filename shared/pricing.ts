// The price formula, shared by the server (authoritative) and the widget/dashboard (explanations).
// Money stays unrounded until the edge: only the returned breakdown is rounded to the currency's minor unit.
import type { ResolvedSettings } from './settings.ts';

export interface PrintStats {
  filament_weight_g: number;
  support_weight_g: number;
  print_time_s: number;
}

export interface PriceBreakdown {
  currency: string;
  price_per_gram: number;
  material: number;
  support: number;
  machine: number;
  energy: number;
  fixed_fee: number;
  subtotal: number;
  tax: number;
  total: number;
}

/** Decimal places of a currency's minor unit (2 for USD/EUR, 0 for JPY, 3 for KWD). */
export function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

export function pricePerGram(m: { price_per_gram?: number; price_per_kg?: number }): number | undefined {
  return m.price_per_gram ?? (m.price_per_kg !== undefined ? m.price_per_kg / 1000 : undefined);
}

export function computePrice(stats: PrintStats, s: ResolvedSettings): PriceBreakdown {
  const perGram = pricePerGram(s.material);
  if (perGram === undefined) throw new Error('material has no price');
  const hours = stats.print_time_s / 3600;
  const modelGrams = Math.max(0, stats.filament_weight_g - stats.support_weight_g);
  const material = modelGrams * perGram;
  const support = stats.support_weight_g * perGram * s.material.support_cost_multiplier;
  const machine = hours * s.printer.hourly_cost;
  const energy = (s.printer.power_watts / 1000) * hours * s.quote.energy_cost_per_kwh;
  const subtotal = material + support + machine + energy + s.quote.fixed_fee;
  const tax = subtotal * (s.quote.tax_rate / 100);
  const digits = currencyDigits(s.quote.currency);
  const round = (v: number) => Math.round(v * 10 ** digits) / 10 ** digits;
  return {
    currency: s.quote.currency,
    price_per_gram: perGram,
    material: round(material),
    support: round(support),
    machine: round(machine),
    energy: round(energy),
    fixed_fee: round(s.quote.fixed_fee),
    subtotal: round(subtotal),
    tax: round(tax),
    total: round(subtotal + tax),
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

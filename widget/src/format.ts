// Locale-aware display of prices, sizes and weights. `locale` undefined means the browser's.
import { CURRENCY_CODES, currencyDigits } from '../../shared/money.ts';
import type { PricedLine } from './types.ts';

export type CurrencyDisplay = 'symbol' | 'narrowSymbol' | 'code' | 'name';

/** A price with its currency's ISO 4217 decimals, as the server computed it (browsers round HUF or IQD to units). */
export function money(value: number, currency: string, locale?: string, display: CurrencyDisplay = 'symbol'): string {
  const digits = CURRENCY_CODES.includes(currency) ? currencyDigits(currency) : undefined;
  try {
    const options = {
      style: 'currency',
      currency,
      currencyDisplay: display,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    } as const;
    return new Intl.NumberFormat(locale, options).format(value);
  } catch {
    // An unknown locale or currency code must not break the price display.
    return `${value.toFixed(2)} ${currency}`;
  }
}

export function number(value: number, locale: string | undefined, digits: number): string {
  try {
    return new Intl.NumberFormat(locale, { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(
      value,
    );
  } catch {
    return value.toFixed(digits);
  }
}

/** "60.0 × 31.0 × 48.0 mm" */
export function dimensions(size: readonly number[], locale?: string): string {
  return `${size.map((v) => number(v, locale, 1)).join(' × ')} mm`;
}

export function grams(value: number, locale?: string): string {
  // A part too light to show in tenths of a gram weighs something all the same: never "0.0 g".
  if (value > 0 && value < 0.05) return `under ${number(0.1, locale, 1)} g`;
  return `${number(value, locale, value < 10 ? 1 : 0)} g`;
}

export function percent(value: number, locale?: string): string {
  return `${number(value, locale, 0)} %`;
}

/** Print times come in seconds; hours and minutes read better than the server's fixed format. */
/** A short wait, as a shopper reads it: "5 s", "40 s", "2 min". */
export function wait(seconds: number): string {
  return seconds < 60 ? `${Math.max(1, Math.round(seconds))} s` : `${Math.round(seconds / 60)} min`;
}

export function duration(seconds: number): string {
  const minutes = Math.max(1, Math.round(seconds / 60));
  const h = Math.floor(minutes / 60),
    m = minutes % 60;
  return h > 0 ? `${h} h ${m} min` : `${m} min`;
}

const ORIENTATION: Record<string, string> = {
  as_uploaded: 'as uploaded',
  turned: 'turned on the plate',
  laid_down: 'laid on its side',
};

/** "PLA, White · Standard · 0.2 mm layers · 20 % infill · 60.0 × 31.0 × 48.0 mm (mm, ×1) · as uploaded": what to make. */
export function lineSummary(line: PricedLine, locale?: string): string {
  const layers = `${number(line.layer_height, locale, 2).replace(/0$/, '')} mm layers`;
  const p = line.placement;
  return [
    line.color ? `${line.material}, ${line.color}` : line.material,
    line.quality_label.includes(' mm') ? line.quality_label : [line.quality_label || line.quality, layers].join(' · '),
    `${percent(line.fill_density, locale)} infill`,
    ...(p
      ? [
          `${dimensions([p.dimensions.x, p.dimensions.y, p.dimensions.z], locale)} (${p.unit}, ×${+p.scale.toPrecision(6)})`,
          ORIENTATION[p.orientation] ?? p.orientation,
        ]
      : []),
  ].join(' · ');
}

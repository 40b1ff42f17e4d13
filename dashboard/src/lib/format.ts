// Display formatting. Times show in the browser's locale and zone; the API's ISO timestamps stay in titles.
import { CURRENCY_CODES, currencyDigits } from '../../../shared/money.ts';

const dateTimeFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function dateTime(iso: string | null | undefined): string {
  return iso ? dateTimeFmt.format(new Date(iso)) : '—';
}

const secondsFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** With seconds: attempts of one delivery are often seconds apart. */
export function dateTimeSeconds(iso: string | null | undefined): string {
  return iso ? secondsFmt.format(new Date(iso)) : '—';
}

export function date(iso: string | null | undefined): string {
  return iso ? dateFmt.format(new Date(iso)) : '—';
}

/** An amount with its currency's ISO 4217 decimals (the browser's own tables round HUF or IQD to whole units). */
export function money(amount: number | undefined, currency = 'USD'): string {
  if (amount === undefined) return '—';
  const digits = CURRENCY_CODES.includes(currency) ? currencyDigits(currency) : undefined;
  try {
    const options = {
      style: 'currency',
      currency,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    } as const;
    return new Intl.NumberFormat(undefined, options).format(amount);
  } catch {
    // an unknown currency code still shows the amount
    return `${amount.toFixed(2)} ${currency}`;
  }
}

export function num(n: number | undefined | null, digits = 2): string {
  if (n === undefined || n === null) return '—';
  return new Intl.NumberFormat(undefined, { maximumFractionDigits: digits }).format(n);
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

export function bytes(n: number): string {
  let v = n;
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return `${num(v, i === 0 ? 0 : 1)} ${UNITS[i]}`;
}

/** "18 min", "1 h 9 min": the one way print times are written, here and in the widget (rounded to whole minutes). */
export function duration(seconds: number | undefined): string {
  if (seconds === undefined) return '—';
  const minutes = Math.max(1, Math.round(seconds / 60));
  const h = Math.floor(minutes / 60),
    m = minutes % 60;
  return h ? `${h} h ${m} min` : `${m} min`;
}

/** Today as YYYY-MM-DD in UTC: the API's date parameters are UTC calendar days. */
export function utcDay(d = new Date()): string {
  return d.toISOString().slice(0, 10);
}

export function daysAgo(days: number): string {
  return utcDay(new Date(Date.now() - days * 86_400_000));
}

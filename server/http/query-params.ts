// Query parameters of /v2/usage and /v2/analytics: UTC date ranges, grouping, formats. A bad value is a 400
// naming the parameter.
import type { Context } from 'koa';
import { canonicalMember } from '../../shared/enums.ts';
import { ValidationError } from './errors.ts';

export const MAX_RANGE_DAYS = 3660;
const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface DateRange {
  /** Inclusive first day, 'YYYY-MM-DD' (UTC). */
  from: string;
  /** Inclusive last day. */
  to: string;
  start: Date;
  /** Exclusive: midnight UTC after the last day. */
  end: Date;
}

function single(ctx: Context, name: string): string | undefined {
  const raw = ctx.query[name];
  if (raw === undefined) return undefined;
  if (Array.isArray(raw)) throw new ValidationError([{ field: name, message: 'must be given once' }]);
  return raw;
}

/** Parses an ISO calendar date (YYYY-MM-DD) as midnight UTC; refuses impossible dates such as 2026-02-30. */
function parseDate(name: string, text: string): Date {
  const m = DATE.exec(text.trim());
  const date = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
  if (!m || !date || date.toISOString().slice(0, 10) !== text.trim()) {
    throw new ValidationError([{ field: name, message: 'must be an ISO date, YYYY-MM-DD (UTC)' }]);
  }
  return date;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * from/to as inclusive UTC dates. Defaults: to = today, from = to - (defaultDays - 1); only from given:
 * to = today; only to given: from = to - (defaultDays - 1).
 */
export function dateRange(ctx: Context, now: Date, defaultDays = 30): DateRange {
  const fromText = single(ctx, 'from');
  const toText = single(ctx, 'to');
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const toDay = toText !== undefined ? parseDate('to', toText) : today;
  const fromDay =
    fromText !== undefined ? parseDate('from', fromText) : new Date(toDay.getTime() - (defaultDays - 1) * DAY_MS);
  if (fromDay > toDay) throw new ValidationError([{ field: 'from', message: `must not be after to (${day(toDay)})` }]);
  const days = (toDay.getTime() - fromDay.getTime()) / DAY_MS + 1;
  if (days > MAX_RANGE_DAYS)
    throw new ValidationError([{ field: 'to', message: `the range may span at most ${MAX_RANGE_DAYS} days` }]);
  return { from: day(fromDay), to: day(toDay), start: fromDay, end: new Date(toDay.getTime() + DAY_MS) };
}

/** The export's range: everything unless from or to is given (then as dateRange). */
export function exportRange(ctx: Context, now: Date): DateRange | null {
  if (ctx.query.from === undefined && ctx.query.to === undefined) return null;
  return dateRange(ctx, now, 30);
}

/** An enumerated query parameter, in any letter case, answered in its canonical spelling. */
export function oneOf<T extends string>(ctx: Context, name: string, allowed: readonly T[], fallback: T): T {
  const raw = single(ctx, name);
  if (raw === undefined) return fallback;
  const value = canonicalMember(allowed, raw);
  if (value === undefined)
    throw new ValidationError([{ field: name, message: `must be one of ${allowed.join(', ')}` }]);
  return value;
}

export function intParam(ctx: Context, name: string, fallback: number, min: number, max: number): number {
  const raw = single(ctx, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ValidationError([{ field: name, message: `must be a whole number from ${min} to ${max}` }]);
  }
  return Number(raw);
}

/** Every UTC day of a range, in order (for zero-filled daily series). */
export function daysOf(range: DateRange): string[] {
  const out: string[] = [];
  for (let t = range.start.getTime(); t < range.end.getTime(); t += DAY_MS) out.push(day(new Date(t)));
  return out;
}

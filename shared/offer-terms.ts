// The offer's selling terms beyond the part itself (docs/offer.md): quantity price breaks, lead-time options and
// the delivery date they promise (the line they price: line-price.ts). Pure TypeScript, shared by the server
// (authoritative), the widget (which shows the same figures) and the dashboard's editor (same checks, same fields).
import type { ConfigIssue } from './settings.ts';

/** From `min_quantity` pieces on, each piece costs `discount_percent` less. */
export interface QuantityBreak {
  min_quantity: number;
  discount_percent: number;
}

/** A delivery option the shopper picks: its surcharge on the line and the business days until it ships. */
export interface LeadTimeOption {
  id: string;
  label: string;
  business_days: number;
  /** Percent added to the line (after quantity breaks); 0: none. */
  surcharge_percent: number;
  /** Amount added to the line, in the shop currency; 0: none. */
  surcharge_amount: number;
}

/** The lead time a quote was made with (part of its choices, so of its signature). */
export type ChosenLeadTime = Pick<LeadTimeOption, 'id' | 'label' | 'business_days'> &
  Pick<LeadTimeOption, 'surcharge_percent' | 'surcharge_amount'>;

export const TERMS_LIMITS = { breaks: 10, leadTimes: 6, maxDays: 365, maxDiscount: 90 } as const;
const MONEY_MAX = 1_000_000;
const ID = /^[a-z0-9][a-z0-9_-]{0,39}$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** At most two decimals: a percent a merchant types (2.5 %), which the integer arithmetic below keeps exact. */
const hundredths = (v: number) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-9;

function unknownKeys(obj: Record<string, unknown>, keys: string[], at: string, issues: ConfigIssue[]) {
  for (const k of Object.keys(obj))
    if (!keys.includes(k)) issues.push({ field: `${at}.${k}`, message: 'is not a known field' });
}

/** Quantity breaks: up to 10, each from 2 pieces on, rising quantities, 0 < discount ≤ 90 % in steps of 0.01. */
export function quantityBreakIssues(raw: unknown): ConfigIssue[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.length > TERMS_LIMITS.breaks)
    return [{ field: 'quantity_breaks', message: `must be a list of up to ${TERMS_LIMITS.breaks} breaks` }];
  const issues: ConfigIssue[] = [];
  let last = 1;
  raw.forEach((b, i) => {
    const at = `quantity_breaks.${i}`;
    if (!isObject(b)) {
      issues.push({ field: at, message: 'must be an object {min_quantity, discount_percent}' });
      return;
    }
    unknownKeys(b, ['min_quantity', 'discount_percent'], at, issues);
    const q = b.min_quantity;
    if (!Number.isInteger(q) || (q as number) < 2 || (q as number) > 100_000)
      issues.push({ field: `${at}.min_quantity`, message: 'must be a whole number of pieces from 2 to 100000' });
    else if ((q as number) <= last)
      issues.push({ field: `${at}.min_quantity`, message: 'must be larger than the break before it' });
    else last = q as number;
    const p = b.discount_percent;
    if (typeof p !== 'number' || !(p > 0) || p > TERMS_LIMITS.maxDiscount || !hundredths(p))
      issues.push({
        field: `${at}.discount_percent`,
        message: `must be a percent above 0 and at most ${TERMS_LIMITS.maxDiscount}, with at most 2 decimals`,
      });
  });
  return issues;
}

function leadTimeIssues(o: unknown, at: string, issues: ConfigIssue[]) {
  if (!isObject(o))
    return issues.push({ field: at, message: 'must be an object {id, label, business_days, surcharge_…}' });
  unknownKeys(o, ['id', 'label', 'business_days', 'surcharge_percent', 'surcharge_amount'], at, issues);
  if (typeof o.id !== 'string' || !ID.test(o.id))
    issues.push({ field: `${at}.id`, message: 'must be 1 to 40 lower-case letters, digits, - or _' });
  if (typeof o.label !== 'string' || !o.label.trim() || o.label.length > 60)
    issues.push({ field: `${at}.label`, message: 'must be a label of 1 to 60 characters' });
  const days = o.business_days;
  if (!Number.isInteger(days) || (days as number) < 0 || (days as number) > TERMS_LIMITS.maxDays)
    issues.push({ field: `${at}.business_days`, message: `must be a whole number from 0 to ${TERMS_LIMITS.maxDays}` });
  const pct = o.surcharge_percent ?? 0;
  if (typeof pct !== 'number' || pct < 0 || pct > 1000 || !hundredths(pct))
    issues.push({
      field: `${at}.surcharge_percent`,
      message: 'must be a percent from 0 to 1000, with at most 2 decimals',
    });
  const amount = o.surcharge_amount ?? 0;
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0 || amount > MONEY_MAX)
    issues.push({ field: `${at}.surcharge_amount`, message: `must be an amount from 0 to ${MONEY_MAX}` });
}

/** Lead-time options: up to 6 with distinct ids, and a default among them when there are any. */
export function leadTimesIssues(raw: unknown, defaultId: unknown): ConfigIssue[] {
  if (raw === undefined || raw === null) {
    return defaultId == null ? [] : [{ field: 'default_lead_time', message: 'must be null without lead_times' }];
  }
  if (!Array.isArray(raw) || raw.length > TERMS_LIMITS.leadTimes)
    return [{ field: 'lead_times', message: `must be a list of up to ${TERMS_LIMITS.leadTimes} options` }];
  const issues: ConfigIssue[] = [];
  raw.forEach((o, i) => {
    leadTimeIssues(o, `lead_times.${i}`, issues);
  });
  const ids = raw.map((o) => (isObject(o) ? o.id : undefined));
  ids.forEach((id, i) => {
    if (ids.indexOf(id) !== i) issues.push({ field: `lead_times.${i}.id`, message: `repeats the id "${String(id)}"` });
  });
  if (raw.length && !ids.includes(defaultId))
    issues.push({ field: 'default_lead_time', message: 'must be the id of one of the lead_times' });
  if (!raw.length && defaultId != null)
    issues.push({ field: 'default_lead_time', message: 'must be null without lead_times' });
  return issues;
}

export const normalizeBreaks = (raw: QuantityBreak[] | null | undefined): QuantityBreak[] =>
  (raw ?? [])
    .map((b) => ({ min_quantity: b.min_quantity, discount_percent: b.discount_percent }))
    .sort((a, b) => a.min_quantity - b.min_quantity);

export const normalizeLeadTimes = (raw: Partial<LeadTimeOption>[] | null | undefined): LeadTimeOption[] =>
  (raw ?? []).map((o) => ({
    id: o.id!,
    label: o.label!.trim(),
    business_days: o.business_days!,
    surcharge_percent: o.surcharge_percent ?? 0,
    surcharge_amount: o.surcharge_amount ?? 0,
  }));

/**
 * The date a part ships: `days` business days after `from` (Monday to Friday count, Saturdays and Sundays do
 * not; an order on a weekend starts counting on Monday). Public holidays are not known and not skipped. Dates are
 * calendar dates (YYYY-MM-DD) in UTC on the server; the widget passes the shopper's local date.
 */
export function deliveryDate(from: { year: number; month: number; day: number }, days: number): string {
  const d = new Date(Date.UTC(from.year, from.month - 1, from.day));
  const weekend = () => d.getUTCDay() === 0 || d.getUTCDay() === 6;
  while (weekend()) d.setUTCDate(d.getUTCDate() + 1);
  for (let left = days; left > 0; ) {
    d.setUTCDate(d.getUTCDate() + 1);
    if (!weekend()) left--;
  }
  return d.toISOString().slice(0, 10);
}

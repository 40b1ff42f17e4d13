// What one widget key's shoppers may spend (docs/limits.md, "Widget budgets"): part of the offer, as the group
// `widget_budget`. Pure TypeScript, shared by the server (authoritative) and the dashboard's editor.
import type { ConfigIssue } from './settings.ts';

export interface WidgetBudget {
  /** Quotes one shopper session may ask for per UTC hour (every quote request counts, re-quotes included). */
  quotes_per_shopper_hour: number;
  /** Quotes all shoppers of the key together may ask for per UTC day. */
  quotes_per_day: number;
  /** Percent of the account's monthly quote allowance the key's shoppers may use (counted as the allowance counts). */
  monthly_quote_share_percent: number;
  /** Bytes the key's shoppers' uploads may keep stored (counted against the account's storage too). */
  upload_storage_bytes: number;
}

export const DEFAULT_WIDGET_BUDGET: WidgetBudget = {
  quotes_per_shopper_hour: 60,
  quotes_per_day: 1000,
  monthly_quote_share_percent: 80,
  upload_storage_bytes: 512 * 1024 * 1024,
};

/** Inclusive bounds of each field (whole numbers). */
export const WIDGET_BUDGET_BOUNDS: Record<keyof WidgetBudget, { min: number; max: number }> = {
  quotes_per_shopper_hour: { min: 1, max: 100_000 },
  quotes_per_day: { min: 1, max: 10_000_000 },
  monthly_quote_share_percent: { min: 0, max: 100 },
  upload_storage_bytes: { min: 0, max: 2 ** 50 },
};

const FIELDS = Object.keys(WIDGET_BUDGET_BOUNDS) as (keyof WidgetBudget)[];

/** Problems of an offer's `widget_budget` (absent: the defaults); each names `widget_budget.<field>`. */
export function widgetBudgetIssues(raw: unknown): ConfigIssue[] {
  if (raw === undefined) return [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return [{ field: 'widget_budget', message: `must be an object {${FIELDS.join(', ')}}` }];
  const issues: ConfigIssue[] = [];
  for (const [name, value] of Object.entries(raw)) {
    const bounds = WIDGET_BUDGET_BOUNDS[name as keyof WidgetBudget];
    if (!bounds) issues.push({ field: `widget_budget.${name}`, message: 'is not a known field' });
    else if (!Number.isInteger(value) || (value as number) < bounds.min || (value as number) > bounds.max)
      issues.push({
        field: `widget_budget.${name}`,
        message: `must be a whole number from ${bounds.min} to ${bounds.max}`,
      });
  }
  return issues;
}

/** A valid `widget_budget` with each missing field at its default (undefined: every default). */
export function normalizeWidgetBudget(raw: Partial<WidgetBudget> | undefined): WidgetBudget {
  return { ...DEFAULT_WIDGET_BUDGET, ...raw };
}

/** The key's share of a monthly allowance, in whole quotes (rounded down, so the share never exceeds its percent). */
export const monthlyShare = (allowance: number, percent: number) => Math.floor((allowance * percent) / 100);

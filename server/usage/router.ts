// GET /v2/quota (allowances, usage, reset time) and GET /v2/usage (endpoint statistics, material usage,
// daily trends) for the authenticated account.
import Router from '@koa/router';
import { canonicalMember } from '../../shared/enums.ts';
import { API, allow, type RouterPorts } from '../accounts/access/index.ts';
import type { AppState, Deps } from '../deps.ts';
import { dateRange, daysOf, ValidationError } from '../http/index.ts';
import { CALLER_VIAS, type CallerVia, widgetBudgetUsage } from '../limits/index.ts';
import { dailyQuotes, materialUsage } from './analytics-sql.ts';
import { callsByVia, dailyCalls, endpointStats } from './sql.ts';

const round2 = (n: number) => Math.round(n * 100) / 100;

/** ?via=token,widget: which callers' requests the endpoint statistics and daily calls count (default: all). */
function viaFilter(raw: string | string[] | undefined): CallerVia[] {
  if (raw === undefined) return [...CALLER_VIAS];
  const parts = (Array.isArray(raw) ? raw.join(',') : raw).split(',').map((p) => p.trim());
  const picked = parts.map((p) => canonicalMember(CALLER_VIAS, p));
  if (!parts.length || picked.some((p) => p === undefined)) {
    throw new ValidationError([
      { field: 'via', message: `must be a comma-separated list of ${CALLER_VIAS.join(', ')}` },
    ]);
  }
  return CALLER_VIAS.filter((v) => picked.includes(v));
}

export function usageRouter(deps: RouterPorts & Pick<Deps, 'plans' | 'limits'>) {
  const router = new Router<AppState>();
  router.get('/v2/usage', allow(deps, API), async (ctx) => {
    const range = dateRange(ctx, deps.now(), 30);
    const via = viaFilter(ctx.query.via);
    const accountId = ctx.state.auth.account.id;
    // Requests of this process still in the buffer are written first, so callers see their latest calls.
    await deps.limits.requests.flush();
    const [endpoints, materials, calls, quotes, callers, widgetBudgets] = await Promise.all([
      endpointStats(deps.db, accountId, range.start, range.end, via),
      materialUsage(deps.db, accountId, range.start, range.end),
      dailyCalls(deps.db, accountId, range.start, range.end, via),
      dailyQuotes(deps.db, accountId, range.start, range.end),
      callsByVia(deps.db, accountId, range.start, range.end),
      widgetBudgetUsage(deps, ctx.state.auth.account),
    ]);
    const callsByDay = new Map(calls.map((c) => [c.day, c]));
    const quotesByDay = new Map(quotes.map((q) => [q.day, q]));
    const daily = daysOf(range).map((date) => ({
      date,
      calls: callsByDay.get(date)?.calls ?? 0,
      errors: callsByDay.get(date)?.errors ?? 0,
      cancelled: callsByDay.get(date)?.cancelled ?? 0,
      quotes: quotesByDay.get(date)?.quotes ?? 0,
      grams: quotesByDay.get(date)?.grams ?? 0,
    }));
    ctx.body = {
      from: range.from,
      to: range.to,
      via,
      totals: {
        calls: endpoints.reduce((n, e) => n + e.calls, 0),
        errors: endpoints.reduce((n, e) => n + e.errors, 0),
        cancelled: endpoints.reduce((n, e) => n + e.cancelled, 0),
        quotes: materials.reduce((n, m) => n + m.quotes, 0),
        grams: round2(materials.reduce((n, m) => n + m.grams, 0)),
      },
      callers,
      endpoints,
      materials,
      daily,
      widget_budgets: widgetBudgets,
    };
  });

  return router;
}

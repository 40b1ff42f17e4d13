// /v2/analytics: quote statistics, popular materials and printer configurations, cost trends, and the
// streamed export. Only the caller's account's quotes; UTC days, ISO weeks (Monday) and months.
import Router from '@koa/router';
import { API, allow, type RouterPorts } from '../accounts/access/index.ts';
import type { AppState, Deps } from '../deps.ts';
import { dateRange, exportRange, intParam, oneOf } from '../http/index.ts';
import {
  cartConversion,
  costTrends,
  type GroupBy,
  materialTrends,
  materialUsage,
  orderValue,
  popularColors,
  popularConfigurations,
  popularPrinters,
  pricesByCurrency,
  quoteTotals,
  requestCounts,
} from './analytics-sql.ts';
import { type ExportDataset, type ExportFormat, exportStream } from './export.ts';

const GROUPS: readonly GroupBy[] = ['day', 'week', 'month'];
const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

export function analyticsRouter(deps: RouterPorts & Pick<Deps, 'limits'>) {
  const router = new Router<AppState>();

  router.get('/v2/analytics/quotes', allow(deps, API), async (ctx) => {
    const range = dateRange(ctx, deps.now(), 30);
    const groupBy = oneOf(ctx, 'group_by', GROUPS, 'day');
    const id = ctx.state.auth.account.id;
    const [totals, prices, materials, trends, conversion, orders, requests] = await Promise.all([
      quoteTotals(deps.db, id, range.start, range.end),
      pricesByCurrency(deps.db, id, range.start, range.end),
      materialUsage(deps.db, id, range.start, range.end),
      materialTrends(deps.db, id, range.start, range.end, groupBy),
      cartConversion(deps.db, id, range.start, range.end),
      orderValue(deps.db, id, range.start, range.end),
      requestCounts(deps.db, id, range.start, range.end),
    ]);
    const share = (n: number) => (conversion.quoted_uploads ? round4(n / conversion.quoted_uploads) : null);
    const finished = totals.completed + totals.failed;
    ctx.body = {
      from: range.from,
      to: range.to,
      group_by: groupBy,
      totals: { ...totals, success_rate: finished ? round4(totals.completed / finished) : null },
      prices,
      materials: materials.map((m) => ({ ...m, share: totals.completed ? round4(m.quotes / totals.completed) : 0 })),
      material_trends: trends,
      conversion: {
        ...conversion,
        order_rate: share(conversion.ordered_uploads),
        cart_rate: share(conversion.carted_uploads),
      },
      orders,
      quote_requests: requests,
    };
  });

  router.get('/v2/analytics/popular', allow(deps, API), async (ctx) => {
    const range = dateRange(ctx, deps.now(), 30);
    const limit = intParam(ctx, 'limit', 10, 1, 100);
    const id = ctx.state.auth.account.id;
    const [materials, colors, printers, configurations] = await Promise.all([
      materialUsage(deps.db, id, range.start, range.end),
      popularColors(deps.db, id, range.start, range.end, limit),
      popularPrinters(deps.db, id, range.start, range.end, limit),
      popularConfigurations(deps.db, id, range.start, range.end, limit),
    ]);
    ctx.body = {
      from: range.from,
      to: range.to,
      limit,
      materials: materials.slice(0, limit),
      colors,
      printers,
      configurations,
    };
  });

  router.get('/v2/analytics/cost-trends', allow(deps, API), async (ctx) => {
    const range = dateRange(ctx, deps.now(), 30);
    const groupBy = oneOf(ctx, 'group_by', GROUPS, 'day');
    const series = await costTrends(deps.db, ctx.state.auth.account.id, range.start, range.end, groupBy);
    ctx.body = { from: range.from, to: range.to, group_by: groupBy, series };
  });

  router.get('/v2/analytics/export', allow(deps, API), async (ctx) => {
    const format = oneOf<ExportFormat>(ctx, 'format', ['csv', 'json'], 'csv');
    const dataset = oneOf<ExportDataset>(ctx, 'dataset', ['quotes', 'usage'], 'quotes');
    const range = exportRange(ctx, deps.now());
    if (dataset === 'usage') await deps.limits.requests.flush();
    const stamp = deps.now().toISOString().slice(0, 10);
    ctx.set('Content-Disposition', `attachment; filename="slicequote-${dataset}-${stamp}.${format}"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = format === 'csv' ? 'text/csv; charset=utf-8; header=present' : 'application/json; charset=utf-8';
    ctx.body = exportStream(deps.db, { accountId: ctx.state.auth.account.id, dataset, format, range });
  });

  return router;
}

// Quotes: sync (answers 202 with the job when slicing outlasts QUOTE_SYNC_WAIT_MS) and async,
// jobs, and the quote history.
import Router from '@koa/router';
import type { Deps, AppState } from '../deps.ts';
import { allow, API, API_OR_WIDGET } from '../accounts/access.ts';
import { jsonBody } from '../http/json-body.ts';
import { createQuote } from './service.ts';
import { presentQuote, presentJob } from './present.ts';
import { quoteById, quoteForCaller, listQuotes, softDeleteQuote, type QuoteRow } from './sql.ts';
import { ApiError, notFound } from '../http/errors.ts';
import { routeParam } from '../http/route-params.ts';
import { pageRequest, pageResponse } from '../http/pagination.ts';
import { idempotent } from '../idempotency/middleware.ts';

function failure(row: QuoteRow): ApiError {
  const e = row.error ?? { code: 'quote_failed', message: 'The quote failed.', status: 500 };
  return new ApiError(e.status, e.code, e.message, { ...e.details, quote_id: row.id });
}

export function quotesRouter(deps: Deps) {
  const router = new Router<AppState>();
  const once = idempotent(deps);
  const accepted = (row: QuoteRow) => ({
    job_id: row.id,
    quote_id: row.id,
    status: row.status,
    status_url: `/v2/jobs/${row.id}`,
  });

  router.post('/v2/file/quote/:file_id', allow(deps, API_OR_WIDGET, 'quote'), jsonBody, once, async (ctx) => {
    let row = await createQuote(deps, ctx.state.auth, routeParam(ctx, 'file_id'), ctx.request.body, 'sync');
    if (row.status !== 'completed' && (await deps.jobs.waitFor(row.id, deps.config.quoteSyncWaitMs))) {
      row = (await quoteById(deps.db, row.account_id, row.id))!;
    }
    if (row.status === 'failed') throw failure(row);
    if (row.status !== 'completed') {
      ctx.status = 202;
      ctx.set('Location', `/v2/jobs/${row.id}`);
      ctx.body = accepted(row);
      return;
    }
    ctx.body = presentQuote(row, deps.now());
  });

  router.post('/v2/file/quote/:file_id/async', allow(deps, API_OR_WIDGET, 'quote'), jsonBody, once, async (ctx) => {
    const row = await createQuote(deps, ctx.state.auth, routeParam(ctx, 'file_id'), ctx.request.body, 'async');
    ctx.status = 202;
    ctx.set('Location', `/v2/jobs/${row.id}`);
    ctx.body = accepted(row);
  });

  router.get('/v2/jobs/:job_id', allow(deps, API_OR_WIDGET), async (ctx) => {
    const row = await quoteForCaller(deps.db, ctx.state.auth, routeParam(ctx, 'job_id'));
    if (!row) throw notFound('job', ctx.params.job_id);
    ctx.body = presentJob(row, deps.now());
  });

  router.get('/v2/quotes', allow(deps, API), async (ctx) => {
    const page = pageRequest(ctx);
    const { rows, total } = await listQuotes(deps.db, ctx.state.auth.account.id, page.limit, page.offset);
    ctx.body = pageResponse(
      rows.map((r) => presentQuote(r, deps.now())),
      page,
      total,
    );
  });

  router.get('/v2/quotes/:quote_id', allow(deps, API_OR_WIDGET), async (ctx) => {
    const row = await quoteForCaller(deps.db, ctx.state.auth, routeParam(ctx, 'quote_id'));
    if (!row) throw notFound('quote', ctx.params.quote_id);
    ctx.body = presentQuote(row, deps.now());
  });

  router.delete('/v2/quotes/:quote_id', allow(deps, API), async (ctx) => {
    if (!(await softDeleteQuote(deps.db, ctx.state.auth.account.id, routeParam(ctx, 'quote_id'))))
      throw notFound('quote', ctx.params.quote_id);
    ctx.body = { quote_id: ctx.params.quote_id, deleted: true };
  });

  return router;
}

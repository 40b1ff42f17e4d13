// Quotes: sync (answers 202 with the job when slicing outlasts QUOTE_SYNC_WAIT_MS) and async,
// jobs, and the quote history.
import Router from '@koa/router';
import type { Context } from 'koa';
import { type AccessPorts, API, API_OR_WIDGET, allow } from '../accounts/access/index.ts';
import type { AppState, Deps } from '../deps.ts';
import { ApiError, answerJsonParts, jsonBody, notFound, pageRequest, routeParam } from '../http/index.ts';
import { idempotent } from '../idempotency/index.ts';
import { historyPages } from './history.ts';
import type { PresentedEstimate } from './model.ts';
import { presentJob, presentQuote } from './present.ts';
import { createQuote, type QuotePorts } from './service.ts';
import { quoteForViewer } from './shopper-view.ts';
import { type QuoteRow, quoteById, quoteForCaller, softDeleteQuote } from './sql.ts';
import { jobProgress } from './time-left.ts';

/** The longest a job read may be held with `Prefer: wait` (it answers as soon as the job finishes). */
export const JOB_WAIT_MAX_S = 10;

const finished = (row: QuoteRow) => row.status === 'completed' || row.status === 'failed';

/**
 * How long a request holds the connection: `unstatedMs` without a preference (QUOTE_SYNC_WAIT_MS for a synchronous
 * quote, nothing for a job read), what the client asks with `Prefer: wait=<seconds>` up to `configuredMs`, nothing
 * with `Prefer: respond-async` (RFC 7240); the answer says what was applied.
 */
function preferredWait(ctx: Context, configuredMs: number, unstatedMs = configuredMs): number {
  const prefer = ctx.get('prefer').toLowerCase();
  if (/(^|[\s,;])respond-async($|[\s,;])/.test(prefer)) {
    ctx.set('Preference-Applied', 'respond-async');
    return 0;
  }
  const wait = /(^|[\s,;])wait\s*=\s*(\d{1,6})($|[\s,;])/.exec(prefer)?.[2];
  if (wait === undefined) return unstatedMs;
  const ms = Math.min(Number(wait) * 1000, configuredMs);
  ctx.set('Preference-Applied', `wait=${Math.round(ms / 1000)}`);
  return ms;
}

/**
 * The quote's estimate if it is made within QUOTE_ESTIMATE_WAIT_MS, else null; null too the moment the job finishes
 * or fails first (the answer is then the job's outcome, not an estimate of it). The estimate is still made and stored
 * either way: the job read shows it.
 */
async function estimateInTime(
  deps: Pick<Deps, 'config' | 'jobs'>,
  jobId: string,
  estimate: Promise<PresentedEstimate | null>,
): Promise<PresentedEstimate | null> {
  const stop = new AbortController();
  try {
    const ended = deps.jobs.waitFor(jobId, deps.config.quoteEstimateWaitMs, stop.signal).then(() => null);
    return await Promise.race([estimate, ended]);
  } finally {
    stop.abort(); // the estimate won: the wait's timer and poll end now
  }
}

function failure(row: QuoteRow): ApiError {
  const e = row.error ?? { code: 'quote_failed', message: 'The quote failed.', status: 500 };
  return new ApiError(e.status, e.code, e.message, { ...e.details, quote_id: row.id });
}

export function quotesRouter(deps: AccessPorts & QuotePorts) {
  const router = new Router<AppState>();
  const once = idempotent(deps);
  const historyPage = historyPages(deps.db);
  /**
   * 202: the job to poll, with the instant estimate when it was made in time (estimateInTime), else null. A client
   * needs a prompt answer however loaded the host: measuring a large mesh waits its turn for the parse workers, and
   * a 202 that waited for it could outlast the client's own timeout. An estimate made later is stored on the quote
   * and shown by the job read; a client whose slice finished first gets the exact quote instead.
   */
  const accept = (ctx: Context, row: QuoteRow, estimate: PresentedEstimate | null) => {
    ctx.status = 202;
    ctx.set('Location', `/v2/jobs/${row.id}`);
    ctx.body = { job_id: row.id, quote_id: row.id, status: row.status, status_url: `/v2/jobs/${row.id}`, estimate };
  };

  router.post('/v2/file/quote/:file_id', allow(deps, API_OR_WIDGET, 'quote'), jsonBody, once, async (ctx) => {
    const created = await createQuote(deps, ctx.state.auth, routeParam(ctx, 'file_id'), ctx.request.body, 'sync');
    let row = created.row;
    const waitMs = preferredWait(ctx, deps.config.quoteSyncWaitMs);
    if (row.status !== 'completed' && (await deps.jobs.waitFor(row.id, waitMs))) {
      row = (await quoteById(deps.db, row.account_id, row.id))!;
    }
    if (row.status !== 'completed' && row.status !== 'failed') {
      const estimate = await estimateInTime(deps, row.id, created.estimate);
      // The slice may have finished while the estimate was made: then the exact quote is the answer.
      row = (await quoteById(deps.db, row.account_id, row.id))!;
      if (row.status !== 'completed' && row.status !== 'failed') return accept(ctx, row, estimate);
    }
    if (row.status === 'failed') throw failure(row);
    ctx.body = await quoteForViewer(deps, ctx.state.auth, presentQuote(row, deps.now()));
  });

  router.post('/v2/file/quote/:file_id/async', allow(deps, API_OR_WIDGET, 'quote'), jsonBody, once, async (ctx) => {
    const created = await createQuote(deps, ctx.state.auth, routeParam(ctx, 'file_id'), ctx.request.body, 'async');
    accept(ctx, created.row, await estimateInTime(deps, created.row.id, created.estimate));
  });

  // `Prefer: wait=<seconds>` holds the answer until the job finishes (at most JOB_WAIT_MAX_S): the caller learns of
  // the exact price the moment it exists, without a polling gap, and still sees progress between answers.
  router.get('/v2/jobs/:job_id', allow(deps, API_OR_WIDGET), async (ctx) => {
    const id = routeParam(ctx, 'job_id');
    let row = await quoteForCaller(deps.db, ctx.state.auth, id);
    if (!row) throw notFound('job', ctx.params.job_id);
    const waitMs = preferredWait(ctx, JOB_WAIT_MAX_S * 1000, 0);
    // Read again after the wait, finished or not: a job still running has moved on (its stage, its expected end),
    // and its time left is told as of the answer, not as of the question.
    if (waitMs > 0 && !finished(row)) {
      await deps.jobs.waitFor(row.id, waitMs);
      row = (await quoteForCaller(deps.db, ctx.state.auth, id)) ?? row;
    }
    const now = deps.now();
    const job = presentJob(row, now, await jobProgress(deps, row, now));
    ctx.body = job.result ? { ...job, result: await quoteForViewer(deps, ctx.state.auth, job.result) } : job;
  });

  router.get('/v2/quotes', allow(deps, API), async (ctx) => {
    const page = pageRequest(ctx);
    answerJsonParts(ctx, await historyPage(ctx.state.auth.account.id, page, deps.now()));
  });

  router.get('/v2/quotes/:quote_id', allow(deps, API_OR_WIDGET), async (ctx) => {
    const row = await quoteForCaller(deps.db, ctx.state.auth, routeParam(ctx, 'quote_id'));
    if (!row) throw notFound('quote', ctx.params.quote_id);
    ctx.body = await quoteForViewer(deps, ctx.state.auth, presentQuote(row, deps.now()));
  });

  router.delete('/v2/quotes/:quote_id', allow(deps, API), async (ctx) => {
    if (!(await softDeleteQuote(deps.db, ctx.state.auth.account.id, routeParam(ctx, 'quote_id'))))
      throw notFound('quote', ctx.params.quote_id);
    ctx.body = { quote_id: ctx.params.quote_id, deleted: true };
  });

  return router;
}

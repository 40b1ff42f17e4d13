// What a quote may take before it is made, asked of limits/ in one place: the month's allowance and the widget's
// share of it (a shopper exploring an upload that already counted takes no more), the shopper's hourly quotes,
// and, for a quote that will be sliced, slicer time and a place in the queue. Every refusal here comes before the
// quote is recorded or any slicer runs (docs/limits.md).
import type { Auth } from '../accounts/access/index.ts';
import type { Deps } from '../deps.ts';
import type { FileRow } from '../files/index.ts';
import { ApiError } from '../http/index.ts';
import {
  chargeWidgetQuote,
  checkQuoteQuota,
  checkSlicerBudget,
  checkWidgetShare,
  monthPeriod,
  type WidgetQuoteCaller,
} from '../limits/index.ts';
import { countWaitingJobs, explorationCounted } from './sql.ts';

/**
 * The allowance a quote takes: the account's month (and the widget key's share of it), unless a shopper explores
 * an upload that already counted; and a shopper's every request, which takes from their hour and the shop's day.
 */
export async function admitQuote(
  deps: Pick<Deps, 'db' | 'plans' | 'now' | 'events'>,
  auth: Auth,
  file: FileRow,
): Promise<void> {
  const shopper = widgetQuoteCaller(auth);
  if (!(auth.widgetKeyId && (await explorationCounted(deps.db, file.id, false, monthPeriod(deps.now()).start)))) {
    await checkQuoteQuota(deps, auth.account);
    if (shopper) await checkWidgetShare(deps, shopper);
  }
  if (shopper) await chargeWidgetQuote(deps, shopper);
}

/** A storefront shopper's request: the widget key and shopper session its budgets are counted by. */
function widgetQuoteCaller(auth: Auth): WidgetQuoteCaller | null {
  if (auth.via !== 'widget' || !auth.widgetKeyId || !auth.shopperHash) return null;
  return { account: auth.account, widgetKeyId: auth.widgetKeyId, shopperHash: auth.shopperHash, caller: auth.caller };
}

/**
 * A quote that must be sliced takes a queue place and slicer time: refused when the caller has spent its hourly
 * slicer budget (429), when this shopper already has SLICER_QUEUE_PER_SHOPPER quotes waiting (429), when the
 * account has SLICER_QUEUE_PER_ACCOUNT waiting (503: that account only), or at the global safety bound (503).
 */
export async function admitSlice(deps: Pick<Deps, 'config' | 'db' | 'now'>, auth: Auth): Promise<void> {
  const c = deps.config;
  const shopper = auth.via === 'widget';
  const budget = shopper ? c.slicerSecondsPerShopperHour : c.slicerSecondsPerCallerHour;
  await checkSlicerBudget(deps.db, auth.caller, budget, deps.now());
  const waiting = await countWaitingJobs(deps.db, auth.account.id, auth.caller);
  if (shopper && waiting.caller >= c.slicerQueuePerShopper) {
    throw new ApiError(
      429,
      'caller_queue_full',
      `This shopper already has ${waiting.caller} quotes waiting for the slicer; wait for them before asking for more.`,
      { queued: waiting.caller, limit: c.slicerQueuePerShopper },
      { 'Retry-After': '10' },
    );
  }
  if (waiting.account >= c.slicerQueuePerAccount || waiting.total >= c.slicerQueueSize) {
    throw new ApiError(503, 'queue_full', 'Too many quotes are waiting to be sliced; retry shortly.', undefined, {
      'Retry-After': '30',
    });
  }
}

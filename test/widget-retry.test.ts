// The widget's asking again (widget/src/retry.ts) and the rule a price follows: a shopper flicking through options
// does not see a short rate-limit wait, but sees a long one, and a refusal that asking again would not change.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WidgetApi } from '../widget/src/api.ts';
import { WidgetError } from '../widget/src/errors.ts';
import { fetchQuote } from '../widget/src/quote-flow.ts';
import { retrying, sleep } from '../widget/src/retry.ts';
import type { Quote, Selection } from '../widget/src/types.ts';

const SELECTION = { material: 'PLA', quality: 'standard', infill: 20 } as Selection;
const QUOTE = { quote_id: 'q_1' } as unknown as Quote;
const limited = (retryAfterMs: number) => new WidgetError('rate_limited', 'Too many requests', true, retryAfterMs);

/** A widget API whose quote() answers each call with the next of `answers` (an error is thrown), counting calls. */
function quoting(answers: (Error | Quote)[]) {
  const api = { calls: 0 } as unknown as WidgetApi & { calls: number };
  api.quote = async () => {
    const answer = answers[api.calls++];
    if (answer instanceof Error) throw answer;
    return { quote: answer! };
  };
  return api;
}

const price = (api: WidgetApi) => fetchQuote(api, 'f_1', SELECTION, () => undefined, new AbortController().signal);

test('retrying calls again while the rule gives a wait, with the attempt counted from 1, and throws the final failure', async () => {
  const seen: number[] = [];
  let calls = 0;
  const failure = new Error('still busy');
  await assert.rejects(
    retrying(
      async () => {
        calls++;
        throw failure;
      },
      (e, attempt) => {
        assert.equal(e, failure);
        seen.push(attempt);
        return attempt < 3 ? 0 : null;
      },
    ),
    failure,
  );
  assert.equal(calls, 3);
  assert.deepEqual(seen, [1, 2, 3]);
  assert.equal(
    await retrying(
      async () => 'done',
      () => 0,
    ),
    'done',
  );
});

test('a wait between tries ends at once when the signal aborts', async () => {
  const stop = new AbortController();
  const waiting = sleep(60_000, stop.signal);
  stop.abort(new Error('shopper left'));
  await assert.rejects(waiting, /shopper left/);
  await assert.rejects(
    retrying(
      () => Promise.reject(new Error('busy')),
      () => 60_000,
      stop.signal,
    ),
    /shopper left/,
  );
});

test('a price absorbs two short rate-limit waits and is shown; a third refusal is the shopper to see', async () => {
  const twice = quoting([limited(1), limited(1), QUOTE]);
  assert.equal(await price(twice), QUOTE);
  assert.equal(twice.calls, 3);

  const thrice = quoting([limited(1), limited(1), limited(1), QUOTE]);
  await assert.rejects(price(thrice), (e: WidgetError) => e.code === 'rate_limited');
  assert.equal(thrice.calls, 3);
});

test('a price is not asked again after a long rate-limit wait or a refusal that is not a rate limit', async () => {
  const long = quoting([limited(30_000), QUOTE]);
  await assert.rejects(price(long), (e: WidgetError) => e.retryAfterMs === 30_000);
  assert.equal(long.calls, 1);

  const refused = quoting([new WidgetError('model_too_complex', 'Too complex', false), QUOTE]);
  await assert.rejects(price(refused), (e: WidgetError) => e.code === 'model_too_complex');
  assert.equal(refused.calls, 1);
});

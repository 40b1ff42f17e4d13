// The retry schedule (server/webhooks/backoff.ts): a doubling step, capped, the delay in its upper half.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_RETRY_DELAY_MS, retryDelayMs } from '../server/webhooks/backoff.ts';

test('the step doubles with each failed attempt and the jitter spreads the delay over its upper half', () => {
  const base = 30_000;
  assert.deepEqual(
    [1, 2, 3].map((attempt) => retryDelayMs(attempt, base, () => 0)),
    [15_000, 30_000, 60_000],
  );
  assert.deepEqual(
    [1, 2, 3].map((attempt) => retryDelayMs(attempt, base, () => 0.5)),
    [22_500, 45_000, 90_000],
  );
  // Math.random stays below 1: the delay stays below the step.
  assert.equal(
    retryDelayMs(1, base, () => 0.999_999),
    30_000,
  );
});

test('no delay exceeds the cap, however many attempts failed', () => {
  assert.equal(
    retryDelayMs(40, 30_000, () => 0.999_999),
    MAX_RETRY_DELAY_MS,
  );
  assert.equal(
    retryDelayMs(40, 30_000, () => 0),
    MAX_RETRY_DELAY_MS / 2,
  );
});

test('with the default random, many deliveries failing together retry at spread-out times', () => {
  const delays = Array.from({ length: 200 }, () => retryDelayMs(1, 30_000));
  for (const d of delays) assert.ok(d >= 15_000 && d <= 30_000, `${d} ms lies in the upper half of the step`);
  assert.ok(new Set(delays).size > 100, 'not all at the same moment');
});

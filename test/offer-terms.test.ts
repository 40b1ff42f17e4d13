// The offer's selling terms as pure functions (shared/offer-terms.ts): the delivery date's business-day rule and
// the ratio-scaled estimate of the side-by-side prices (the cart line's arithmetic: line-price.test.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scalePriceFromExact } from '../server/quotes/material-prices.ts';
import { deliveryDate } from '../shared/offer-terms.ts';

const day = (iso: string) => {
  const [year, month, d] = iso.split('-').map(Number);
  return { year: year!, month: month!, day: d! };
};

test('delivery dates count Monday to Friday; a weekend order starts counting on Monday', () => {
  // 2026-11-26 is a Thursday.
  assert.equal(deliveryDate(day('2026-11-26'), 0), '2026-11-26');
  assert.equal(deliveryDate(day('2026-11-26'), 1), '2026-11-27', 'Thursday + 1: Friday');
  assert.equal(deliveryDate(day('2026-11-26'), 2), '2026-11-30', 'Thursday + 2: over the weekend to Monday');
  assert.equal(deliveryDate(day('2026-11-26'), 5), '2026-12-03', 'a whole working week later');
  assert.equal(deliveryDate(day('2026-11-28'), 0), '2026-11-30', 'Saturday, 0 days: Monday');
  assert.equal(deliveryDate(day('2026-11-29'), 1), '2026-12-01', 'Sunday + 1: Tuesday');
  assert.equal(deliveryDate(day('2026-12-31'), 1), '2027-01-01', 'across the year');
});

test('a ratio-scaled estimate keeps the exact price and the estimates’ ratio, half up', () => {
  assert.equal(scalePriceFromExact(250, 200, 300), 375);
  assert.equal(scalePriceFromExact(101, 3, 1), 34, '33.67 → 34');
  assert.equal(scalePriceFromExact(5, 2, 1), 3, '2.5 → 3');
});

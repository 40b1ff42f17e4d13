// The offer's selling terms as pure functions (shared/offer-terms.ts): the delivery date's business-day rule, the
// cart line's exact minor units, and the ratio-scaled estimate of the side-by-side prices.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breakFor, deliveryDate, priceLine } from '../shared/offer-terms.ts';
import { scalePriceFromExact } from '../server/quotes/material-prices.ts';

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

test('a cart line adds up in minor units: break half up, surcharge on the discounted line, then the minimum', () => {
  const breaks = [
    { min_quantity: 10, discount_percent: 5 },
    { min_quantity: 50, discount_percent: 12.5 },
  ];
  assert.equal(breakFor(breaks, 9), null);
  assert.equal(breakFor(breaks, 50)?.discount_percent, 12.5);
  const express = { surcharge_percent: 20, surcharge_amount: 2.5 };
  // 1.37 × 11 = 15.07; 5 % = 0.7535 → 0.75; (15.07 − 0.75) × 20 % = 2.864 → 2.86, + 2.50 = 5.36.
  const line = priceLine(1.37, 11, { quantity_breaks: breaks, lead_time: express, minimum_line_price: null }, 2);
  assert.deepEqual(line.minor_units, {
    subtotal: 1507,
    quantity_discount: 75,
    lead_time_surcharge: 536,
    minimum_line_adjustment: 0,
    total: 1968,
  });
  assert.equal(line.total, 19.68);
  // 0.01 × 53 = 0.53; 12.5 % = 0.06625 → 0.07 (half up, never a float's 0.0662499…).
  const tiny = priceLine(0.01, 53, { quantity_breaks: breaks, minimum_line_price: 1 }, 2);
  assert.deepEqual([tiny.quantity_discount, tiny.minimum_line_adjustment, tiny.total], [0.07, 0.54, 1]);
  // A quote in yen (0 digits) converted from the shop's dollars: the amount and the minimum follow the rate.
  const yen = priceLine(
    437,
    2,
    { lead_time: { surcharge_percent: 0, surcharge_amount: 5 }, minimum_line_price: null, rate: 151.37 },
    0,
  );
  assert.deepEqual([yen.lead_time_surcharge, yen.total], [757, 874 + 757]);
});

test('a quantity break discounts parts down to their minimum price per part, never below it', () => {
  const deep = [{ min_quantity: 10, discount_percent: 90 }];
  // A part raised to its minimum ($1.00 + 20 % tax = $1.20): 10 of them cost 12.00, a 90 % break takes nothing off.
  const atMinimum = priceLine(1.2, 10, { quantity_breaks: deep, minimum_line_price: null, minimum_unit_price: 1.2 }, 2);
  assert.deepEqual([atMinimum.quantity_discount, atMinimum.total], [0, 12]);
  // A $3.00 part with a $1.20 floor: 90 % would leave $3.00 for ten; the break stops at ten floors, $12.00.
  const above = priceLine(3, 10, { quantity_breaks: deep, minimum_line_price: null, minimum_unit_price: 1.2 }, 2);
  assert.deepEqual([above.quantity_discount, above.total], [18, 12]);
  // A small break above the floor is taken whole: 5 % of $30.00.
  const small = priceLine(
    3,
    10,
    { quantity_breaks: [{ min_quantity: 10, discount_percent: 5 }], minimum_line_price: null, minimum_unit_price: 1.2 },
    2,
  );
  assert.deepEqual([small.quantity_discount, small.total], [1.5, 28.5]);
  // No minimum (null, or a quote made before it was recorded): the break as set.
  const none = priceLine(3, 10, { quantity_breaks: deep, minimum_line_price: null, minimum_unit_price: null }, 2);
  assert.equal(none.total, 3);
});

test('a ratio-scaled estimate keeps the exact price and the estimates’ ratio, half up', () => {
  assert.equal(scalePriceFromExact(250, 200, 300), 375);
  assert.equal(scalePriceFromExact(101, 3, 1), 34, '33.67 → 34');
  assert.equal(scalePriceFromExact(5, 2, 1), 3, '2.5 → 3');
});

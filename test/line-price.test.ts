// The one money function of a cart line (shared/line-price.ts), which the server, the widget and the dashboard call:
// its edge cases, worked by hand in minor units.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  breakFor,
  breakPrices,
  breakStoppedAtMinimum,
  percentOf,
  priceLine,
  sumAmounts,
} from '../shared/line-price.ts';
import { PriceOutOfRangeError } from '../shared/pricing.ts';

const breaks = [
  { min_quantity: 10, discount_percent: 5 },
  { min_quantity: 50, discount_percent: 12.5 },
];
const express = { surcharge_percent: 20, surcharge_amount: 2.5 };

test('percentages of minor units round half up, exactly', () => {
  assert.equal(percentOf(50, 1), 1, '0.5 → 1');
  assert.equal(percentOf(49, 1), 0, '0.49 → 0');
  assert.equal(percentOf(1, 50), 1, '0.5 → 1');
  assert.equal(percentOf(1507, 5), 75, '75.35 → 75');
  assert.equal(percentOf(1, 0.01), 0);
  assert.equal(percentOf(0, 90), 0);
});

test('a cart line adds up in minor units: break half up, surcharge on the discounted line, then the minimum', () => {
  assert.equal(breakFor(breaks, 9), null);
  assert.equal(breakFor(breaks, 50)?.discount_percent, 12.5);
  assert.equal(breakFor([...breaks].reverse(), 60)?.min_quantity, 50, 'the largest break reached, in any order');
  // 1.37 × 11 = 15.07; 5 % = 0.7535 → 0.75; (15.07 − 0.75) × 20 % = 2.864 → 2.86, + 2.50 = 5.36.
  const line = priceLine(1.37, 11, { quantity_breaks: breaks, lead_time: express, minimum_line_price: null }, 2);
  assert.deepEqual(line.minor_units, {
    subtotal: 1507,
    quantity_discount: 75,
    lead_time_surcharge: 536,
    minimum_line_adjustment: 0,
    total: 1968,
  });
  assert.deepEqual(
    [line.total, line.discount_percent, line.break_from, line.discount_at_minimum],
    [19.68, 5, 10, false],
  );
  // 0.01 × 53 = 0.53; 12.5 % = 0.06625 → 0.07 (half up, never a float's 0.0662499…).
  const tiny = priceLine(0.01, 53, { quantity_breaks: breaks, minimum_line_price: 1 }, 2);
  assert.deepEqual([tiny.quantity_discount, tiny.minimum_line_adjustment, tiny.total], [0.07, 0.54, 1]);
  const none = priceLine(2.5, 3, { minimum_line_price: null }, 2);
  assert.deepEqual([none.subtotal, none.quantity_discount, none.break_from, none.total], [7.5, 0, null, 7.5]);
});

test('a quantity break discounts parts down to their minimum price per part, never below it', () => {
  const deep = [{ min_quantity: 10, discount_percent: 90 }];
  // A part raised to its minimum ($1.00 + 20 % tax = $1.20): 10 of them cost 12.00, a 90 % break takes nothing off.
  const atMinimum = priceLine(1.2, 10, { quantity_breaks: deep, minimum_line_price: null, minimum_unit_price: 1.2 }, 2);
  assert.deepEqual([atMinimum.quantity_discount, atMinimum.total, atMinimum.discount_at_minimum], [0, 12, true]);
  // A $3.00 part with a $1.20 floor: 90 % would leave $3.00 for ten; the break stops at ten floors, $12.00.
  const above = priceLine(3, 10, { quantity_breaks: deep, minimum_line_price: null, minimum_unit_price: 1.2 }, 2);
  assert.deepEqual([above.quantity_discount, above.total, above.discount_at_minimum], [18, 12, true]);
  // A small break above the floor is taken whole: 5 % of $30.00.
  const small = priceLine(3, 10, { quantity_breaks: breaks, minimum_line_price: null, minimum_unit_price: 1.2 }, 2);
  assert.deepEqual([small.quantity_discount, small.total, small.discount_at_minimum], [1.5, 28.5, false]);
  // A break that lands exactly on the floor is the break as set, not one the minimum stopped.
  const exact = priceLine(2, 10, { quantity_breaks: breaks, minimum_line_price: null, minimum_unit_price: 1.9 }, 2);
  assert.deepEqual([exact.quantity_discount, exact.total, exact.discount_at_minimum], [1, 19, false]);
  // No minimum (null, or a quote made before it was recorded): the break as set.
  const none = priceLine(3, 10, { quantity_breaks: deep, minimum_line_price: null, minimum_unit_price: null }, 2);
  assert.equal(none.total, 3);
});

test('the minimum per part stops the break before the surcharge is added: 12 at the $1.00 minimum, 5 % off, Express', () => {
  // The shopper's case: $1.00 each is the minimum price per part, so 12 cost $12.00 and the 10+ break takes nothing;
  // Express adds 20 % of $12.00 and $2.50: $16.90.
  const line = priceLine(
    1,
    12,
    { quantity_breaks: breaks, lead_time: express, minimum_line_price: null, minimum_unit_price: 1 },
    2,
  );
  assert.deepEqual(line.minor_units, {
    subtotal: 1200,
    quantity_discount: 0,
    lead_time_surcharge: 490,
    minimum_line_adjustment: 0,
    total: 1690,
  });
  // $1.10 a part above a $1.00 minimum, 10 % off from 10 pieces: the break is cut short at the minimum.
  const partly = priceLine(
    1.1,
    12,
    {
      quantity_breaks: [{ min_quantity: 10, discount_percent: 10 }],
      lead_time: express,
      minimum_line_price: null,
      minimum_unit_price: 1,
    },
    2,
  );
  // 10 % of 13.20 = 1.32, but 12 parts may fall only to 12.00: 1.20 off; Express: 2.40 + 2.50.
  assert.deepEqual(
    [partly.quantity_discount, partly.discount_at_minimum, partly.lead_time_surcharge, partly.total],
    [1.2, true, 4.9, 16.9],
  );
});

test('the minimum line price lifts the whole line, after the break and the surcharge, at the quote’s rate', () => {
  const lifted = priceLine(0.4, 3, { lead_time: express, minimum_line_price: 5, rate: 1 }, 2);
  // 1.20 + 20 % (0.24) + 2.50 = 3.94, lifted by 1.06 to 5.00.
  assert.deepEqual([lifted.lead_time_surcharge, lifted.minimum_line_adjustment, lifted.total], [2.74, 1.06, 5]);
  // A quote in another currency: the shop's 5.00 minimum at a rate of 0.5 is 2.50.
  const converted = priceLine(0.4, 3, { minimum_line_price: 5, rate: 0.5 }, 2);
  assert.deepEqual([converted.minimum_line_adjustment, converted.total], [1.3, 2.5]);
  const above = priceLine(2, 3, { minimum_line_price: 5 }, 2);
  assert.deepEqual([above.minimum_line_adjustment, above.total], [0, 6]);
});

test('currencies with 0 and 3 decimals: every step rounds to their minor unit', () => {
  // Yen: 437 × 3 = 1311; 12.5 % + ¥100: 163.875 → 164, + 100 = 264; 1575.
  const yen = priceLine(
    437,
    3,
    { lead_time: { surcharge_percent: 12.5, surcharge_amount: 100 }, minimum_line_price: null },
    0,
  );
  assert.deepEqual([yen.lead_time_surcharge, yen.total], [264, 1575]);
  // Converted from the shop's dollars: $5 at 151.37 = ¥756.85 → ¥757.
  const converted = priceLine(
    437,
    2,
    { lead_time: { surcharge_percent: 0, surcharge_amount: 5 }, minimum_line_price: null, rate: 151.37 },
    0,
  );
  assert.deepEqual([converted.lead_time_surcharge, converted.total], [757, 874 + 757]);
  // Kuwaiti dinar (3 decimals): 1.005 × 7 = 7.035; 2.5 % = 0.175875 → 0.176; 7.5 % of 6.859 = 0.514425 → 0.514,
  // + 0.0125 → 0.013 (half up); 6.859 + 0.527 = 7.386.
  const kwd = priceLine(
    1.005,
    7,
    {
      quantity_breaks: [{ min_quantity: 5, discount_percent: 2.5 }],
      lead_time: { surcharge_percent: 7.5, surcharge_amount: 0.0125 },
      minimum_line_price: null,
    },
    3,
  );
  assert.deepEqual(kwd.minor_units, {
    subtotal: 7035,
    quantity_discount: 176,
    lead_time_surcharge: 527,
    minimum_line_adjustment: 0,
    total: 7386,
  });
  assert.equal(kwd.total, 7.386);
});

test('exact: no float drift in amounts, products or sums', () => {
  // 0.1 × 3 is 0.30000000000000004 as doubles; 1.15 × 100 is 114.99999999999999.
  assert.equal(priceLine(0.1, 3, { minimum_line_price: null }, 2).total, 0.3);
  assert.equal(priceLine(1.15, 1, { minimum_line_price: null }, 2).minor_units.subtotal, 115);
  assert.equal(priceLine(4.35, 100, { minimum_line_price: null }, 2).minor_units.subtotal, 43_500);
  // A line past 2^53 in the percent's product: 9000000026103 × 1233 = 11097000032184999 exactly, a double reads it
  // as …185000 and would round the 0.4999 up. In integers, 12.33 % is 1109700003218.4999 → 1109700003218.
  const big = priceLine(
    30_000_000_087.01,
    3,
    { quantity_breaks: [{ min_quantity: 2, discount_percent: 12.33 }], minimum_line_price: null },
    2,
  );
  assert.equal(big.minor_units.subtotal, 9_000_000_026_103);
  assert.equal(big.minor_units.quantity_discount, 1_109_700_003_218);
  assert.equal(big.minor_units.total, 9_000_000_026_103 - 1_109_700_003_218);
  assert.equal(sumAmounts([0.1, 0.2], 2), 0.3);
  assert.equal(sumAmounts([1.005, 2.001, 0.004], 3), 3.01);
  assert.equal(sumAmounts([437, 1575], 0), 2012);
  assert.equal(sumAmounts([], 2), 0);
});

test('a line too large to price exactly is refused, as a part is', () => {
  assert.throws(() => priceLine(100_000_000_000, 2, { minimum_line_price: null }, 2), PriceOutOfRangeError);
  assert.equal(priceLine(100_000_000_000, 1, { minimum_line_price: null }, 2).minor_units.total, 10 ** 13);
});

test('the break list shows what a piece costs at each break, never below the minimum, and only breaks that lower it', () => {
  // 2.50: 5 % → 2.375 → 2.38; 12.5 % → 2.1875 → 2.19.
  assert.deepEqual(breakPrices(2.5, breaks, null, 2), [
    { min_quantity: 10, discount_percent: 5, each: 2.38, at_minimum: false },
    { min_quantity: 50, discount_percent: 12.5, each: 2.19, at_minimum: false },
  ]);
  // A $2.30 minimum stops the 50+ break there.
  assert.deepEqual(
    breakPrices(2.5, breaks, 2.3, 2).map((b) => [b.each, b.at_minimum]),
    [
      [2.38, false],
      [2.3, true],
    ],
  );
  // A part at its minimum: no break lowers it, so none is offered ("10+: $0.95 each" beside "$1.00 each (minimum)").
  assert.deepEqual(breakPrices(1, breaks, 1, 2), []);
  // A $2.40 minimum stops both breaks there; $2.40 still lowers the $2.50 price, so both are listed at it.
  assert.deepEqual(
    breakPrices(2.5, breaks, 2.4, 2).map((b) => [b.min_quantity, b.each, b.at_minimum]),
    [
      [10, 2.4, true],
      [50, 2.4, true],
    ],
  );
  assert.deepEqual(breakPrices(2.5, [], 1, 2), []);
  // Yen: ¥437 at 5 % is 415.15 → ¥415.
  assert.equal(breakPrices(437, breaks, null, 0)[0]?.each, 415);
});

test('a kept line says whether the minimum per part stopped its break, as priceLine did when pricing it', () => {
  const priced = (unit: number, quantity: number, minimum: number | null, pct = 5) => {
    const terms = {
      quantity_breaks: [{ min_quantity: 10, discount_percent: pct }],
      minimum_line_price: null,
      minimum_unit_price: minimum,
    };
    const line = priceLine(unit, quantity, terms, 2);
    return { line, kept: { ...line, quantity, minimum_unit_price: minimum } };
  };
  for (const [unit, quantity, minimum, pct] of [
    [1, 12, 1, 5],
    [1.1, 12, 1, 10],
    [2, 10, 1.9, 5],
    [3, 10, 1.2, 5],
    [3, 10, null, 5],
    [3, 9, 1.2, 5],
  ] as const) {
    const { line, kept } = priced(unit, quantity, minimum, pct);
    assert.equal(breakStoppedAtMinimum(kept, 2), line.discount_at_minimum, `${quantity} × ${unit}, minimum ${minimum}`);
  }
  assert.equal(breakStoppedAtMinimum(priced(1, 12, 1).kept, 2), true);
  assert.equal(breakStoppedAtMinimum(priced(2, 10, 1.9).kept, 2), false, 'a break landing on the floor is whole');
});

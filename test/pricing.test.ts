// The price formula (docs/pricing.md): hand-computed quotes, the rounding rule, currencies, the minimum price,
// conversions, and a property test that the printed lines add up for any settings and currency.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { CURRENCY_CODES, currencyDigits, fromMinor, roundHalfUp, toMinor } from '../shared/money.ts';
import {
  type Conversion,
  computePrice,
  MAX_MINOR_UNITS,
  PART_LINES,
  type PriceBreakdown,
  PriceOutOfRangeError,
} from '../shared/pricing.ts';
import { DEFAULT_SETTINGS, getSetting, type ResolvedSettings } from '../shared/settings.ts';
import { assertAddsUp } from './helpers/money.ts';

type Overrides = {
  printer?: Partial<ResolvedSettings['printer']>;
  material?: Partial<ResolvedSettings['material']>;
  quote?: Partial<ResolvedSettings['quote']>;
};
function settings(o: Overrides = {}): ResolvedSettings {
  const s = structuredClone(DEFAULT_SETTINGS);
  Object.assign(s.printer, o.printer);
  Object.assign(s.material, { price_per_gram: 0.025, price_per_kg: 25 }, o.material);
  // No minimum unless a test sets one: these tests are about each line's rounding, which a floor would hide.
  Object.assign(s.quote, { minimum_price: 0 }, o.quote);
  return s;
}

/** 12 g of filament of which 2 g support, 1.5 hours. */
const STATS = { filament_weight_g: 12, support_weight_g: 2, print_time_s: 5400 };

test('a quote computed by hand: each line rounded half-up to cents, then summed; tax on the rounded subtotal', () => {
  const b = computePrice(
    STATS,
    settings({
      material: { support_cost_multiplier: 2 },
      printer: { hourly_cost: 1.5, power_watts: 120 },
      quote: { fixed_fee: 1.005, tax_rate: 8.875, energy_cost_per_kwh: 0.3 },
    }),
  );
  // material 10 g × 0.025 = 0.25; support 2 g × 0.025 × 2 = 0.10; machine 1.5 h × 1.5 = 2.25;
  // energy 0.12 kW × 1.5 h × 0.3 = 0.054 → 0.05; fixed fee 1.005 → 1.01 (half-up, not binary 1.00499…)
  assert.deepEqual(b.minor_units, {
    material: 25,
    support: 10,
    machine: 225,
    energy: 5,
    fixed_fee: 101,
    minimum_price_adjustment: 0,
    subtotal: 366,
    tax: 32,
    total: 398, // tax 3.66 × 8.875 % = 0.3248 → 0.32
  });
  assert.deepEqual([b.currency, b.digits, b.exchange_rate, b.price_per_gram, b.total], ['USD', 2, null, 0.025, 3.98]);
  assertAddsUp(b);
});

test("the currency's ISO 4217 digits: JPY in whole yen, KWD in fils (3), CLF in 4 decimals", () => {
  const jpy = computePrice(
    STATS,
    settings({
      material: { price_per_gram: 3.3 },
      printer: { hourly_cost: 250 },
      quote: { currency: 'JPY', energy_cost_per_kwh: 31, fixed_fee: 100 },
    }),
  );
  // 33 + 6.6 → 7 + 375 + 5.58 → 6 + 100
  assert.deepEqual(
    [jpy.digits, jpy.material, jpy.support, jpy.machine, jpy.energy, jpy.subtotal],
    [0, 33, 7, 375, 6, 521],
  );
  const kwd = computePrice(
    STATS,
    settings({
      material: { price_per_gram: 0.0081 },
      printer: { hourly_cost: 0.45 },
      quote: { currency: 'KWD', energy_cost_per_kwh: 0.0125 },
    }),
  );
  // 0.081 + 0.0162 → 0.016 + 0.675 + 0.00225 → 0.002
  assert.deepEqual(
    [kwd.digits, kwd.material, kwd.support, kwd.machine, kwd.energy, kwd.total],
    [3, 0.081, 0.016, 0.675, 0.002, 0.774],
  );
  const clf = computePrice(STATS, settings({ quote: { currency: 'CLF' } }));
  assert.equal(clf.digits, 4);
  for (const b of [jpy, kwd, clf]) assertAddsUp(b);
});

test('unknown and non-money codes have no digits: they are refused, never priced with 2', () => {
  for (const code of ['XYZ', 'XAU', 'XDR', 'usd', '', 'constructor']) {
    assert.throws(() => currencyDigits(code), RangeError, code);
    assert.throws(() => computePrice(STATS, settings({ quote: { currency: code } })), RangeError, code);
  }
});

test('half-up rounding of decimal amounts, as on paper', () => {
  assert.equal(toMinor(1.005, 'USD'), 101);
  assert.equal(toMinor(2.675, 'USD'), 268);
  assert.equal(toMinor(0.0005, 'KWD'), 1);
  assert.equal(toMinor(0.0004999, 'KWD'), 0);
  assert.equal(toMinor(1.5, 'JPY'), 2);
  assert.equal(toMinor(2.5, 'JPY'), 3, 'half-up, not half-even');
  assert.equal(roundHalfUp(0.49999999), 0);
  assert.equal(fromMinor(101, 'USD'), 1.01);
  assert.equal(fromMinor(1235, 'KWD'), 1.235);
  const tax = computePrice(
    { filament_weight_g: 0, support_weight_g: 0, print_time_s: 0 },
    settings({ quote: { fixed_fee: 0.5, tax_rate: 1 } }),
  );
  assert.deepEqual([tax.subtotal, tax.tax, tax.total], [0.5, 0.01, 0.51], '0.005 of tax rounds up to a cent');
});

test('a minimum price raises a cheap part to the floor with its own line; tax is on the raised subtotal', () => {
  const cheap = computePrice(STATS, settings({ quote: { minimum_price: 10, tax_rate: 20 } }));
  const parts = PART_LINES.slice(0, 5).reduce((sum, l) => sum + cheap.minor_units[l], 0);
  assert.ok(parts < 1000);
  assert.equal(cheap.minor_units.minimum_price_adjustment, 1000 - parts);
  assert.deepEqual([cheap.subtotal, cheap.tax, cheap.total], [10, 2, 12]);
  assert.equal(cheap.minimum_unit_price, 12, 'the floor with its tax, where a quantity break stops');
  assertAddsUp(cheap);
  const dear = computePrice(STATS, settings({ quote: { minimum_price: 0.5 } }));
  assert.equal(dear.minimum_price_adjustment, 0, 'a part above the floor is not touched');
  assert.ok(dear.subtotal > 0.5);
  const none = computePrice(STATS, settings({ quote: { minimum_price: 0 } }));
  assert.equal(none.minimum_price_adjustment, 0);
  assert.equal(none.minimum_unit_price, null);
});

test("a conversion multiplies every amount by the shop's rate before rounding to the quote currency", () => {
  const usd = computePrice(STATS, settings({ quote: { tax_rate: 10 } }));
  const rate: Conversion = { from: 'USD', to: 'JPY', rate: 151.37 };
  const jpy = computePrice(STATS, settings({ quote: { currency: 'JPY', tax_rate: 10 } }), rate);
  assert.deepEqual(jpy.exchange_rate, rate, 'the breakdown states the rate used');
  assert.equal(jpy.digits, 0);
  assert.equal(jpy.price_per_gram, 3.78425, '0.025 USD per gram at 151.37');
  // 10 g × 0.025 × 151.37 = 37.84 → 38; support 7.57 → 8; machine 2.25 × 151.37 = 340.58 → 341;
  // energy 0.054 × 151.37 = 8.17 → 8; tax 10 % of 395 = 39.5 → 40 (half-up). Not the 2.86 USD total × 151.37 = 432.9.
  assert.deepEqual(jpy.minor_units, {
    material: 38,
    support: 8,
    machine: 341,
    energy: 8,
    fixed_fee: 0,
    minimum_price_adjustment: 0,
    subtotal: 395,
    tax: 40,
    total: 435,
  });
  assert.equal(usd.total, 2.86);
  assertAddsUp(jpy);
  const floor = computePrice(STATS, settings({ quote: { currency: 'JPY', minimum_price: 5 } }), rate);
  assert.ok(usd.subtotal < 5);
  assert.equal(floor.subtotal, 757, 'the minimum price is converted too: 5 USD is 756.85, so 757 JPY');
  assertAddsUp(floor);
});

test('a 43-minute print in JPY is priced in yen, not relabelled dollars', () => {
  const stats = { filament_weight_g: 9.6, support_weight_g: 0, print_time_s: 43 * 60 };
  const dollars = computePrice(stats, settings());
  const yen = computePrice(stats, settings({ quote: { currency: 'JPY' } }), { from: 'USD', to: 'JPY', rate: 150 });
  assert.ok(dollars.total > 1 && dollars.total < 2, `${dollars.total} USD`);
  assert.ok(yen.total > 150, `${yen.total} JPY, not ¥1`);
});

test('a price beyond 10^13 minor units is refused, not rounded into nonsense', () => {
  const huge = settings({ material: { price_per_gram: 1_000_000 } });
  assert.throws(() => computePrice({ ...STATS, filament_weight_g: 2e8 }, huge), PriceOutOfRangeError);
  assert.throws(() => computePrice(STATS, huge, { from: 'USD', to: 'EUR', rate: 1e9 }), PriceOutOfRangeError);
  assert.doesNotThrow(() => computePrice(STATS, huge));
  assert.ok(MAX_MINOR_UNITS < Number.MAX_SAFE_INTEGER / 100);
});

const money = (name: string) => {
  const d = getSetting(
    name === 'price_per_gram' ? 'material_config' : name === 'hourly_cost' ? 'printer_config' : 'quote_config',
    name,
  )!;
  // Realistic amounts mostly, the catalogue's extremes sometimes.
  return fc.oneof(
    fc.double({ min: 0, max: 100, noNaN: true }),
    fc.constantFrom(0, 0.005, 1.005, d.max!),
    fc.double({ min: 0, max: d.max!, noNaN: true }),
  );
};

test('property: for any settings, statistics, currency and rate, the breakdown lines add up exactly', () => {
  const arbitrary = fc.record({
    currency: fc.constantFrom(...CURRENCY_CODES),
    rate: fc.option(fc.oneof(fc.double({ min: 1e-6, max: 1e6, noNaN: true }), fc.constantFrom(0.92, 151.37, 0.307)), {
      nil: undefined,
    }),
    grams: fc.double({ min: 0, max: 5000, noNaN: true }),
    supportShare: fc.double({ min: 0, max: 1, noNaN: true }),
    seconds: fc.double({ min: 0, max: 3_600_000, noNaN: true }),
    perGram: money('price_per_gram'),
    multiplier: fc.double({ min: 0, max: 100, noNaN: true }),
    hourly: money('hourly_cost'),
    watts: fc.double({ min: 0, max: 100_000, noNaN: true }),
    kwh: fc.double({ min: 0, max: 1000, noNaN: true }),
    fee: money('fixed_fee'),
    minimum: money('minimum_price'),
    tax: fc.oneof(fc.constantFrom(0, 7.5, 8.875, 19, 20, 100), fc.double({ min: 0, max: 100, noNaN: true })),
  });
  let priced = 0;
  fc.assert(
    fc.property(arbitrary, (a) => {
      const s = settings({
        material: { price_per_gram: a.perGram, support_cost_multiplier: a.multiplier },
        printer: { hourly_cost: a.hourly, power_watts: a.watts },
        quote: {
          currency: a.currency,
          fixed_fee: a.fee,
          minimum_price: a.minimum,
          tax_rate: a.tax,
          energy_cost_per_kwh: a.kwh,
        },
      });
      const stats = { filament_weight_g: a.grams, support_weight_g: a.grams * a.supportShare, print_time_s: a.seconds };
      const conversion = a.rate === undefined ? null : { from: 'USD', to: a.currency, rate: a.rate };
      let b: PriceBreakdown;
      try {
        b = computePrice(stats, s, conversion);
      } catch (err) {
        assert.ok(err instanceof PriceOutOfRangeError, String(err));
        return;
      }
      priced++;
      assertAddsUp(b);
      // Each part is its exact amount rounded to the minor unit; the subtotal never sits below the floor.
      const scale = (a.rate ?? 1) * 10 ** b.digits;
      const hours = a.seconds / 3600;
      const exact = {
        material: (a.grams - stats.support_weight_g) * a.perGram,
        support: stats.support_weight_g * a.perGram * a.multiplier,
        machine: hours * a.hourly,
        energy: (a.watts / 1000) * hours * a.kwh,
        fixed_fee: a.fee,
      };
      for (const [line, amount] of Object.entries(exact)) {
        const scaled = Math.max(0, amount) * scale;
        assert.ok(
          Math.abs(b.minor_units[line as keyof typeof exact] - scaled) <= 0.5 + scaled * 1e-12,
          `${line}: ${scaled}`,
        );
      }
      const floor = roundHalfUp(a.minimum * scale);
      assert.ok(b.minor_units.subtotal >= floor);
      if (b.minor_units.minimum_price_adjustment > 0) assert.equal(b.minor_units.subtotal, floor);
      assert.ok(
        Math.abs(b.minor_units.tax - (b.minor_units.subtotal * a.tax) / 100) <= 0.5 + b.minor_units.subtotal * 1e-12,
      );
    }),
    { numRuns: 5000 },
  );
  assert.ok(priced > 4000, `most generated quotes are priced (${priced} of 5000)`);
});

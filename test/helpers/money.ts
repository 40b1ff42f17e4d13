// The promise every price breakdown keeps (docs/pricing.md): whole minor units that add up, and major-unit
// numbers that print the same amounts, so a client summing the JSON numbers as decimals sees them add up too.
import assert from 'node:assert/strict';
import { currencyDigits } from '../../shared/money.ts';
import type { PriceBreakdown } from '../../shared/pricing.ts';

// The contract's lines, restated here rather than imported: the parts in order, then what they add up to.
const PART_LINES = ['material', 'support', 'machine', 'energy', 'fixed_fee', 'minimum_price_adjustment'] as const;
const PRICE_LINES = [...PART_LINES, 'subtotal', 'tax', 'total'] as const;

/** Sums amounts as the decimals they print as, exactly. */
function decimalSum(values: number[], digits: number): bigint {
  return values.reduce((sum, v) => sum + BigInt(v.toFixed(digits).replace('.', '')), 0n);
}

export function assertAddsUp(b: PriceBreakdown): void {
  const m = b.minor_units;
  assert.equal(b.digits, currencyDigits(b.currency));
  for (const line of PRICE_LINES) {
    assert.ok(Number.isSafeInteger(m[line]) && m[line] >= 0, `${line} is a whole number of minor units: ${m[line]}`);
    assert.equal(b[line], m[line] / 10 ** b.digits, `${line} in major units`);
    const printed = String(b[line]);
    assert.ok(
      !printed.includes('e') && (printed.split('.')[1] ?? '').length <= b.digits,
      `${line} = ${printed} has at most ${b.digits} decimals`,
    );
  }
  assert.equal(
    PART_LINES.reduce((sum, line) => sum + m[line], 0),
    m.subtotal,
    'the parts add up to the subtotal',
  );
  assert.equal(m.subtotal + m.tax, m.total, 'subtotal + tax = total');
  assert.equal(
    decimalSum(
      PART_LINES.map((l) => b[l]),
      b.digits,
    ),
    decimalSum([b.subtotal], b.digits),
    'the printed parts add up',
  );
  assert.equal(decimalSum([b.subtotal, b.tax], b.digits), decimalSum([b.total], b.digits), 'the printed total adds up');
}

// How the widget writes weights: tenths of a gram under 10 g, whole grams above, and a part too light for a tenth
// "under 0.1 g" — never "Weight 0.0 g" for a part that weighs something.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { grams } from '../widget/src/format.ts';

test('a weight under a twentieth of a gram is "under 0.1 g", never 0.0 g', () => {
  assert.equal(grams(0.0015, 'en-US'), 'under 0.1 g'); // a 1 mm cube of PLA
  assert.equal(grams(0.049, 'en-US'), 'under 0.1 g');
  assert.equal(grams(0.05, 'en-US'), '0.1 g');
  assert.equal(grams(4.2, 'en-US'), '4.2 g');
  assert.equal(grams(12.4, 'en-US'), '12 g');
  assert.equal(grams(0.0015, 'de-DE'), 'under 0,1 g');
});

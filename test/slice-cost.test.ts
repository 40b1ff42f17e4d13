// The slice cost model and what follows from it (docs/limits.md, "Slicer time"): a prediction that grows with
// what makes PrusaSlicer slow, a time limit that follows the prediction within bounds, niceness for long and
// speculative slices. The model's accuracy against real slices is measured in `npm run bench -- slice-cost`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sliceNiceness, sliceTimeoutMs } from '../server/quotes/slice-cost.ts';
import { type CostInputs, costInputsOf, costTerms, referenceSeconds, upExtentSum } from '../server/slicer/cost.ts';
import { DEFAULT_SETTINGS } from '../shared/settings.ts';

const part: CostInputs = costInputsOf(
  { triangles: 20_000, bodies: 1, surface_area_mm2: 8_000, volume_mm3: 20_000, extent_sums: [9_000, 9_000, 12_000] },
  40,
  DEFAULT_SETTINGS.printer,
);

test('the predicted slice time never falls as a part gets costlier, and grows with layers, bodies and supports', () => {
  const base = referenceSeconds(part);
  assert.ok(base > 0);
  const more = (change: Partial<CostInputs>) => referenceSeconds({ ...part, ...change });
  // Every change adds to some term; the fit may give a term no weight, never a negative one.
  for (const change of [{ triangles: 200_000 }, { fill_density: 80 }, { perimeters: 5 }] as Partial<CostInputs>[]) {
    assert.ok(
      costTerms({ ...part, ...change }).some((t, k) => t > costTerms(part)[k]!),
      JSON.stringify(change),
    );
    assert.ok(more(change) >= base, JSON.stringify(change));
  }
  assert.ok(more({ layer_height: 0.1 }) > base, 'finer layers: more segments cut');
  assert.ok(more({ segments_mm: part.segments_mm! * 4 }) > base, 'longer triangles: more segments');
  assert.ok(more({ bodies: 2_000, surface_area_mm2: 40_000 }) > base, 'many bodies');
  assert.ok(more({ support: true, bodies: 50 }) > more({ bodies: 50 }), 'supports under islands');
  assert.ok(more({ height_mm: 10, volume_mm3: 5_000, surface_area_mm2: 2_000, segments_mm: 2_000 }) < base);
});

test('the segments cut follow the printed up axis: exact for quarter turns, bounded for any other', () => {
  const sums: [number, number, number] = [100, 200, 300];
  assert.equal(upExtentSum(sums, { x: 0, y: 0 }), 300);
  assert.equal(upExtentSum(sums, { x: 90, y: 0 }), 200, 'laid on its side about x: y is up');
  assert.equal(upExtentSum(sums, { x: 0, y: -90 }), 100, 'about y: x is up');
  const tilted = upExtentSum(sums, { x: 45, y: 0 });
  assert.ok(tilted > 300 * Math.SQRT1_2 && tilted <= 200 + 300);
});

test("a slice's time limit is 8 × its prediction, at least 60 s, at most the ceiling", () => {
  assert.equal(sliceTimeoutMs(2, 300_000), 60_000);
  assert.equal(sliceTimeoutMs(20, 300_000), 160_000);
  assert.equal(sliceTimeoutMs(100, 300_000), 300_000);
  assert.equal(sliceTimeoutMs(null, 300_000), 300_000, 'no prediction: the ceiling');
  assert.equal(sliceTimeoutMs(2, 1_000), 1_000, 'the ceiling wins over the floor');
});

test('long slices, bulk work and prefetches yield the cores to short interactive quotes', () => {
  assert.equal(sliceNiceness('quote', 3), 0);
  assert.equal(sliceNiceness('quote', null), 0);
  assert.equal(sliceNiceness('quote', 3, 1), 0, 'one more quote waiting is no flood');
  assert.equal(sliceNiceness('quote', 3, 2), 10, 'an account with a backlog');
  assert.equal(sliceNiceness('quote', 40), 10);
  assert.equal(sliceNiceness('prefetch', 3), 15);
});

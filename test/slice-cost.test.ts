// The slice cost model and what follows from it (docs/limits.md, "Slicer time"): a prediction that grows with
// what makes PrusaSlicer slow, a time limit that follows the prediction within bounds, niceness for long and
// speculative slices. The model's accuracy against real slices is measured in `npm run bench -- slice-cost`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { costInputsOf, referenceSeconds, type CostInputs } from '../server/slicer/cost.ts';
import { sliceNiceness, sliceTimeoutMs } from '../server/quotes/slice-cost.ts';
import { DEFAULT_SETTINGS } from '../shared/settings.ts';

const part: CostInputs = costInputsOf(
  { triangles: 20_000, bodies: 1, surface_area_mm2: 8_000, volume_mm3: 20_000 },
  40,
  DEFAULT_SETTINGS.printer,
);

test('the predicted slice time grows with triangles, finer layers, infill, bodies and supports', () => {
  const base = referenceSeconds(part);
  assert.ok(base > 0);
  const more = (change: Partial<CostInputs>) => referenceSeconds({ ...part, ...change });
  assert.ok(more({ triangles: 200_000 }) > base, 'triangles');
  assert.ok(more({ layer_height: 0.1 }) > base, 'finer layers');
  assert.ok(more({ fill_density: 80 }) > base, 'infill');
  assert.ok(more({ bodies: 2_000, surface_area_mm2: 40_000 }) > base, 'many bodies');
  assert.ok(more({ support: true }) > base, 'supports');
  assert.ok(more({ height_mm: 10, volume_mm3: 5_000, surface_area_mm2: 2_000 }) < base, 'a smaller part');
});

test("a slice's time limit is 8 × its prediction, at least 60 s, at most the ceiling", () => {
  assert.equal(sliceTimeoutMs(2, 300_000), 60_000);
  assert.equal(sliceTimeoutMs(20, 300_000), 160_000);
  assert.equal(sliceTimeoutMs(100, 300_000), 300_000);
  assert.equal(sliceTimeoutMs(null, 300_000), 300_000, 'no prediction: the ceiling');
  assert.equal(sliceTimeoutMs(2, 1_000), 1_000, 'the ceiling wins over the floor');
});

test('long slices and prefetches yield the cores to short quotes', () => {
  assert.equal(sliceNiceness('quote', 3), 0);
  assert.equal(sliceNiceness('quote', null), 0);
  assert.equal(sliceNiceness('quote', 40), 10);
  assert.equal(sliceNiceness('prefetch', 3), 15);
});

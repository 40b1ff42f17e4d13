// The time left a waiting shopper is told (server/quotes/time-left.ts): the slicer's stages in plain words, and the
// expected length of a slice refined as the slicer reaches its stages.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectedSliceMs, sliceExpectation, stepOf } from '../server/quotes/time-left.ts';

test("PrusaSlicer's stages become a shopper's words", () => {
  const step = (status: string, stage: string | null) => stepOf({ status, stage } as never);
  assert.equal(step('queued', null), 'queued');
  assert.equal(step('processing', null), 'preparing');
  assert.equal(step('processing', 'Processing triangulated mesh'), 'preparing');
  assert.equal(step('processing', 'Generating perimeters'), 'slicing');
  assert.equal(step('processing', 'Infilling layers'), 'slicing');
  assert.equal(step('processing', 'Generating support material'), 'slicing');
  assert.equal(step('processing', 'Exporting G-code to /tmp/sq-x/out.gcode'), 'pricing');
  assert.equal(step('completed', 'Exporting G-code to out.gcode'), null);
  assert.equal(step('failed', null), null);
});

test('a slice that reaches its stages late is expected to end late, more so the further it is', () => {
  assert.equal(expectedSliceMs(10_000, null, 0), 10_000, 'the prediction before any stage');
  assert.equal(expectedSliceMs(10_000, 'Some stage nobody knows', 4000), 10_000);
  // Infill reached at 11 s (about 37 % of the way): the slice looks like 30 s, not 10.
  const infill = expectedSliceMs(10_000, 'Infilling layers', 11_000);
  assert.ok(infill > 15_000 && infill < 30_000, String(infill));
  // The export reached at 20 s: closer still to what the stages say (about 30 s).
  const exporting = expectedSliceMs(10_000, 'Exporting G-code to out.gcode', 20_000);
  assert.ok(exporting > infill && exporting < 31_000, String(exporting));
  // Reached early: the slice is expected to end early.
  assert.ok(expectedSliceMs(10_000, 'Infilling layers', 1000) < 10_000);
});

test('a slice past its expected length is given half its time more, held until reached, and said to be slower', () => {
  let clock = 1_000_000;
  const now = () => clock;
  const onTime = sliceExpectation(20, now);
  clock += 5000;
  assert.equal(onTime.doneAt().getTime(), 1_000_000 + 20_000, 'within its prediction: the prediction');
  assert.equal(onTime.slower(), false);
  const late = sliceExpectation(10, now);
  const start = clock;
  clock += 40_000;
  assert.equal(late.doneAt().getTime() - clock, 20_000, '40 s into a 10 s slice: 20 s more');
  assert.equal(late.slower(), true, 'the reason its time left grew');
  // The new end holds: the time left counts down to it at every heartbeat instead of creeping up.
  const lefts: number[] = [];
  for (let beat = 0; beat < 19; beat++) {
    clock += 1000;
    lefts.push(late.doneAt().getTime() - clock);
  }
  assert.deepEqual(
    lefts,
    lefts.map((_, i) => 19_000 - i * 1000),
    'one second less at each heartbeat',
  );
  // Reached again: a second extension, half of the 60 s taken by then.
  clock += 1000;
  assert.equal(late.doneAt().getTime() - start, 90_000);
  // Infill reached 11 s into a slice predicted at 10 s: expected longer than predicted.
  const staged = sliceExpectation(10, now);
  clock += 11_000;
  staged.onProgress({ percent: 70, stage: 'Infilling layers' });
  assert.ok(staged.expectedMs() > 15_000);
  assert.equal(staged.slower(), true);
  assert.equal(sliceExpectation(null, now).expectedMs(), 10_000, 'no prediction: 10 s');
});

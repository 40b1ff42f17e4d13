// The time left a waiting shopper is told (server/quotes/time-left.ts): the slicer's stages in plain words, a slice's
// expected length in this host's clock seconds as its last slices took them (server/quotes/slice-cost.ts), and that
// length re-estimated as the slicer reaches its stages. The clock is the test's: nothing waits.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chargeSlicerTime } from '../server/limits/index.ts';
import { expectedWallSeconds, SPEED_TTL_MS, wallPerPredictedSecond } from '../server/quotes/slice-cost.ts';
import { expectedSliceMs, sliceExpectation, stepOf } from '../server/quotes/time-left.ts';
import { HOST } from '../server/storage/index.ts';
import { openTestDb } from './helpers/server.ts';

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

test('a stage reached late lengthens the slice, one reached early shortens it, the more the further along', () => {
  assert.equal(expectedSliceMs(10_000, null, 0), 10_000, 'its expected length before any stage');
  assert.equal(expectedSliceMs(10_000, 'Some stage nobody knows', 4000), 10_000);
  // Infill reached at 11 s, where a 10 s slice reaches it at about 4 s: the slice goes at a third of the pace
  // expected, and what is left of it is expected to as well.
  const late = expectedSliceMs(10_000, 'Infilling layers', 11_000);
  assert.ok(late > 25_000 && late < 32_000, String(late));
  // Reached at 2 s: the rest goes twice as fast as expected.
  const early = expectedSliceMs(10_000, 'Infilling layers', 2000);
  assert.ok(early > 4000 && early < 7000, String(early));
  // The first stage comes after the slicer's start-up: reached at three times its usual moment, it moves the
  // expectation far less than its pace says.
  const first = expectedSliceMs(10_000, 'Processing triangulated mesh', 2400);
  assert.ok(first > 10_000 && first < 16_000, String(first));
});

test('a stage reached early lowers the time left at once', () => {
  let clock = 5_000_000;
  const slice = sliceExpectation(10, () => clock);
  clock += 2000;
  assert.equal(slice.doneAt().getTime() - clock, 8000, 'before any stage: the expected 10 s');
  slice.onProgress({ percent: 70, stage: 'Infilling layers' });
  const left = slice.doneAt().getTime() - clock;
  assert.ok(left < 5000 && left > 2000, `infill reached at 2 s of 10: ${left} ms left`);
  assert.equal(slice.slower(), false);
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

test('a host whose slices ran 1.6 times their prediction is expected to take 1.6 times it for the next', async () => {
  const { db, drop } = await openTestDb({ migrated: true });
  let clock = Date.parse('2026-12-06T12:00:00Z');
  const deps = { db, now: () => new Date(clock) };
  const slice = (wallS: number, over: { seconds?: number; host?: string } = {}) =>
    chargeSlicerTime(db, {
      account_id: 'acct_1',
      caller: 'acct:acct_1',
      kind: 'quote',
      outcome: 'ok',
      seconds: over.seconds ?? 10,
      reference_s: 10,
      wall_s: wallS,
      host: over.host ?? HOST,
      at: new Date(clock),
    });
  try {
    // Before its first slice: the CPU prediction shared over the threads PrusaSlicer keeps busy.
    const unlearnt = await wallPerPredictedSecond(deps);
    assert.ok(unlearnt > 0.5 && unlearnt <= 1, String(unlearnt));
    for (const wall of [16, 15, 17, 16, 16]) await slice(wall);
    await slice(90); // one slice stalled beside a burst of other work
    await slice(2, { host: 'another-host' }); // another host's slices are its own
    clock += SPEED_TTL_MS + 1;
    assert.equal(await wallPerPredictedSecond(deps), 1.6);
    const expected = await expectedWallSeconds(deps, { file: undefined, resolved: null, predicted_s: 10 });
    assert.equal(expected, 16);
    const next = sliceExpectation(expected, () => clock);
    assert.equal(next.doneAt().getTime() - clock, 16_000);
    assert.equal(next.slower(), false, 'its own expectation, not slower than it');

    // The CPU speed learnt from the same slices is not counted twice: once they have used 20 CPU s for 10 reference
    // seconds, predictions are twice as long, and each predicted second takes 0.8 s on the clock.
    for (let i = 0; i < 50; i++) await slice(16, { seconds: 20 });
    clock += SPEED_TTL_MS + 1;
    assert.equal(await wallPerPredictedSecond(deps), 0.8);
    assert.equal(await expectedWallSeconds(deps, { file: undefined, resolved: null, predicted_s: 20 }), 16);
  } finally {
    await db.close();
    await drop();
  }
});

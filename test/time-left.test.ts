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
  // PrusaSlicer 2.9 starts making infill about 61 % of the way. Reached at 11 s of an expected 10, the slice goes
  // at 0.55 times the pace expected, and what is left of it is expected to as well: about 18 s in all.
  const late = expectedSliceMs(10_000, 'Making infill', 11_000);
  assert.ok(late > 17_000 && late < 19_000, String(late));
  // Reached at 3 s: the rest goes twice as fast as expected too.
  const early = expectedSliceMs(10_000, 'Making infill', 3000);
  assert.ok(early > 4500 && early < 5500, String(early));
  // 2.9's last stages come at one moment before the export, whatever their names say ("perimeters", "supports").
  for (const stage of [
    'Calculating overhanging perimeters',
    'Alert if supports needed',
    'Exporting G-code to out.gcode',
  ])
    assert.ok(Math.abs(expectedSliceMs(10_000, stage, 7100) - 10_000) < 100, stage);
  // The first stage comes after the slicer's start-up: reached at three times its usual moment, it moves the
  // expectation far less than its pace says.
  const first = expectedSliceMs(10_000, 'Processing triangulated mesh', 1800);
  assert.ok(first > 10_000 && first < 16_000, String(first));
});

test('a stage reached early lowers the time left at once', () => {
  let clock = 5_000_000;
  const slice = sliceExpectation(10, () => clock);
  clock += 3000;
  assert.equal(slice.doneAt().getTime() - clock, 7000, 'before any stage: the expected 10 s');
  slice.onProgress({ percent: 45, stage: 'Making infill' });
  const left = slice.doneAt().getTime() - clock;
  assert.ok(left > 1500 && left < 2500, `infill made from 3 s of 10: ${left} ms left`);
  assert.equal(slice.slower(), false);
});

/** The stages PrusaSlicer 2.9 reports, in order (the last four at one moment). */
const STAGES_2_9 = [
  'Processing triangulated mesh',
  'Generating perimeters',
  'Preparing infill',
  'Making infill',
  'Searching support spots',
  'Alert if supports needed',
  'Calculating overhanging perimeters',
  'Generating skirt and brim',
  'Exporting G-code to out.gcode',
];

/**
 * PrusaSlicer 2.9 slicing 3DBenchy on the 2-core machine beside other work, at the default settings, full infill,
 * fine and draft layers: when it reported each of STAGES_2_9 (ms after the slice started), and when the slice was
 * read.
 */
const RECORDED: { stagesMs: number[]; endMs: number }[] = [
  { stagesMs: [2019, 5556, 9940, 16_547, 17_970, 18_482, 18_482, 18_483, 18_483], endMs: 25_119 },
  { stagesMs: [1756, 2887, 6430, 20_546, 22_905, 23_914, 23_914, 23_915, 23_915], endMs: 33_486 },
  { stagesMs: [1453, 6100, 12_080, 26_705, 29_669, 30_872, 30_876, 30_876, 30_877], endMs: 43_307 },
  { stagesMs: [2677, 6180, 10_559, 26_265, 30_597, 31_256, 31_261, 31_262, 31_265], endMs: 43_942 },
];

/**
 * The seconds left told at every heartbeat (one a second, rounded up as the API does) over a recorded slice
 * expected to take `expectedShare` of its real length, each with the wait that followed.
 */
function toldDuring({ stagesMs, endMs }: (typeof RECORDED)[number], expectedShare: number) {
  let clock = 0;
  const slice = sliceExpectation((endMs / 1000) * expectedShare, () => clock);
  const out: { told: number; actual: number }[] = [];
  let next = 0;
  for (let beat = 1000; beat < endMs; beat += 1000) {
    for (; next < stagesMs.length && stagesMs[next]! <= beat; next++) {
      clock = stagesMs[next]!;
      slice.onProgress({ percent: 0, stage: STAGES_2_9[next]! });
    }
    clock = beat;
    const told = Math.max(1, Math.ceil((slice.doneAt().getTime() - clock) / 1000));
    out.push({ told, actual: (endMs - clock) / 1000 });
  }
  return out;
}

const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const relativeError = (t: { told: number; actual: number }) => Math.abs(t.told - t.actual) / Math.max(t.actual, 0.5);

test('over recorded slices the time left told stays within a quarter of the wait that followed', () => {
  // Expected right, a fifth too short or a quarter too long (a host's learnt ratio after its load changed): the
  // stages correct it.
  for (const share of [0.8, 1, 1.25]) {
    const error = medianOf(RECORDED.flatMap((slice) => toldDuring(slice, share)).map(relativeError));
    assert.ok(error <= 0.25, `expected ${share} × its length: median error ${error.toFixed(2)}`);
  }
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

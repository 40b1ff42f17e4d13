// What a waiting shopper reads of the time left (widget/src/time-left.ts): it counts down smoothly from the latest
// figure, never below zero ("almost done"), follows a lower figure at once, and goes up only with a reason the
// server gave, said in words. Driven directly with the page's clock as a number: no timers, no waiting.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  followTimeLeft,
  secondsLeft,
  type TimeLeft,
  type TimeLeftReading,
  timeLeftWords,
} from '../widget/src/time-left.ts';

const reading = (seconds: number | null, reason: TimeLeftReading['reason'] = null, ahead: number | null = null) => ({
  seconds,
  reason,
  ahead,
});

/** Feeds readings two seconds apart (the widget's job reads) and returns the words shown just after each. */
function shownAfter(readings: TimeLeftReading[], start = 0): { words: string[]; last: TimeLeft | null } {
  let t: TimeLeft | null = null;
  const words: string[] = [];
  readings.forEach((r, i) => {
    const now = start + i * 2000;
    t = followTimeLeft(t, r, now);
    words.push(timeLeftWords(t, now));
  });
  return { words, last: t };
}

const secondsIn = (words: string) => Number(/~(\d+) s/.exec(words)?.[1] ?? 0);

test('a figure that bounces between 8 and 4 s without a reason is shown counting down, never up', () => {
  // The announced time left bounced for 26 s: the shopper sees it go down, then "almost done", and never up.
  const bouncing = [8, 4, 8, 4, 8, 4, 8, 4, 8, 4, 8, 4, 8, 4].map((s) => reading(s));
  const { words } = shownAfter(bouncing);
  assert.deepEqual(words.slice(0, 3), ['exact price in ~8 s', 'exact price in ~4 s', 'exact price in ~2 s']);
  for (let i = 1; i < words.length; i++)
    assert.ok(secondsIn(words[i]!) <= secondsIn(words[i - 1]!) || words[i - 1] === 'almost done', words.join(' | '));
  assert.equal(words.at(-1), 'almost done', 'at zero: almost done, not a negative nor a frozen "0 s"');
  assert.ok(!words.some((w) => /—/.test(w)), 'no reason was given, so none is shown');
});

test('between two reads it counts down smoothly, and never below zero', () => {
  const t = followTimeLeft(null, reading(5), 10_000)!;
  assert.equal(timeLeftWords(t, 10_000), 'exact price in ~5 s');
  assert.equal(timeLeftWords(t, 11_500), 'exact price in ~4 s');
  assert.equal(timeLeftWords(t, 14_200), 'exact price in ~1 s');
  assert.equal(secondsLeft(t, 20_000), 0);
  assert.equal(timeLeftWords(t, 20_000), 'almost done');
  assert.equal(timeLeftWords(null, 0), 'exact price soon', 'before the first figure');
});

test('a lower figure is followed at once; the same figure rounded up is not an increase', () => {
  let t = followTimeLeft(null, reading(10), 0)!;
  t = followTimeLeft(t, reading(4), 2000)!;
  assert.equal(timeLeftWords(t, 2000), 'exact price in ~4 s', 'down at once');
  // 1.5 s later the countdown is at 2.5 s; the server says 3 (it rounds up): nothing moves.
  const same = followTimeLeft(t, reading(3), 3500)!;
  assert.equal(same.at, t.at, 'still counting from the same figure');
  assert.equal(timeLeftWords(same, 3500), 'exact price in ~3 s');
  assert.equal(followTimeLeft(same, reading(null), 3600), same, 'no figure (cost unknown): keeps counting');
});

test('it goes up only with a reason, and says it', () => {
  // Queued behind one slice, then two (the queue grew): up, with the words.
  let t = followTimeLeft(null, reading(6, 'queue', 1), 0)!;
  t = followTimeLeft(t, reading(12, 'queue', 2), 2000)!;
  assert.equal(timeLeftWords(t, 2000), 'exact price in ~12 s — the queue grew');
  // The same queue, a higher figure (its slices ahead were re-estimated): no reason, keeps counting down.
  const noise = followTimeLeft(t, reading(20, 'queue', 2), 4000)!;
  assert.equal(timeLeftWords(noise, 4000), 'exact price in ~10 s — the queue grew');
  // The slice turned out longer than predicted: a new reason, up at once.
  let slow = followTimeLeft(null, reading(3), 0)!;
  slow = followTimeLeft(slow, reading(9, 'slower_than_predicted'), 2000)!;
  assert.equal(timeLeftWords(slow, 2000), 'exact price in ~9 s — slower than predicted');
  // Still slower, higher again before the countdown ran out: not shown; once it ran out, shown with its reason.
  const early = followTimeLeft(slow, reading(15, 'slower_than_predicted'), 4000)!;
  assert.equal(timeLeftWords(early, 4000), 'exact price in ~7 s — slower than predicted');
  const ranOut = followTimeLeft(early, reading(6, 'slower_than_predicted'), 12_000)!;
  assert.equal(timeLeftWords(ranOut, 12_000), 'exact price in ~6 s — slower than predicted');
  // Waiting for the same slice, already under way for another request.
  const same = followTimeLeft(followTimeLeft(null, reading(2), 0), reading(8, 'same_slice', 0), 2000)!;
  assert.equal(timeLeftWords(same, 2000), 'exact price in ~8 s — same slice under way');
});

test('the first figure says its reason too', () => {
  assert.equal(
    timeLeftWords(followTimeLeft(null, reading(9, 'queue', 2), 0), 0),
    'exact price in ~9 s — other parts go first',
  );
  assert.equal(timeLeftWords(followTimeLeft(null, reading(9), 0), 0), 'exact price in ~9 s');
});

test('the wait ahead underestimated is no reason: at zero it says "almost done" until the price comes', () => {
  // Queued, then slicing its own predicted 7 s after the countdown ran out: no reason, so no jump back up.
  let t = followTimeLeft(null, reading(3, 'queue', 1), 0)!;
  t = followTimeLeft(t, reading(7), 4000)!;
  assert.equal(timeLeftWords(t, 4000), 'almost done');
});

test("a changed choice is measured with its quality's published settings, its infill set", async () => {
  const { settingsFor, estimateKey } = await import('../widget/src/choice-estimate.ts');
  const published = (layer_height: number) => ({
    printer: { layer_height, fill_density: 20, perimeters: 2 },
    material: { density: 1.24, diameter: 1.75 },
  });
  const config = {
    default_quality: 'standard',
    slice_settings: published(0.2),
    qualities: [
      { id: 'standard', label: 'Standard', layer_height: 0.2, slice_settings: published(0.2) },
      { id: 'fine', label: 'Fine', layer_height: 0.1, slice_settings: published(0.1) },
      { id: 'gone', label: 'Gone', layer_height: 0.3, slice_settings: null },
    ],
  } as never;
  const fine = settingsFor(config, { quality: 'fine', infill: 100 }) as unknown as ReturnType<typeof published>;
  assert.deepEqual(fine.printer, { layer_height: 0.1, fill_density: 100, perimeters: 2 });
  assert.deepEqual(fine.material, { density: 1.24, diameter: 1.75 });
  assert.equal(settingsFor(config, { quality: 'gone', infill: 20 }), null, 'none published: no estimate of its own');
  // An estimate is for the choices that change the price per piece, at the part's size: not its colour.
  const choice = { material: 'PLA', quality: 'fine', infill: 100 };
  assert.equal(
    estimateKey({ ...choice, color: 'Red' } as never, 1),
    estimateKey({ ...choice, color: 'Blue' } as never, 1),
  );
  assert.notEqual(estimateKey(choice, 1), estimateKey(choice, 25.4), 'rescaled: another estimate');
});

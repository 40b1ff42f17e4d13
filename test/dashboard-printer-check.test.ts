// The dashboard's reading of an import check (dashboard/src/lib/printer-check.ts): agreement within docs/profiles.md's
// bounds, what to look at otherwise (less here points at custom G-code, a version gap at the slicer version), and
// the figures as a merchant reads them.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clockTime, type ProfileCheck, readCheck, signedPercent } from '../dashboard/src/lib/printer-check.ts';

const base: ProfileCheck = {
  profile_id: 'prof_x',
  material: 'Prusament PLA',
  reference_part: { name: 'cube.stl', triangles: 12, size_mm: { x: 20, y: 20, z: 20 } },
  slicer: { name: 'PrusaSlicer', version: '2.9.2' },
  slice: { filament_weight_g: 3.722, print_time_s: 1469, filament_length_mm: 1247.86 },
  shop_gcode: { filament_weight_g: 3.72, print_time_s: 1472, filament_length_mm: 1247.86, slicer_version: '2.9.2' },
  difference: { weight_percent: 0.05, time_percent: -0.2 },
};
const withDifference = (d: ProfileCheck['difference'], version = '2.9.2'): ProfileCheck => ({
  ...base,
  shop_gcode: { ...base.shop_gcode!, slicer_version: version },
  difference: d,
});

test('within ±0.5 % filament and ±1 % time the slices agree; no G-code, no reading', () => {
  assert.deepEqual(readCheck(base), { agrees: true, hints: [] });
  assert.equal(readCheck(withDifference({ weight_percent: -0.5, time_percent: 1 }))?.agrees, true);
  assert.equal(readCheck(withDifference({ weight_percent: null, time_percent: 0.9 }))?.agrees, true);
  assert.equal(readCheck({ ...base, shop_gcode: null, difference: null }), null);
});

test('less here points at custom G-code first, a weight gap at the infill, a version gap at the version', () => {
  const time = readCheck(withDifference({ weight_percent: 0.1, time_percent: -6.3 }))!;
  assert.equal(time.agrees, false);
  assert.match(time.hints[0]!, /custom G-code/);
  assert.match(time.hints[0]!, /keep_custom_gcode=true/);
  assert.ok(!time.hints.some((h) => /infill/.test(h)));
  // Lighter here: the purge line of the start G-code is the likeliest reason, then the infill.
  const lighter = readCheck(withDifference({ weight_percent: -1.67, time_percent: -0.82 }))!;
  assert.match(lighter.hints[0]!, /custom G-code/);
  assert.ok(lighter.hints.some((h) => /infill/.test(h)));
  // Heavier and longer here: no custom G-code can explain it.
  const heavier = readCheck(withDifference({ weight_percent: 12, time_percent: 3 }))!;
  assert.ok(!heavier.hints.some((h) => /custom G-code/.test(h)));
  assert.ok(heavier.hints.some((h) => /infill/.test(h)) && heavier.hints.some((h) => /exactly the presets/.test(h)));
  const version = readCheck(withDifference({ weight_percent: 0, time_percent: 3 }, '2.8.1'))!;
  assert.match(version.hints[0]!, /PrusaSlicer 2\.8\.1, this service slices with 2\.9\.2/);
});

test('figures as a merchant reads them', () => {
  assert.equal(signedPercent(0.05), '+0.05 %');
  assert.equal(signedPercent(-12.345), '−12.3 %');
  assert.equal(signedPercent(0), '±0.00 %');
  assert.equal(signedPercent(null), '—');
  assert.equal(clockTime(1469), '24 min 29 s');
  assert.equal(clockTime(5343), '1 h 29 min 3 s');
  assert.equal(clockTime(3600), '1 h 0 min 0 s');
  assert.equal(clockTime(42), '42 s');
});

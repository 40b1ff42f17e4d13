// The estimate of a quote on a shop's own printer follows the speeds and accelerations its imported config states
// per feature (docs/estimate.md, "A shop's own speeds"), read as PrusaSlicer reads them; the service's own config
// keeps the one-speed mapping the shipped calibration was fitted on.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { motionOfOptions } from '../server/slicer/estimate-motion.ts';
import { estimateSettingsOf } from '../server/slicer/index.ts';
import { extractFeatures, type FeatureMotion } from '../shared/estimate/index.ts';
import { referenceMotion } from '../shared/estimate/params.ts';
import { DEFAULT_SETTINGS, type ResolvedSettings } from '../shared/settings.ts';
import { meshOf } from './helpers/estimate-inputs.ts';
import { boxObj } from './helpers/solids.ts';

const settings = (): ResolvedSettings => structuredClone(DEFAULT_SETTINGS);

// An MK3S's "0.20mm QUALITY @MK3" as PrusaSlicer writes it, the options the motion depends on.
const MK3S: Record<string, string> = {
  perimeter_speed: '45',
  external_perimeter_speed: '25',
  infill_speed: '80',
  solid_infill_speed: '80',
  top_solid_infill_speed: '40',
  bridge_speed: '25',
  gap_fill_speed: '40',
  support_material_speed: '50',
  support_material_interface_speed: '80%',
  first_layer_speed: '20',
  travel_speed: '180',
  max_print_speed: '200',
  default_acceleration: '1000',
  perimeter_acceleration: '800',
  infill_acceleration: '1000',
  travel_acceleration: '0',
  machine_limits_usage: 'emit_to_gcode',
  machine_max_acceleration_extruding: '1250,1250',
  machine_max_acceleration_x: '1000,960',
  machine_max_acceleration_travel: '1500,1250',
  filament_max_volumetric_speed: '15',
  cooling: '1',
  slowdown_below_layer_time: '12',
  min_print_speed: '15',
};

test('speeds per feature as stated, percentages of the speed they derive from, accelerations within the machine limits', () => {
  const m = motionOfOptions(MK3S, settings());
  assert.equal(m.perimeter_mm_s, 45);
  assert.equal(m.external_perimeter_mm_s, 25);
  assert.equal(m.infill_mm_s, 80);
  assert.equal(m.top_solid_infill_mm_s, 40);
  assert.equal(m.support_interface_mm_s, 40, '80 % of the support speed');
  assert.equal(m.first_layer_mm_s, 20);
  assert.equal(m.travel_mm_s, 180);
  assert.equal(m.perimeter_acceleration_mm_s2, 800);
  assert.equal(m.infill_acceleration_mm_s2, 1000, 'the X axis limit (1000) is the tighter one');
  assert.equal(m.travel_acceleration_mm_s2, 1500, 'no travel acceleration stated: the machine limit');
  assert.equal(m.slowdown_below_layer_time_s, 12);
  assert.equal(m.min_print_speed_mm_s, 15);
});

test('a long retraction and a lift around each travel take their time', () => {
  const plain = motionOfOptions({ ...MK3S, retract_length: '0.8', retract_speed: '35', retract_lift: '0' }, settings());
  const lifted = motionOfOptions(
    { ...MK3S, retract_length: '0.8', retract_speed: '35', retract_lift: '0.4' },
    settings(),
  );
  const bowden = motionOfOptions({ ...MK3S, retract_length: '5', retract_speed: '40', retract_lift: '0' }, settings());
  // 0.4 mm up and down at the 10 mm/s a config without Z limits or a Z travel speed is read with.
  assert.ok(Math.abs(lifted.retraction_s - plain.retraction_s - 0.08) < 1e-9, `${lifted.retraction_s} s`);
  assert.ok(bowden.retraction_s > 3 * plain.retraction_s, `${bowden.retraction_s} s against ${plain.retraction_s} s`);
});

test('automatic speeds (0) print as fast as the volumetric limit allows, within the maximum print speed', () => {
  const m = motionOfOptions({ ...MK3S, infill_speed: '0', perimeter_speed: '0', max_print_speed: '80' }, settings());
  // 15 mm³/s over a 0.2 mm × 0.45 mm line is 167 mm/s, above the 80 mm/s maximum.
  assert.equal(m.infill_mm_s, 80);
  const tight = motionOfOptions({ ...MK3S, infill_speed: '200', filament_max_volumetric_speed: '5' }, settings());
  assert.ok(Math.abs(tight.infill_mm_s - 5 / (0.2 * 0.45)) < 1e-9, `${tight.infill_mm_s} mm/s: the volumetric limit`);
});

test('limits the config neither emits nor estimates with do not cap its accelerations; cooling off slows nothing', () => {
  const m = motionOfOptions(
    { ...MK3S, machine_limits_usage: 'ignore', perimeter_acceleration: '4000', cooling: '0' },
    settings(),
  );
  assert.equal(m.perimeter_acceleration_mm_s2, 4000);
  assert.equal(m.slowdown_below_layer_time_s, 0);
});

test("the service's own settings carry no motion: the estimator's one-speed mapping stands", () => {
  assert.equal(estimateSettingsOf(settings()).motion, undefined);
  const imported = { ...settings(), imported: { options: MK3S, sources: {}, explicit: [] } };
  assert.equal(estimateSettingsOf(imported).motion?.perimeter_mm_s, 45);
});

test('the one-speed mapping stated as a motion gives the same features: the shipped calibration still applies', () => {
  const mesh = meshOf(boxObj(0, 0, 0, 30, 20, 10));
  const s = settings();
  const plain = extractFeatures(mesh, s);
  const stated = extractFeatures(mesh, { ...s, motion: referenceMotion(s.printer) });
  for (const [term, seconds] of Object.entries(plain.time_terms)) {
    const other = stated.time_terms[term as keyof typeof stated.time_terms];
    assert.ok(Math.abs(other - seconds) <= 1e-9 * Math.max(1, seconds), `${term}: ${other} against ${seconds}`);
  }
});

test("slower perimeters than the print speed make a longer estimate, the walls' share most", () => {
  const mesh = meshOf(boxObj(0, 0, 0, 30, 20, 10));
  const s = settings();
  const fast = extractFeatures(mesh, s);
  const motion: FeatureMotion = { ...referenceMotion(s.printer), perimeter_mm_s: 20, external_perimeter_mm_s: 10 };
  const slow = extractFeatures(mesh, { ...s, motion });
  assert.ok(
    slow.time_terms.walls > 1.5 * fast.time_terms.walls,
    `${slow.time_terms.walls} s against ${fast.time_terms.walls} s`,
  );
  assert.equal(slow.time_terms.sparse, fast.time_terms.sparse, 'infill keeps its speed');
});

test('a stated motion with a speed that is not a positive number is refused, naming it', () => {
  const s = settings();
  const motion = { ...referenceMotion(s.printer), infill_mm_s: Number.NaN };
  assert.throws(() => extractFeatures(meshOf(boxObj(0, 0, 0, 10, 10, 10)), { ...s, motion }), /motion\.infill_mm_s/);
});

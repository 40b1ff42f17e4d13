// The estimator's rules (shared/estimate, docs/estimate.md) on small synthetic parts, against the real PrusaSlicer:
// a wall thinner than two perimeters, a shallow slope, a bridge (with supports: none under the span), a shelf whose
// supports land on the part below, and the print time of a thin-walled tube's perimeter loops and of nine small
// pillars. Uncalibrated: the physical model alone must follow the slicer here. No timing of the estimator itself:
// its latency is for the bench.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sliceOnce } from '../server/slicer/engine.ts';
import { extractFeatures, predict, UNCALIBRATED } from '../shared/estimate/index.ts';
import { type Mesh, writeCanonicalObj } from '../shared/model/index.ts';
import { DEFAULT_SETTINGS, type ResolvedSettings } from '../shared/settings.ts';
import { meshOf, settingsWith } from './helpers/estimate-inputs.ts';
import { BRIDGE_OBJ } from './helpers/meshes.ts';
import { boxObj, prismZObj, pyramidObj, regularPolygon, tubeObj } from './helpers/solids.ts';

const dir = mkdtempSync(join(tmpdir(), 'sq-estimate-rules-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** PrusaSlicer's extruded volume and the estimator's (uncalibrated) for one mesh and settings. */
async function compare(name: string, mesh: Mesh, s: ResolvedSettings) {
  const meshPath = join(dir, `${name}.obj`);
  writeFileSync(meshPath, writeCanonicalObj(mesh));
  const real = await sliceOnce({ meshPath, settings: s, timeoutMs: 300_000 });
  // The slicer's version decides which overhangs are bridges (shared/estimate/bridges.ts).
  const features = extractFeatures(mesh, s, { slicerVersion: real.slicer.version });
  const estimate = predict(features, s, UNCALIBRATED);
  return {
    real: real.stats.extruded_volume_mm3,
    estimate: estimate.filament_volume_mm3,
    features,
    realTime: real.stats.print_time_s,
    estimatedTime: estimate.estimated_time_seconds,
  };
}

/** Several OBJ bodies as one file (face indices shifted past the earlier bodies' vertices). */
function joinObjs(bodies: string[]): string {
  const lines: string[] = [];
  let offset = 0;
  for (const body of bodies) {
    const rows = body.split('\n').filter(Boolean);
    for (const row of rows) {
      const shifted = row
        .slice(2)
        .split(' ')
        .map((i) => Number(i) + offset);
      lines.push(row.startsWith('f ') ? `f ${shifted.join(' ')}` : row);
    }
    offset += rows.filter((row) => row.startsWith('v ')).length;
  }
  return `${lines.join('\n')}\n`;
}

const within = (actual: number, expected: number, rel: number, what: string) =>
  assert.ok(
    Math.abs(actual / expected - 1) <= rel,
    `${what}: estimate ${actual.toFixed(1)} mm³ vs PrusaSlicer ${expected.toFixed(1)} mm³ (±${rel * 100} %)`,
  );

describe('the estimator follows the slicer on small parts', () => {
  test('a wall 1 mm thin is all perimeters (thin walls, gap fill): no infill of its own', async () => {
    const r = await compare('thin', meshOf(boxObj(0, 0, 0, 30, 1, 10)), DEFAULT_SETTINGS);
    assert.equal(r.features.sparse_area_mm2, 0);
    within(r.estimate, r.real, 0.06, 'thin wall'); // 2.5.0: 294.7 mm³ against 308.1 estimated
  });

  test('a shallow slope gets its top shells on every step', async () => {
    const r = await compare(
      'slope',
      meshOf(
        pyramidObj(
          [
            [0, 0],
            [40, 0],
            [40, 40],
            [0, 40],
          ],
          6,
          [20, 20],
        ),
      ),
      DEFAULT_SETTINGS,
    );
    within(r.estimate, r.real, 0.1, 'shallow pyramid'); // 2.5.0: 2630 mm³ against 2402 estimated
  });

  test('a bridge between two pillars is printed as a bridge, not as an overhang to fill', async () => {
    const r = await compare('bridge', meshOf(BRIDGE_OBJ), DEFAULT_SETTINGS);
    assert.ok(r.features.bridge_area_mm2 > 0);
    within(r.estimate, r.real, 0.03, 'bridge'); // 2.5.0: 2359 mm³ against 2329 estimated
  });

  test('a bridge held on both sides gets no supports under it (dont_support_bridges); its free ends do', async () => {
    const on = await compare('bridge-supports', meshOf(BRIDGE_OBJ), settingsWith({ support_material: true }));
    const off = await compare('bridge-no-supports', meshOf(BRIDGE_OBJ), DEFAULT_SETTINGS);
    // 2.5.0: 596 mm³ of support, under the deck's two free ends only; 684 estimated (1140 with the span supported).
    // 2.9.2: 499 mm³, under the free ends' edge bands only; 566 estimated (684 with 2.5's rule).
    within(on.estimate - off.estimate, on.real - off.real, 0.2, 'support volume');
  });

  test('the supports under a shelf land on the base below it, not on the bed', async () => {
    const shelf = [boxObj(0, 0, 0, 30, 15, 4), boxObj(0, 0, 4, 8, 15, 22), boxObj(0, 0, 22, 30, 15, 26)];
    const lines: string[] = [];
    let offset = 0;
    for (const body of shelf) {
      const rows = body.split('\n').filter(Boolean);
      for (const row of rows)
        lines.push(
          row.startsWith('f ')
            ? `f ${row
                .slice(2)
                .split(' ')
                .map((i) => Number(i) + offset)
                .join(' ')}`
            : row,
        );
      offset += rows.filter((row) => row.startsWith('v ')).length;
    }
    const mesh = meshOf(`${lines.join('\n')}\n`);
    const on = settingsWith({ support_material: true });
    const r = await compare('shelf', mesh, on);
    const off = await compare('shelf-off', mesh, DEFAULT_SETTINGS);
    // Columns under the shelf's free 22 × 15 mm: 18 mm tall down to the base's top (z 4), 22 mm to the bed.
    assert.ok(r.features.support_column_mm3 < 22 * 15 * 20, `columns ${r.features.support_column_mm3} mm³`);
    // 2.5.0: 1004 mm³ of support against 1077 estimated (the shelf supported whole). 2.9.2: 677 mm³ against 647,
    // its three free edges supported (1077 with 2.5's rule).
    within(r.estimate - off.estimate, r.real - off.real, 0.1, 'support volume');
  });

  test('a thin-walled tube’s time: its four loops planned along the circles, not the wall band as lines', async () => {
    // 2 mm wall, 2 perimeters: two loops on the outside, two around the hole, widened by Arachne to fill it. The
    // area model counted the whole band as lines at the inner perimeters' pace.
    const r = await compare('tube', meshOf(tubeObj(128, 15, 13, 12)), DEFAULT_SETTINGS);
    const error = r.estimatedTime / r.realTime - 1;
    // 2.5.0: 570 s against 582 estimated (the area model: 701 s, +23 %).
    assert.ok(Math.abs(error) <= 0.08, `tube: estimate ${r.estimatedTime.toFixed(0)} s vs PrusaSlicer ${r.realTime} s`);
  });

  test('nine small pillars’ time: small perimeters at half speed, and a hop with retraction to each pillar', async () => {
    const pillars: string[] = [];
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 3; j++) pillars.push(prismZObj(regularPolygon(48, 3, i * 15, j * 15), 0, 10));
    const r = await compare('pillars', meshOf(joinObjs(pillars)), DEFAULT_SETTINGS);
    const error = r.estimatedTime / r.realTime - 1;
    // 2.5.0: 957 s against 967 estimated (the area model, at full speed and without travel: 660 s, −31 %).
    assert.ok(
      Math.abs(error) <= 0.08,
      `pillars: estimate ${r.estimatedTime.toFixed(0)} s vs PrusaSlicer ${r.realTime} s`,
    );
  });
});

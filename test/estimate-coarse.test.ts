// The estimator's coarse stage (shared/estimate coarse-*.ts, docs/estimate.md "Coarse to fine"): the one pass over
// the triangles measured on solids whose volume, areas and sections are known, the features and their settings,
// the coarse calibration's fit and checks, and the bounds. Accuracy against real slices is measured by
// `npm run bench -- estimate`, not here.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { coarsePass, type PassOptions } from '../shared/estimate/coarse-pass.ts';
import {
  type CoarseSample,
  checkCoarseCalibration,
  DEFAULT_COARSE_CALIBRATION,
  EstimateError,
  extractCoarseFeatures,
  fitCoarseCalibration,
  MAX_LAYERS,
  predictCoarse,
} from '../shared/estimate/index.ts';
import { meshOf, settingsWith } from './helpers/estimate-inputs.ts';
import { WEDGE_OBJ } from './helpers/meshes.ts';
import { boxObj, prismZObj, pyramidObj, regularPolygon } from './helpers/solids.ts';

const close = (actual: number | undefined, expected: number, rel = 1e-9, what = '') =>
  assert.ok(
    actual !== undefined && Math.abs(actual - expected) <= rel * Math.max(1, Math.abs(expected)),
    `${what} ${actual} is not ${expected} (±${rel} relative)`,
  );

const sum = (a: Float64Array) => a.reduce((s, v) => s + v, 0);
const options = (layerHeight = 0.2, overhangSin: number | null = null): PassOptions => ({
  layerHeight,
  overhangSin,
  shellReach: { top: 0.2, bottom: 0.2 },
});

function refusedWith(code: string, fn: () => unknown) {
  assert.throws(fn, (e: unknown) => e instanceof EstimateError && e.code === code && e.message.length > 10);
}

/** The OBJ with every triangle's winding reversed: an inside-out file. */
const insideOut = (obj: string) =>
  obj.replace(/^f (\d+) (\d+) (\d+)$/gm, (_, a: string, b: string, c: string) => `f ${a} ${c} ${b}`);

describe('the coarse pass', () => {
  test("a box's volume, surface, lateral area, faces up and down and every layer's volume, exactly", () => {
    for (const obj of [boxObj(3, -2, 7, 23, 8, 12), insideOut(boxObj(3, -2, 7, 23, 8, 12))]) {
      const pass = coarsePass(meshOf(obj), options());
      assert.equal(pass.layers, 25);
      close(pass.volume_mm3, 20 * 10 * 5, 1e-12, 'volume');
      close(pass.surface_mm2, 2 * (200 + 20 * 5 + 10 * 5), 1e-12, 'surface');
      close(sum(pass.lateral), 2 * (20 + 10) * 5, 1e-12, 'lateral');
      close(sum(pass.up), 200, 1e-12, 'up');
      close(sum(pass.down), 200, 1e-12, 'down');
      close(pass.up[24], 200, 1e-12, 'the top face in the last layer');
      close(pass.down[0], 200, 1e-12, 'the bottom face in the first layer');
      for (const [i, v] of pass.volume.entries()) close(v, 200 * 0.2, 1e-9, `layer ${i}`);
      for (const [i, v] of pass.lateral.entries()) close(v, 60 * 0.2, 1e-9, `layer ${i}'s perimeter × height`);
      assert.deepEqual([pass.sizeX, pass.sizeY, pass.height_mm], [20, 10, 5]);
    }
  });

  test("a part whose height is no whole number of layers: the last layer is the part's rest", () => {
    const pass = coarsePass(meshOf(boxObj(0, 0, 0, 10, 10, 5.1)), options());
    assert.equal(pass.layers, 26);
    close(pass.volume[25], 100 * 0.1, 1e-9, 'the last, 0.1 mm layer');
    close(pass.volume_mm3, 510, 1e-12);
  });

  test("a pyramid's layers hold the volume between their planes: (a/H)²·∫(H − z)² dz", () => {
    const a = 20;
    const H = 15;
    const pass = coarsePass(meshOf(pyramidObj(regularPolygon(4, a / Math.SQRT2), H)), options(0.3));
    const below = (z: number) => (a * a * (H ** 3 - (H - z) ** 3)) / (3 * H * H);
    for (const [i, v] of pass.volume.entries())
      close(v, below(Math.min(H, (i + 1) * 0.3)) - below(i * 0.3), 1e-9, `layer ${i}`);
    // Seen from above, the four sides cover the base once; seen from below, the base.
    close(sum(pass.up), a * a, 1e-9, 'the sides seen from above');
    close(sum(pass.down), a * a, 1e-9, 'the base');
  });

  test('a prism over a regular polygon: perimeter × height per layer, whatever the triangles', () => {
    const poly = regularPolygon(48, 12);
    const side = 2 * 12 * Math.sin(Math.PI / 48);
    const pass = coarsePass(meshOf(prismZObj(poly, 0, 7)), options());
    close(sum(pass.lateral), 48 * side * 7, 1e-9, 'lateral');
    const area = (48 / 2) * 12 * 12 * Math.sin((2 * Math.PI) / 48);
    for (const [i, v] of pass.volume.entries()) close(v, area * 0.2, 1e-9, `layer ${i}`);
  });

  test('overhangs beyond the support angle are collected off the bed only, and only with supports', () => {
    const wedge = meshOf(WEDGE_OBJ);
    const run = 5 * Math.tan(Math.PI / 3);
    const depth = 1000 / ((4 + run) * 2.5);
    const pass = coarsePass(wedge, options(0.2, Math.sin(Math.PI / 4)));
    close(sum(pass.overhang), run * depth, 1e-9, 'the leaning face seen from below');
    assert.equal(sum(coarsePass(wedge, options(0.2, null)).overhang), 0);
    // A box's bottom rests on the bed: nothing to support.
    assert.equal(sum(coarsePass(meshOf(boxObj(0, 0, 0, 10, 10, 10)), options(0.2, 0.7)).overhang), 0);
  });

  test("shells beyond the walls: a flat face's all, a steep face's none", () => {
    const reach = { top: 0.9 / 5, bottom: 0.9 / 4 };
    const box = coarsePass(meshOf(boxObj(0, 0, 0, 10, 10, 10)), { ...options(), shellReach: reach });
    close(sum(box.upShell), 100, 1e-12);
    close(sum(box.downShell), 100, 1e-12);
    // A cone of slope 40/20: each layer exposes 0.1 mm, five layers 0.5 mm, over the walls' 0.9 mm: no shells.
    const cone = coarsePass(meshOf(pyramidObj(regularPolygon(96, 20), 40)), { ...options(), shellReach: reach });
    assert.equal(sum(cone.upShell), 0);
    close(sum(cone.up), Math.PI * 400, 0.01, 'the cone seen from above');
  });

  test('refuses what it cannot measure, before any per-layer work', () => {
    refusedWith('empty_mesh', () =>
      coarsePass({ positions: new Float64Array(), indices: new Uint32Array() }, options()),
    );
    const flat = { positions: new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0]), indices: new Uint32Array([0, 1, 2]) };
    refusedWith('flat_mesh', () => coarsePass(flat, options()));
    const tall = meshOf(boxObj(0, 0, 0, 1, 1, (MAX_LAYERS + 1) * 0.2));
    refusedWith('too_many_layers', () => coarsePass(tall, options()));
    const nan = meshOf(boxObj(0, 0, 0, 1, 1, 1));
    nan.positions[4] = Number.NaN;
    refusedWith('invalid_mesh', () => coarsePass(nan, options()));
  });
});

describe('the coarse features and estimate', () => {
  const cube = meshOf(boxObj(0, 0, 0, 20, 20, 20));

  test("a cube's features: its volume and areas, the settings they were measured with, plain JSON", () => {
    const f = extractCoarseFeatures(cube, settingsWith());
    close(f.volume_mm3, 8000, 1e-12);
    close(f.surface_mm2, 2400, 1e-12);
    close(f.lateral_mm2, 1600, 1e-12);
    close(f.footprint_mm2, 400, 1e-9);
    assert.equal(f.layers, 100);
    assert.equal(f.basis.layer_height_mm, 0.2);
    assert.deepEqual(JSON.parse(JSON.stringify(f)), f, 'survives JSON (the widget posts it)');
    // The physical model's regions add up: walls, solid and sparse fill the section, no support without supports.
    const v = f.volume_terms;
    assert.equal(v.support, 0);
    assert.ok(v.walls > 0 && v.solid > 0 && v.sparse > 0);
    // Walls: a 0.9 mm band (2 × 0.45 mm spacing, less the layer's rounding) along the 80 mm perimeter.
    close(v.walls, 80 * 2 * 0.4 * (1.125 - (0.2 * (1 - Math.PI / 4)) / 0.4) * 0.2 * 100, 0.01, 'walls');
  });

  test('the shipped coarse calibration: checked, fitted on real slices, its ranges hold the estimate', () => {
    checkCoarseCalibration(DEFAULT_COARSE_CALIBRATION);
    assert.ok(DEFAULT_COARSE_CALIBRATION.samples > 0);
    const e = predictCoarse(extractCoarseFeatures(cube, settingsWith()), settingsWith(), DEFAULT_COARSE_CALIBRATION);
    assert.equal(e.method, 'coarse');
    assert.ok(e.weight_range[0] <= e.filament_weight_g && e.filament_weight_g <= e.weight_range[1]);
    assert.ok(e.time_range[0] <= e.estimated_time_seconds && e.estimated_time_seconds <= e.time_range[1]);
    // 20 mm cube, 2 perimeters, 20 % infill, PLA: about 3.4 cm³, 4.2 g of filament in PrusaSlicer 2.9.2's slice.
    assert.ok(e.filament_weight_g > 3.5 && e.filament_weight_g < 4.7, `${e.filament_weight_g} g`);
  });

  test('features measured with other settings, or of another version, are refused', () => {
    const f = extractCoarseFeatures(cube, settingsWith());
    refusedWith('features_mismatch', () =>
      predictCoarse(f, settingsWith({ fill_density: 40 }), DEFAULT_COARSE_CALIBRATION),
    );
    refusedWith('features_mismatch', () =>
      predictCoarse({ ...f, coarse_version: 0 }, settingsWith(), DEFAULT_COARSE_CALIBRATION),
    );
    refusedWith('invalid_calibration', () =>
      predictCoarse(f, settingsWith(), { ...DEFAULT_COARSE_CALIBRATION, coarse_features_version: 0 }),
    );
    // Only the material's density may differ: grams are computed from the volume.
    const pla = predictCoarse(f, settingsWith(), DEFAULT_COARSE_CALIBRATION);
    const dense = settingsWith();
    dense.material.density *= 2;
    close(predictCoarse(f, dense, DEFAULT_COARSE_CALIBRATION).filament_weight_g, 2 * pla.filament_weight_g, 1e-12);
  });

  test('a fit: its coefficients follow the slices, its ranges come from models held out and contain 0', () => {
    const shapes = [boxObj(0, 0, 0, 20, 20, 20), boxObj(0, 0, 0, 30, 10, 8), prismZObj(regularPolygon(32, 9), 0, 25)];
    const samples: CoarseSample[] = shapes.flatMap((obj, k) =>
      [10, 20, 40].map((infill) => {
        const features = extractCoarseFeatures(meshOf(obj), settingsWith({ fill_density: infill }));
        // "Real" slices 10 % heavier and 20 % slower than the physical model, with a per-model wobble.
        const volume = Object.values(features.volume_terms).reduce((a, b) => a + b, 0) * (1.1 + 0.01 * k);
        const time = Object.values(features.time_terms).reduce((a, b) => a + b, 0) * 1.2;
        return { features, volume_mm3: volume, time_s: time, group: `shape ${k}` };
      }),
    );
    const c = fitCoarseCalibration(samples, { volume: 0, time: 0 });
    checkCoarseCalibration(c);
    assert.equal(c.samples, 9);
    assert.equal(c.groups, 3);
    for (const r of [c.volume.range, c.time.range]) assert.ok(r.lo <= 0 && r.hi >= 0);
    refusedWith('invalid_samples', () => fitCoarseCalibration(samples.slice(0, 3)));
    refusedWith('invalid_samples', () => fitCoarseCalibration([{ ...samples[0]!, time_s: Number.NaN }, samples[5]!]));
  });
});

// The instant estimator (shared/estimate, docs/estimate.md): exact cross-sections of solids whose sections are
// known, the support approximation, the calibration fit and its ranges, and refusals of hostile input. Accuracy
// against real slices is measured by `npm run bench -- estimate`, not here.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type CalibrationSample,
  DEFAULT_CALIBRATION,
  EstimateError,
  extractFeatures,
  type Features,
  fitCalibration,
  MAX_LAYERS,
  placeMesh,
  predict,
  scaleFromExact,
  UNCALIBRATED,
} from '../shared/estimate/index.ts';
import { layerPolygons } from '../shared/estimate/layer-polygons.ts';
import { type LayerRegions, layerRegions } from '../shared/estimate/layer-regions.ts';
import { planeZ, sweepLayers } from '../shared/estimate/layer-sweep.ts';
import { DEFAULT_SETTINGS, type ResolvedSettings } from '../shared/settings.ts';
import { meshOf, settingsWith } from './helpers/estimate-inputs.ts';
import { CUBE_OBJ, T_SHAPE_OBJ, WEDGE_OBJ } from './helpers/meshes.ts';
import { hollowBoxObj, prismZObj, pyramidObj, regularPolygon, tubeObj } from './helpers/solids.ts';

const close = (actual: number | undefined, expected: number, rel = 1e-9, what = '') =>
  assert.ok(
    actual !== undefined && Math.abs(actual - expected) <= rel * Math.max(1, Math.abs(expected)),
    `${what} ${actual} is not ${expected} (±${rel} relative)`,
  );

function refusedWith(code: string, fn: () => unknown) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof EstimateError, `expected an EstimateError, got ${String(e)}`);
    assert.equal(e.code, code);
    assert.ok(e.message.length > 10, 'the refusal explains itself');
    return true;
  });
}

describe('cross-sections of solids with known sections', () => {
  test('a 20 mm cube: 100 layers of perimeter 4a and area a²', () => {
    const sweep = sweepLayers(meshOf(CUBE_OBJ), 0.2, null);
    assert.equal(sweep.layers, 100);
    for (let i = 0; i < sweep.layers; i++) {
      close(sweep.perimeter[i], 80, 1e-9, `layer ${i} perimeter`);
      close(sweep.area[i], 400, 1e-9, `layer ${i} area`);
    }
    const f = extractFeatures(meshOf(CUBE_OBJ), DEFAULT_SETTINGS);
    close(f.perimeter_mm, 8000, 1e-9);
    close(f.section_area_mm2 * 0.2, 8000, 1e-9, 'volume');
  });

  test('a 64-sided cylinder: the polygon’s perimeter and area at every layer', () => {
    const n = 64;
    const r = 10;
    const sweep = sweepLayers(meshOf(prismZObj(regularPolygon(n, r), 0, 15)), 0.3, null);
    assert.equal(sweep.layers, 50);
    const perimeter = 2 * n * r * Math.sin(Math.PI / n);
    const area = (n / 2) * r * r * Math.sin((2 * Math.PI) / n);
    for (let i = 0; i < sweep.layers; i++) {
      close(sweep.perimeter[i], perimeter, 1e-9, `layer ${i} perimeter`);
      close(sweep.area[i], area, 1e-9, `layer ${i} area`);
    }
  });

  test('a box with a sealed cavity: the cavity’s perimeter adds, its area subtracts', () => {
    const sweep = sweepLayers(meshOf(hollowBoxObj(30, 30, 20, 5)), 0.2, null);
    assert.equal(sweep.layers, 150);
    for (let i = 0; i < sweep.layers; i++) {
      const z = planeZ(i, 0.2, 30);
      const inCavity = z > 5 && z < 25;
      close(sweep.perimeter[i], inCavity ? 200 : 120, 1e-9, `layer ${i} perimeter`);
      close(sweep.area[i], inCavity ? 500 : 900, 1e-9, `layer ${i} area`);
    }
  });

  test('a tube: an annulus in every layer', () => {
    const n = 48;
    const sweep = sweepLayers(meshOf(tubeObj(n, 20, 18, 10)), 0.25, null);
    const polygon = (r: number) => (n / 2) * r * r * Math.sin((2 * Math.PI) / n);
    const edge = (r: number) => 2 * n * r * Math.sin(Math.PI / n);
    for (let i = 0; i < sweep.layers; i++) {
      close(sweep.area[i], polygon(20) - polygon(18), 1e-9, `layer ${i} area`);
      close(sweep.perimeter[i], edge(20) + edge(18), 1e-9, `layer ${i} perimeter`);
    }
  });

  test('a square pyramid: side a·(1 − z/h) at each plane', () => {
    const a = 20;
    const h = 10;
    const base: [number, number][] = [
      [-10, -10],
      [10, -10],
      [10, 10],
      [-10, 10],
    ];
    const sweep = sweepLayers(meshOf(pyramidObj(base, h)), 0.2, null);
    assert.equal(sweep.layers, 50);
    for (let i = 0; i < sweep.layers; i++) {
      const side = a * (1 - planeZ(i, 0.2, h) / h);
      close(sweep.perimeter[i], 4 * side, 1e-9, `layer ${i} perimeter`);
      close(sweep.area[i], side * side, 1e-9, `layer ${i} area`);
    }
  });

  test('an inside-out mesh has the same sections, and the mesh may sit anywhere in space', () => {
    const mesh = meshOf(CUBE_OBJ);
    const flipped = new Uint32Array(mesh.indices);
    for (let i = 0; i < flipped.length; i += 3) [flipped[i + 1], flipped[i + 2]] = [flipped[i + 2]!, flipped[i + 1]!];
    const moved = mesh.positions.map((v, i) => v + [1000, -500, 37][i % 3]!);
    const a = extractFeatures(mesh, DEFAULT_SETTINGS);
    const b = extractFeatures({ positions: moved, indices: flipped }, DEFAULT_SETTINGS);
    close(b.section_area_mm2, a.section_area_mm2, 1e-9);
    close(b.perimeter_mm, a.perimeter_mm, 1e-9);
  });
});

describe('placement', () => {
  test('the server’s transform: scale, then X, Y, Z; a side tilt puts that side down', () => {
    // T_SHAPE is 40 × 10 × 25 mm: laid on its −y side (SIDE_TILTS in server/placement/orient.ts: x = 90°) it is
    // 10 mm high, and its plate (z 20…25) becomes the band y 20…25 standing on the bed.
    const t = meshOf(T_SHAPE_OBJ);
    const laid = placeMesh(t, { scale: 2, rotate_x: 90, rotate_y: 0, rotate_z: 0 });
    const f = extractFeatures(laid, DEFAULT_SETTINGS);
    close(f.height_mm, 20, 1e-9, 'height');
    close(f.size_mm[1], 50, 1e-9, 'depth');
    const zs = laid.positions.filter((_, i) => i % 3 === 2);
    const bottom = Math.min(...zs);
    for (let v = 0; v < t.positions.length / 3; v++) {
      // The −y side (y = 0) lies on the bed, the +y side (y = 10, ×2) at the top.
      const z = laid.positions[v * 3 + 2];
      const y = t.positions[v * 3 + 1];
      assert.ok(z !== undefined && y !== undefined, `vertex ${v} is missing`);
      close(z - bottom, 2 * y, 1e-9, `vertex ${v} height`);
    }
    const onX = placeMesh(t, { scale: 1, rotate_x: 0, rotate_y: 90, rotate_z: 0 });
    close(extractFeatures(onX, DEFAULT_SETTINGS).height_mm, 40, 1e-9, 'laid on its x side: 40 mm high');
    const turned = placeMesh(t, { scale: 1, rotate_x: 0, rotate_y: 0, rotate_z: 37 });
    // The section polygons are in micrometres, simplified to 12 µm: turned, they agree to about 1e-5.
    close(
      extractFeatures(turned, DEFAULT_SETTINGS).section_area_mm2,
      extractFeatures(t, DEFAULT_SETTINGS).section_area_mm2,
      1e-4,
    );
    refusedWith('invalid_mesh', () => placeMesh(t, { scale: 0, rotate_x: 0, rotate_y: 0, rotate_z: 0 }));
    refusedWith('invalid_mesh', () => placeMesh(t, { scale: 1, rotate_x: Number.NaN, rotate_y: 0, rotate_z: 0 }));
  });
});

describe('solid layers and regions', () => {
  test('a cube: bottom and top solid layers are solid, the middle sparse, walls the inset of the section', () => {
    const f = extractFeatures(meshOf(CUBE_OBJ), DEFAULT_SETTINGS);
    // 2 perimeters at the 0.45 mm flow's spacing: the infill area is the 20 mm square inset by 2 spacings (µm).
    const inner = (20 - 2 * 2 * (0.45 - 0.2 * (1 - Math.PI / 4))) ** 2;
    assert.equal(f.polygons, true);
    // Offsets round to whole micrometres: about 1 µm on an 18 mm side, 2e-4 of the band.
    close(f.wall_area_mm2, 100 * (400 - inner), 5e-4, 'walls');
    close(f.solid_area_mm2, (4 + 5) * inner, 5e-5, 'solid: 4 bottom + 5 top layers');
    close(f.sparse_area_mm2, (100 - 9) * inner, 5e-5, 'sparse');
    close(f.volume_terms.sparse, f.sparse_area_mm2 * 0.2 * 0.2, 1e-9, 'sparse volume at 20 %');
  });

  test('a cube’s perimeter loops, planned: from the jerk speed at each corner to full speed along each side', () => {
    const f = extractFeatures(meshOf(CUBE_OBJ), DEFAULT_SETTINGS);
    const spacing = 0.45 - 0.2 * (1 - Math.PI / 4);
    const [a, jerk] = [1250, 8];
    // Loop k runs (k + ½) spacings inside the section: a square of side 20 − (2k + 1)·spacing. A 90° turn changes
    // one axis by the whole speed, so each corner is taken at the jerk, 8 mm/s; each side accelerates from it to
    // v and brakes back at 1250 mm/s².
    const loop = (k: number, v: number) => {
      const side = 20 - (2 * k + 1) * spacing;
      const ramp = (v * v - jerk * jerk) / (2 * a);
      return { cruise: (4 * side) / v, planned: 4 * ((2 * (v - jerk)) / a + (side - 2 * ramp) / v) };
    };
    // Layers 1…99: the external loop at 30 mm/s, the inner one at 60.
    const outer = loop(0, 30);
    const inner = loop(1, 60);
    close(f.time_terms.walls, 99 * (outer.cruise + inner.cruise), 1e-6, 'loops at their speeds');
    close(f.time_terms.corners, 99 * (outer.planned - outer.cruise + inner.planned - inner.cruise), 1e-6, 'planned');
    // A 96-gon turns 3.75° at a time: no axis changes by the jerk, so only each loop's start and stop cost time,
    // accelerating from 8 mm/s and braking back: (v − 8)² / (a·v) per loop. Layers 1…49.
    const cylinder = extractFeatures(meshOf(prismZObj(regularPolygon(96, 10), 0, 10)), DEFAULT_SETTINGS);
    const startStop = (v: number) => (v - jerk) ** 2 / (a * v);
    close(cylinder.time_terms.corners, 49 * (startStop(30) + startStop(60)), 1e-6, 'cylinder');
  });

  test('more infill, more walls, more volume; thicker layers, fewer layers', () => {
    const mesh = meshOf(CUBE_OBJ);
    const base = predict(extractFeatures(mesh, DEFAULT_SETTINGS), DEFAULT_SETTINGS, DEFAULT_CALIBRATION);
    for (const change of [{ fill_density: 40 }, { perimeters: 4 }]) {
      const s = settingsWith(change);
      const more = predict(extractFeatures(mesh, s), s, DEFAULT_CALIBRATION);
      assert.ok(more.filament_volume_mm3 > base.filament_volume_mm3, JSON.stringify(change));
    }
    assert.equal(extractFeatures(mesh, settingsWith({ layer_height: 0.3 })).layers, 67);
  });
});

describe('repeated layers', () => {
  test('a layer that repeats the one below gets the regions it would get drawn anew', () => {
    // A box with a sealed cavity (repeated layers below, around and above the cavity, changes at its floor and
    // ceiling) and a T (its plate overhangs: support columns carried down past repeated layers).
    for (const obj of [hollowBoxObj(30, 30, 20, 5), T_SHAPE_OBJ]) {
      const { sections } = layerPolygons(meshOf(obj), 0.2)!;
      const reused = sections.filter((s, i) => i > 0 && JSON.stringify(s) === JSON.stringify(sections[i - 1])).length;
      assert.ok(reused > sections.length / 2, `most layers repeat the one below (${reused} of ${sections.length})`);
      // The same loops, each starting one point further on: the same geometry, but no layer equals another point
      // for point, so every layer is computed on its own.
      const redrawn = sections.map((s) => s.map((loop) => [...loop.slice(1), loop[0]!]));
      const q = {
        layer_height_mm: 0.2,
        perimeters: 2,
        spacing_mm: 0.45,
        external_width_mm: 0.5,
        top_solid_layers: 5,
        bottom_solid_layers: 4,
        overhang_step_mm: 0.2,
        support_gap_mm: 0.25,
      };
      const fast = layerRegions(sections, q);
      const anew = layerRegions(redrawn, q);
      for (const key of Object.keys(anew) as (keyof LayerRegions)[]) {
        // The cavity's ceiling is held all around: a bridge, which gets no support (dont_support_bridges).
        const exercised = key !== 'support' || obj === T_SHAPE_OBJ;
        assert.equal(
          anew[key].some((v) => v > 0),
          exercised,
          `${key} is ${exercised ? '' : 'not '}exercised`,
        );
        for (let i = 0; i < anew[key].length; i++) close(fast[key][i], anew[key][i]!, 1e-6, `${key} of layer ${i}`);
      }
    }
  });
});

describe('support approximation', () => {
  const on = settingsWith({ support_material: true });

  test('a cube needs none', () => {
    const f = extractFeatures(meshOf(CUBE_OBJ), on);
    assert.equal(f.overhang_area_mm2, 0);
    assert.equal(f.volume_terms.support, 0);
  });

  test('a wedge leaning 60° from vertical: its face’s bed projection, and only beyond the angle', () => {
    const mesh = meshOf(WEDGE_OBJ);
    const run = 5 * Math.tan(Math.PI / 3);
    const depth = 1000 / ((4 + run) * 2.5);
    const f = extractFeatures(mesh, on);
    close(f.overhang_area_mm2, run * depth, 1e-9, 'overhang area');
    assert.ok(f.volume_terms.support > 0, 'f.volume_terms.support > 0');
    assert.ok(f.support_column_mm3 > 0 && f.support_column_mm3 < run * depth * 5, 'columns below the face');
    const steep = settingsWith({ support_material: true, support_overhang_angle: 70 });
    assert.equal(extractFeatures(mesh, steep).overhang_area_mm2, 0);
    assert.equal(extractFeatures(mesh, DEFAULT_SETTINGS).volume_terms.support, 0, 'supports off');
  });

  test('a T-shape: its plate’s underside needs support, which adds volume and time', () => {
    const mesh = meshOf(T_SHAPE_OBJ);
    const off = predict(extractFeatures(mesh, DEFAULT_SETTINGS), DEFAULT_SETTINGS, DEFAULT_CALIBRATION);
    const f = extractFeatures(mesh, on);
    assert.ok(f.overhang_area_mm2 >= 300, `${f.overhang_area_mm2}`);
    const withSupport = predict(f, on, DEFAULT_CALIBRATION);
    assert.ok(
      withSupport.filament_volume_mm3 > off.filament_volume_mm3,
      'withSupport.filament_volume_mm3 > off.filament_volume_mm3',
    );
    assert.ok(
      withSupport.estimated_time_seconds > off.estimated_time_seconds,
      'withSupport.estimated_time_seconds > off.estimated_time_seco',
    );
  });
});

/** Feature sets of several solids under several settings, for synthetic calibrations. */
function featureSets(): Features[] {
  const meshes = [
    meshOf(CUBE_OBJ),
    meshOf(prismZObj(regularPolygon(32, 8), 0, 30)),
    meshOf(tubeObj(32, 15, 12, 20)),
    meshOf(pyramidObj(regularPolygon(4, 20), 25)),
    meshOf(T_SHAPE_OBJ),
  ];
  const variants = [{}, { fill_density: 10 }, { fill_density: 50 }, { perimeters: 4 }, { support_material: true }];
  return meshes.flatMap((m) => variants.map((v) => extractFeatures(m, settingsWith(v))));
}

const TRUE_VOLUME = { walls: 1.1, solid: 0.9, sparse: 1.3, anchors: 1, support: 0.7, skirt: 1 };
const TRUE_TIME = {
  walls: 1.2,
  solid: 0.8,
  sparse: 1.1,
  support: 1.5,
  first_layer: 1,
  corners: 1,
  layer_changes: 0.4,
  travel: 0.9,
  cooling: 1,
};
const dotTerms = (terms: object, c: Record<string, number>) =>
  Object.entries(terms).reduce((s, [k, v]) => {
    const ck = c[k];
    assert.ok(ck !== undefined, `no true coefficient for term ${k}`);
    return s + (v as number) * ck;
  }, 0);

/** Samples whose real values follow TRUE_* exactly, times (1 + noise) from a fixed sequence. */
function samplesFrom(features: Features[], noise: (i: number) => number): CalibrationSample[] {
  return features.map((f, i) => ({
    features: f,
    volume_mm3: dotTerms(f.volume_terms, TRUE_VOLUME) * (1 + noise(i)),
    time_s: dotTerms(f.time_terms, TRUE_TIME) * (1 + noise(i)),
    group: `model ${Math.floor(i / 5)}`,
  }));
}

describe('calibration', () => {
  test('a least-squares fit recovers a known linear relation', () => {
    // Almost no pull toward the physical model: the fit itself must find the relation.
    const c = fitCalibration(
      samplesFrom(featureSets(), () => 0),
      { ridge: { volume: 1e-6, time: 1e-6 } },
    );
    for (const [k, v] of Object.entries(TRUE_VOLUME)) {
      if (k === 'skirt') continue; // too small a term to pin down
      close((c.volume.coefficients as unknown as Record<string, number>)[k], v, 0.01, `volume ${k}`);
    }
    for (const k of ['walls', 'solid', 'sparse', 'support'] as const) {
      close(c.time.coefficients[k], TRUE_TIME[k], 0.01, `time ${k}`);
    }
    // The default ridge keeps the volume at the physical model (the polygon regions need no correction that
    // generalises: docs/estimate.md) and holds time back toward 1 by a few per cent at most on the large terms.
    const held = fitCalibration(samplesFrom(featureSets(), () => 0));
    for (const k of ['walls', 'solid', 'sparse'] as const) {
      close(held.volume.coefficients[k], 1, 0.01, `volume ${k} with the default ridge`);
    }
    // Time is pulled toward the samples, part of the way: its errors on them shrink against the physical model's.
    const timeError = (c: typeof held) =>
      samplesFrom(featureSets(), () => 0).reduce((sum, s) => {
        const t = Object.entries(s.features.time_terms).reduce(
          (acc, [k, v]) => acc + v * (c.time.coefficients as unknown as Record<string, number>)[k]!,
          0,
        );
        return sum + Math.abs(t / s.time_s - 1);
      }, 0);
    assert.ok(
      timeError(held) < 0.85 * timeError(UNCALIBRATED),
      `time error ${timeError(held)} vs ${timeError(UNCALIBRATED)}`,
    );
    assert.equal(c.samples, 25);
    assert.equal(c.groups, 5);
    // Held out one sample at a time (no groups: 25 units, enough to trust), an exact relation leaves a narrow range.
    const ungrouped = fitCalibration(
      samplesFrom(featureSets(), () => 0).map(({ group: _, ...s }) => s),
      { ridge: { volume: 1e-6, time: 1e-6 } },
    );
    const width = ungrouped.volume.range.hi - ungrouped.volume.range.lo;
    assert.ok(width < 0.1, `an exact relation gives a narrow range, not ${width}`);
    assert.deepEqual(JSON.parse(JSON.stringify(c)), c, 'plain JSON');
  });

  test('the range widens with fewer samples and is widest with none', () => {
    const noise = (i: number) => 0.05 * Math.sin(i * 2.3);
    // A weak pull toward the physical model, so that the fit follows the samples and only the range rules count.
    const ridge = { volume: 0.1, time: 0.02 };
    const many = fitCalibration(samplesFrom(featureSets(), noise), { ridge });
    const few = fitCalibration(samplesFrom(featureSets().slice(0, 10), noise), { ridge });
    const none = fitCalibration([]);
    const width = (c: typeof many) => c.volume.range.hi - c.volume.range.lo;
    assert.ok(width(few) > width(many), `few ${width(few)} vs many ${width(many)}`);
    assert.ok(width(none) > width(few), 'width(none) > width(few)');
    assert.deepEqual(none, UNCALIBRATED);
    const [f] = featureSets();
    assert.ok(f);
    const estimate = predict(f, DEFAULT_SETTINGS, many);
    assert.ok(
      estimate.weight_range[0] <= estimate.filament_weight_g,
      'estimate.weight_range[0] <= estimate.filament_weight_g',
    );
    assert.ok(
      estimate.filament_weight_g <= estimate.weight_range[1],
      'estimate.filament_weight_g <= estimate.weight_range[1]',
    );
    assert.ok(
      estimate.time_range[0] <= estimate.estimated_time_seconds,
      'estimate.time_range[0] <= estimate.estimated_time_seconds',
    );
    assert.ok(
      estimate.estimated_time_seconds <= estimate.time_range[1],
      'estimate.estimated_time_seconds <= estimate.time_range[1]',
    );
    assert.equal(estimate.method, 'cross-sections+calibration');
    assert.equal(predict(f, DEFAULT_SETTINGS, none).method, 'cross-sections');
  });

  test('an account refines the shipped prior: more of its slices never widen the range', () => {
    const noise = (i: number) => 0.04 * Math.sin(i * 1.7);
    const prior = fitCalibration(samplesFrom(featureSets(), noise));
    const account = samplesFrom(featureSets(), (i) => 0.02 * Math.cos(i));
    const width = (c: typeof prior, kind: 'volume' | 'time') => c[kind].range.hi - c[kind].range.lo;
    let previous = prior;
    for (const n of [1, 3, 6, 12, 25]) {
      const refined = fitCalibration(account.slice(0, n), { prior });
      for (const kind of ['volume', 'time'] as const) {
        assert.ok(refined[kind].range.lo >= prior[kind].range.lo, `${kind} lo within the prior's after ${n}`);
        assert.ok(refined[kind].range.hi <= prior[kind].range.hi, `${kind} hi within the prior's after ${n}`);
        assert.ok(width(refined, kind) <= width(previous, kind) + 1e-12, `${kind} no wider after ${n} samples`);
      }
      previous = refined;
    }
    assert.deepEqual(fitCalibration([], { prior }), prior, 'no samples: the prior itself');
  });

  test('an estimate scaled from an exact slice: exact × estimate ratio, with the ratio range', () => {
    const cube = meshOf(CUBE_OBJ);
    const a = predict(extractFeatures(cube, DEFAULT_SETTINGS), DEFAULT_SETTINGS, DEFAULT_CALIBRATION);
    const dense = settingsWith({ fill_density: 40 });
    const b = predict(extractFeatures(cube, dense), dense, DEFAULT_CALIBRATION);
    const scaled = scaleFromExact({ filament_weight_g: 5, estimated_time_seconds: 1000 }, a, b, DEFAULT_CALIBRATION);
    close(scaled.filament_weight_g, (5 * b.filament_weight_g) / a.filament_weight_g, 1e-12, 'grams');
    close(scaled.estimated_time_seconds, (1000 * b.estimated_time_seconds) / a.estimated_time_seconds, 1e-12, 's');
    assert.ok(scaled.filament_weight_g > 5, 'more infill, more weight');
    const r = DEFAULT_CALIBRATION.ratio.volume;
    close(scaled.weight_range[0], scaled.filament_weight_g * (1 + r.lo), 1e-12, 'range lo');
    close(scaled.weight_range[1], scaled.filament_weight_g * (1 + r.hi), 1e-12, 'range hi');
    assert.equal(scaled.method, 'scaled-from-exact');
    refusedWith('invalid_settings', () =>
      scaleFromExact({ filament_weight_g: 0, estimated_time_seconds: 1 }, a, b, DEFAULT_CALIBRATION),
    );
    refusedWith('invalid_settings', () =>
      scaleFromExact({ filament_weight_g: 1, estimated_time_seconds: Number.NaN }, a, b, DEFAULT_CALIBRATION),
    );
  });

  test('weight follows the material’s density without new features', () => {
    const f = extractFeatures(meshOf(CUBE_OBJ), DEFAULT_SETTINGS);
    const petg = structuredClone(DEFAULT_SETTINGS);
    petg.material.density = 1.27;
    const a = predict(f, DEFAULT_SETTINGS, DEFAULT_CALIBRATION);
    const b = predict(f, petg, DEFAULT_CALIBRATION);
    close(b.filament_weight_g / a.filament_weight_g, 1.27 / 1.24, 1e-12);
    close(a.filament_weight_g, (a.filament_volume_mm3 / 1000) * 1.24, 1e-12);
  });

  test('the shipped calibration was fitted on real slices', () => {
    assert.ok(DEFAULT_CALIBRATION.samples > 0, 'DEFAULT_CALIBRATION.samples > 0');
    assert.ok(DEFAULT_CALIBRATION.groups > 1, 'DEFAULT_CALIBRATION.groups > 1');
  });
});

describe('hostile input is refused with a clear error', () => {
  const cube = meshOf(CUBE_OBJ);

  test('an empty mesh', () => {
    refusedWith('empty_mesh', () =>
      extractFeatures({ positions: new Float64Array(0), indices: new Uint32Array(0) }, DEFAULT_SETTINGS),
    );
  });

  test('NaN and infinite coordinates, missing vertices, wrong array types', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      const positions = new Float64Array(cube.positions);
      positions[4] = bad;
      refusedWith('invalid_mesh', () => extractFeatures({ positions, indices: cube.indices }, DEFAULT_SETTINGS));
    }
    const indices = new Uint32Array(cube.indices);
    indices[5] = 10_000;
    refusedWith('invalid_mesh', () => extractFeatures({ positions: cube.positions, indices }, DEFAULT_SETTINGS));
    refusedWith('invalid_mesh', () =>
      extractFeatures({ positions: [0, 0, 0] as unknown as Float64Array, indices: cube.indices }, DEFAULT_SETTINGS),
    );
  });

  test('an open mesh (a cube without its lid) gives finite, non-negative figures', () => {
    const cube = meshOf(CUBE_OBJ);
    const kept: number[] = [];
    for (let f = 0; f < cube.indices.length; f += 3) {
      const triangle = cube.indices.subarray(f, f + 3);
      const corners = Array.from(triangle, (v) => cube.positions[v * 3 + 2]);
      if (!corners.every((z) => z === 20)) kept.push(...triangle);
    }
    const open = { positions: cube.positions, indices: new Uint32Array(kept) };
    assert.equal(open.indices.length, cube.indices.length - 6, 'the lid’s two triangles are gone');
    const e = predict(extractFeatures(open, DEFAULT_SETTINGS), DEFAULT_SETTINGS, DEFAULT_CALIBRATION);
    for (const v of [e.filament_volume_mm3, e.estimated_time_seconds, ...e.weight_range, ...e.time_range]) {
      assert.ok(Number.isFinite(v) && v >= 0, `${v} is a finite figure ≥ 0`);
    }
  });

  test('a flat mesh has no layers', () => {
    const flat = cube.positions.map((v, i) => (i % 3 === 2 ? 0 : v));
    refusedWith('flat_mesh', () => extractFeatures({ positions: flat, indices: cube.indices }, DEFAULT_SETTINGS));
  });

  test('a huge layer count, before any per-layer allocation', () => {
    const tall = cube.positions.map((v, i) => (i % 3 === 2 ? v * 1000 : v)); // 20 m
    refusedWith('too_many_layers', () => extractFeatures({ positions: tall, indices: cube.indices }, DEFAULT_SETTINGS));
    const thin = settingsWith({ layer_height: 20 / (MAX_LAYERS + 1), min_layer_height: 0.0001 });
    refusedWith('too_many_layers', () => extractFeatures(cube, thin));
  });

  test('settings that are NaN, negative or missing', () => {
    refusedWith('invalid_settings', () => extractFeatures(cube, settingsWith({ layer_height: Number.NaN })));
    refusedWith('invalid_settings', () => extractFeatures(cube, settingsWith({ fill_density: -5 })));
    refusedWith('invalid_settings', () => extractFeatures(cube, settingsWith({ perimeters: 2.5 })));
    refusedWith('invalid_settings', () => extractFeatures(cube, {} as ResolvedSettings));
  });

  test('features from other settings, or a corrupt calibration', () => {
    const f = extractFeatures(cube, DEFAULT_SETTINGS);
    refusedWith('features_mismatch', () => predict(f, settingsWith({ fill_density: 40 }), DEFAULT_CALIBRATION));
    const corrupt = structuredClone(DEFAULT_CALIBRATION);
    corrupt.volume.coefficients.walls = Number.NaN;
    refusedWith('invalid_calibration', () => predict(f, DEFAULT_SETTINGS, corrupt));
    const inverted = structuredClone(DEFAULT_CALIBRATION);
    inverted.time.range = { lo: 0.1, hi: -0.1 };
    refusedWith('invalid_calibration', () => predict(f, DEFAULT_SETTINGS, inverted));
    refusedWith('invalid_samples', () => fitCalibration([{ features: f, volume_mm3: Number.NaN, time_s: 1 }]));
  });
});

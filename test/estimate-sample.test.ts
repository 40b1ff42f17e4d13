// The estimator's regions on a sample of the layers (shared/estimate/layer-sample.ts, layer-fill.ts,
// docs/estimate.md "Sampled layers"): which layers a part's sample holds, and that the features it gives stay
// within a stated tolerance of those computed on every layer (extractFeatures's everyLayer option).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_SLICER_VERSION, regionParams } from '../shared/estimate/features.ts';
import { extractFeatures, type Features } from '../shared/estimate/index.ts';
import { layerPolygons } from '../shared/estimate/layer-polygons.ts';
import { type LayerSample, MIN_SAMPLED_LAYERS, sampleLayers } from '../shared/estimate/layer-sample.ts';
import { sweepLayers } from '../shared/estimate/layer-sweep.ts';
import { sliceParams } from '../shared/estimate/params.ts';
import { sampledRegions } from '../shared/estimate/sampled-regions.ts';
import type { Mesh } from '../shared/model/index.ts';
import { DEFAULT_SETTINGS, type ResolvedSettings } from '../shared/settings.ts';
import { meshOf, settingsWith } from './helpers/estimate-inputs.ts';
import { boxesObj } from './helpers/meshes.ts';
import { prismZObj, pyramidObj, regularPolygon, trianglesObj } from './helpers/solids.ts';

/** The sample extractFeatures works on, its shells' edges added as the regions find them. */
function sampleOf(mesh: Mesh, s: ResolvedSettings = DEFAULT_SETTINGS): LayerSample | null {
  const q = sliceParams(s);
  const sweep = sweepLayers(mesh, q.layer_height_mm, null);
  const { sections } = layerPolygons(mesh, q.layer_height_mm)!;
  const rp = regionParams(q, DEFAULT_SLICER_VERSION);
  const sample = sampleLayers(
    mesh,
    sweep,
    sections.map((section) => section.length),
    rp,
  );
  if (sample) sampledRegions(sections, sample, rp);
  return sample;
}

const computed = (s: LayerSample) => s.computed.reduce((n, v) => n + v, 0);

/** Every volume and time term of the sampled features within `rel` of every layer's (and the same counts). */
function closeToEveryLayer(mesh: Mesh, s: ResolvedSettings, rel: number): Features {
  const sampled = extractFeatures(mesh, s);
  const every = extractFeatures(mesh, s, { everyLayer: true });
  assert.equal(sampled.layers, every.layers);
  for (const group of ['volume_terms', 'time_terms'] as const) {
    for (const [term, value] of Object.entries(every[group])) {
      const got = (sampled[group] as unknown as Record<string, number>)[term]!;
      assert.ok(
        Math.abs(got - value) <= rel * Math.max(Math.abs(value), 1e-6),
        `${group}.${term}: sampled ${got}, every layer ${value} (±${rel * 100} %)`,
      );
    }
  }
  return sampled;
}

describe('the sample of layers', () => {
  test('a prism: a few layers computed, the same features as every layer', () => {
    // A hexagonal prism 60 mm tall: 300 layers, every one alike but the first and the last few.
    const mesh = meshOf(prismZObj(regularPolygon(6, 15), 0, 60));
    const sample = sampleOf(mesh)!;
    assert.equal(sample.layers, 300);
    assert.ok(computed(sample) <= 50, `${computed(sample)} of 300 layers computed`);
    for (const s of [
      DEFAULT_SETTINGS,
      settingsWith({ perimeters: 3, fill_density: 40 }),
      settingsWith({ layer_height: 0.3 }),
    ]) {
      closeToEveryLayer(mesh, s, 1e-6);
    }
  });

  test('a cone: its smooth flank filled in from the sweep, within 0.5 % of every layer', () => {
    const mesh = meshOf(pyramidObj(regularPolygon(96, 20), 40));
    const sample = sampleOf(mesh)!;
    assert.ok(computed(sample) < sample.layers / 2, `${computed(sample)} of ${sample.layers} layers computed`);
    closeToEveryLayer(mesh, DEFAULT_SETTINGS, 0.005);
  });

  test('a step: both sides of it and both ends of the shells under the exposed top are computed', () => {
    // A 30 mm square base 12 mm tall under a 14 mm square tower: layer 59 (plane 11.9 mm) is the base's last, its
    // top exposed around the tower; its shells reach down to layer 55.
    const mesh = meshOf(
      boxesObj([
        [0, 0, 0, 30, 30, 12],
        [8, 8, 12, 22, 22, 30],
      ]),
    );
    const sample = sampleOf(mesh)!;
    for (const layer of [54, 55, 59, 60]) assert.equal(sample.computed[layer], 1, `layer ${layer} is computed`);
    assert.ok(computed(sample) < sample.layers / 3, `${computed(sample)} of ${sample.layers} layers computed`);
    const f = closeToEveryLayer(mesh, DEFAULT_SETTINGS, 1e-6);
    // The base's top ring is solid in its 5 shell layers, beside the base's and the tower's own bottoms and tops.
    assert.ok(f.top_surface_area_mm2 > 900 - 14 * 14, `top surfaces ${f.top_surface_area_mm2} mm²`);
  });

  test('a pit whose steep sides meet in a tip inside the part: the layer under the tip is cut', () => {
    // A 30 × 30 × 20 mm block with an 8 mm square pit in its top: its sides move 0.08 mm a layer, far less than
    // the perimeters' width. With its tip at 9.95 mm the pit starts as a 0.12 mm hole in layer 50 (10.1 mm), a top
    // surface of layer 49 deep inside the section, which the 3 mm growth turns into solid infill around it; with
    // its tip at 10.05 mm the hole starts 0.04 mm wide, narrower than the opening keeps.
    const solid = (tip: number) => {
      const mesh = meshOf(pitBlockObj(30, 20, 8, tip));
      const sampled = extractFeatures(mesh, DEFAULT_SETTINGS).solid_area_mm2;
      const every = extractFeatures(mesh, DEFAULT_SETTINGS, { everyLayer: true }).solid_area_mm2;
      // Within 0.5 %: below the pit's tip the sample's shells take the pit's thin rings as a whole, which the
      // opening removes layer by layer (0.2 mm² on each of 5 layers here).
      assert.ok(Math.abs(sampled - every) <= 0.005 * every, `tip at ${tip} mm: solid ${sampled}, every layer ${every}`);
      return sampled;
    };
    assert.ok(solid(9.95) > solid(10.05) + 100, 'the tip adds solid around it');
  });

  test('a part of few layers computes every one', () => {
    const mesh = meshOf(prismZObj(regularPolygon(32, 10), 0, MIN_SAMPLED_LAYERS * 0.2));
    assert.equal(sampleOf(mesh), null);
    assert.deepEqual(
      extractFeatures(mesh, DEFAULT_SETTINGS),
      extractFeatures(mesh, DEFAULT_SETTINGS, { everyLayer: true }),
    );
    // One layer more is sampled.
    assert.notEqual(sampleOf(meshOf(prismZObj(regularPolygon(32, 10), 0, (MIN_SAMPLED_LAYERS + 1) * 0.2))), null);
  });

  test('the same mesh and settings give the same features', () => {
    const mesh = meshOf(pyramidObj(regularPolygon(96, 20), 40));
    const s = settingsWith({ support_material: true });
    assert.deepEqual(extractFeatures(mesh, s), extractFeatures(mesh, s));
  });
});

/** A block `a` × `a` × `h` with an inverted square pyramid `w` wide cut into its top, its tip at height `tip`. */
function pitBlockObj(a: number, h: number, w: number, tip: number): string {
  const [p, q] = [(a - w) / 2, (a + w) / 2];
  const v: [number, number, number][] = [
    [0, 0, 0],
    [a, 0, 0],
    [a, a, 0],
    [0, a, 0],
    [0, 0, h],
    [a, 0, h],
    [a, a, h],
    [0, a, h],
    [p, p, h],
    [q, p, h],
    [q, q, h],
    [p, q, h],
    [a / 2, a / 2, tip],
  ];
  // Outward normals (counter-clockwise seen from outside): bottom, four sides, the top's frame, the pit's sides.
  const f: [number, number, number][] = [
    [0, 2, 1],
    [0, 3, 2],
    [0, 1, 5],
    [0, 5, 4],
    [1, 2, 6],
    [1, 6, 5],
    [2, 3, 7],
    [2, 7, 6],
    [3, 0, 4],
    [3, 4, 7],
    [4, 5, 9],
    [4, 9, 8],
    [5, 6, 10],
    [5, 10, 9],
    [6, 7, 11],
    [6, 11, 10],
    [7, 4, 8],
    [7, 8, 11],
    [8, 9, 12],
    [9, 10, 12],
    [10, 11, 12],
    [11, 8, 12],
  ];
  return trianglesObj(v, f);
}

// The placement search, the shape facts it reads, and the unit check, as pure functions; plus a check against
// the real PrusaSlicer that our rotation convention is its own (the side we choose is the side it puts down).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { convexHull2D, convexHullXY, describeShape, flatAreas } from '../server/mesh/footprint.ts';
import { extentsAt, orient, restings, type ShapeFacts } from '../server/placement/orient.ts';
import { unitSuspect } from '../server/placement/unit-check.ts';
import { meshFactor, sourceUnit } from '../server/placement/units.ts';
import { transformArgs } from '../server/slicer/engine.ts';
import { parseModel } from '../shared/model/index.ts';
import { boxesObj } from './helpers/meshes.ts';

const mesh = (obj: string) => parseModel(new TextEncoder().encode(obj), 'obj').mesh;

function facts(obj: string): ShapeFacts {
  const m = mesh(obj);
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < m.positions.length; i++) {
    const k = i % 3;
    min[k] = Math.min(min[k]!, m.positions[i]!);
    max[k] = Math.max(max[k]!, m.positions[i]!);
  }
  return { min, max, footprint: convexHullXY(m.positions), shape: describeShape(m.positions, m.indices) };
}

const PRINTER = { x: 250, y: 210, z: 210 };

test('a model that fits as uploaded keeps its orientation', () => {
  const o = orient(facts(boxesObj([[0, 0, 0, 20, 30, 40]])), 1, PRINTER)!;
  assert.equal(o.orientation, 'as_uploaded');
  assert.deepEqual(o.rotation, { x: 0, y: 0, z: 0 });
  assert.deepEqual(o.dimensions, { x: 20, y: 30, z: 40 });
});

test('too long for Y: turned 90° on the plate before anything else', () => {
  const o = orient(facts(boxesObj([[0, 0, 0, 20, 215, 10]])), 1, PRINTER)!;
  assert.equal(o.orientation, 'turned');
  assert.deepEqual(o.rotation, { x: 0, y: 0, z: 90 });
  assert.deepEqual(o.dimensions, { x: 215, y: 20, z: 10 });
});

test('too long for either side of the plate: turned diagonally', () => {
  const o = orient(facts(boxesObj([[0, 0, 0, 300, 10, 10]])), 1, PRINTER)!;
  assert.equal(o.orientation, 'turned');
  assert.ok(o.rotation.z > 0 && o.rotation.z < 90);
  assert.ok(o.dimensions.x <= 250 && o.dimensions.y <= 210);
});

test('too tall: laid down on its largest flat side', () => {
  // An L-shaped profile, 230 tall: its -y side is one 100 × 230 face, its -x side a 10 × 230 face.
  const l = boxesObj([
    [0, 0, 0, 100, 10, 230],
    [0, 10, 0, 10, 60, 230],
  ]);
  const o = orient(facts(l), 1, PRINTER)!;
  assert.equal(o.orientation, 'laid_down');
  assert.equal(o.down, '-y', 'the wide flat back rests on the plate');
  assert.equal(o.dimensions.z, 60);
});

test('without shape facts (files stored before them) the bounding box stands in', () => {
  const f = { ...facts(boxesObj([[0, 0, 0, 30, 30, 230]])), shape: null, footprint: [] };
  const o = orient(f, 1, PRINTER)!;
  assert.equal(o.orientation, 'laid_down');
  assert.equal(o.dimensions.z, 30);
});

test('nothing fits: null; the factor scales before fitting', () => {
  const cube = facts(boxesObj([[0, 0, 0, 10, 10, 10]]));
  assert.equal(orient(cube, 25.4, PRINTER), null, '254 mm fits no side of a 210 mm tall printer');
  assert.deepEqual(orient(cube, 2, PRINTER)!.dimensions, { x: 20, y: 20, z: 20 });
});

test('the hull of a projection is the brute-force hull (random points, any axis pair)', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(
          fc.integer({ min: -50, max: 50 }),
          fc.integer({ min: -50, max: 50 }),
          fc.integer({ min: -50, max: 50 }),
        ),
        { minLength: 1, maxLength: 60 },
      ),
      fc.constantFrom([0, 1], [0, 2], [1, 2]),
      (pts, [a, b]) => {
        const positions = Float64Array.from(pts.flat());
        const hull = convexHull2D(positions, a, b);
        // Every point is inside or on the hull, and the hull's extents at any angle are the points' extents.
        const projected = pts.map((p) => [p[a], p[b]] as [number, number]);
        for (const deg of [0, 17, 45, 90, 133]) {
          const e = extentsAt(hull, deg),
            all = extentsAt(projected, deg);
          assert.ok(Math.abs(e.x - all.x) < 1e-9 && Math.abs(e.y - all.y) < 1e-9, `${deg}°`);
        }
      },
    ),
    { seed: 42, numRuns: 300 },
  );
});

test("flat areas: the sides of a box, none on a tetrahedron's slanted face", () => {
  const box = mesh(boxesObj([[0, 0, 0, 10, 20, 30]]));
  assert.deepEqual(flatAreas(box.positions, box.indices), {
    '-x': 600,
    '+x': 600,
    '-y': 300,
    '+y': 300,
    '-z': 200,
    '+z': 200,
  });
  const tet = mesh('v 0 0 0\nv 10 0 0\nv 0 10 0\nv 0 0 10\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n');
  const flat = flatAreas(tet.positions, tet.indices);
  assert.deepEqual([flat['+x'], flat['+y'], flat['+z']], [0, 0, 0]);
  assert.equal(flat['-z'], 50);
});

test('unit check: inches, centimetres and metres suspected from size, and the reverse', () => {
  assert.equal(unitSuspect(1.7, 'mm')?.suggested_unit, 'in');
  assert.equal(unitSuspect(0.5, 'mm')?.suggested_scale, 25.4);
  assert.equal(unitSuspect(0.05, 'mm')?.suggested_unit, 'm', '50 mm drawn in metres');
  assert.equal(unitSuspect(3000, 'in')?.suggested_unit, 'mm', 'a millimetre model stated in inches');
  const odd = unitSuspect(20_000, 'mm')!;
  assert.equal(odd.suggested_unit, undefined, 'no unit smaller than mm fits: a bare scale');
  assert.ok(odd.suggested_scale < 1);
  assert.equal(unitSuspect(5, 'mm'), null);
  assert.equal(unitSuspect(1000, 'mm'), null);
  assert.equal(unitSuspect(0, 'mm'), null, 'a flat or empty model is another problem');
});

test('units: the factor from the canonical mesh, for STL and for a 3MF that converted already', () => {
  assert.equal(meshFactor('in', sourceUnit('millimeter'), 1), 25.4);
  assert.equal(meshFactor('in', sourceUnit('inch'), 1), 1);
  assert.equal(meshFactor('mm', sourceUnit('inch'), 2), 2 / 25.4);
  assert.equal(sourceUnit(undefined), 'mm');
});

test('PrusaSlicer puts down the side our placement names, with the outline we fit, for every side', (t) => {
  let dir = '';
  try {
    execFileSync('prusa-slicer', ['--help'], { stdio: 'ignore' });
  } catch {
    return t.skip('prusa-slicer is not installed');
  }
  dir = mkdtempSync(path.join(tmpdir(), 'sq-orient-'));
  try {
    // An asymmetric tetrahedron: each side of its bounding box holds a different set of corners.
    const obj = 'v 0 0 0\nv 10 0 0\nv 0 20 0\nv 0 0 30\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n';
    writeFileSync(path.join(dir, 'tet.obj'), obj);
    const corners: Point[] = [
      [0, 0, 0],
      [10, 0, 0],
      [0, 20, 0],
      [0, 0, 30],
    ];
    const f = facts(obj);
    for (const { side, tilt, outline } of restings(f, 1)) {
      const out = path.join(dir, `${side}.stl`);
      const args = transformArgs({ scale: 1, rotate_x: tilt.x, rotate_y: tilt.y, rotate_z: 30 });
      execFileSync(
        'prusa-slicer',
        ['--datadir', path.join(dir, 'dd'), ...args, '--export-stl', '--output', out, path.join(dir, 'tet.obj')],
        { stdio: 'ignore' },
      );
      const axis = 'xyz'.indexOf(side.charAt(1));
      const onSide = corners.filter((c) => c[axis] === (side[0] === '-' ? f.min[axis] : f.max[axis]));
      // A rotation keeps distances: the corners on the plate are the side's corners when their distances agree.
      const stl = readFileSync(out);
      const [down, expected] = [distances(lowestCorners(stl)), distances(onSide)];
      assert.ok(
        down.length === expected.length && down.every((d, i) => Math.abs(d - expected[i]!) < 0.01),
        `${side} rests on the plate`,
      );
      const predicted = extentsAt(outline, 30),
        actual = extentsXY(stl);
      assert.ok(
        Math.abs(predicted.x - actual.x) < 0.01 && Math.abs(predicted.y - actual.y) < 0.01,
        `${side} turned 30°: ${JSON.stringify({ predicted, actual })}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

type Point = [number, number, number];

const distances = (pts: Point[]) =>
  pts
    .flatMap((p, i) => pts.slice(i + 1).map((q) => Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2])))
    .sort((a, b) => a - b);

function extentsXY(stl: Buffer) {
  const pts = stlVertices(stl);
  const span = (k: 0 | 1) => Math.max(...pts.map((p) => p[k])) - Math.min(...pts.map((p) => p[k]));
  return { x: span(0), y: span(1) };
}

/** Distinct vertices of a binary STL at its lowest Z. */
function lowestCorners(stl: Buffer): Point[] {
  const pts = stlVertices(stl);
  const minZ = Math.min(...pts.map((p) => p[2]));
  return pts.filter((p) => p[2] - minZ < 1e-3);
}

function stlVertices(stl: Buffer): Point[] {
  const n = stl.readUInt32LE(80);
  const seen = new Map<string, Point>();
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < 3; k++) {
      const o = 84 + i * 50 + 12 + k * 12;
      const at = (j: number) => Math.round(stl.readFloatLE(o + j * 4) * 1000) / 1000;
      const p: Point = [at(0), at(1), at(2)];
      seen.set(p.join(','), p);
    }
  }
  return [...seen.values()];
}

test('slicer arguments: none for a model printed as uploaded; a non-finite transform never reaches the command line', () => {
  assert.deepEqual(transformArgs({ scale: 1, rotate_x: 0, rotate_y: 0, rotate_z: 0 }), []);
  assert.deepEqual(transformArgs({ scale: 25.4, rotate_x: 0, rotate_y: -90, rotate_z: 37 }), [
    '--scale',
    '25.4',
    '--rotate-y',
    '-90',
    '--rotate',
    '37',
  ]);
  for (const bad of [{ scale: NaN }, { scale: 0 }, { scale: -1 }, { rotate_x: Infinity }]) {
    assert.throws(
      () => transformArgs({ scale: 1, rotate_x: 0, rotate_y: 0, rotate_z: 0, ...bad }),
      /invalid mesh transform/,
    );
  }
});

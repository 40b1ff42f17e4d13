// The kept quote's picture within its budget of drawing work: real parts are drawn whole, a thin sliver costs its
// rows and not its bounding box, and stacked plate-sized triangles stop at the budget.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PICTURE_PX, PICTURE_WORK_BUDGET, render, TRIANGLE_WORK } from '../server/kept-quotes/picture.ts';
import { parseModel } from '../shared/model/index.ts';
import { pictureBombObj } from './helpers/picture-bomb.ts';

const models = path.resolve('test', 'fixtures', 'models');

function mesh(bytes: Uint8Array, format: 'stl' | 'obj') {
  const m = parseModel(bytes, format).mesh;
  return { v: Float64Array.from(m.positions), f: Uint32Array.from(m.indices) };
}

const drawnPixels = (rgb: Uint8Array) => {
  let n = 0;
  for (let i = 0; i < rgb.length; i += 3) if (rgb[i] !== 255 || rgb[i + 1] !== 255 || rgb[i + 2] !== 255) n++;
  return n;
};

test('real parts are drawn whole, well within the budget', () => {
  for (const [file, format] of [
    ['stl/3DBenchy.stl', 'stl'],
    ['stl/heartgears.stl', 'stl'],
    ['obj/cow.obj', 'obj'],
  ] as const) {
    const { v, f } = mesh(new Uint8Array(readFileSync(path.join(models, file))), format);
    const drawing = render(v, f);
    assert.equal(drawing.complete, true, file);
    assert.ok(drawing.work < PICTURE_WORK_BUDGET / 4, `${file}: ${drawing.work} units`);
    assert.ok(drawnPixels(drawing.rgb) > (PICTURE_PX * PICTURE_PX) / 20, `${file} fills part of the picture`);
  }
});

test('a long thin sliver across the picture costs its rows, not its bounding box', () => {
  // A needle along X, seen slanting across the whole picture: its bounding box is about half the picture's pixels.
  const v = Float64Array.from([0, 0, 0, 100, 0, 0, 100, 0.05, 0]);
  const drawing = render(v, Uint32Array.from([0, 1, 2]));
  assert.equal(drawing.complete, true);
  assert.ok(drawing.work < TRIANGLE_WORK + 3 * PICTURE_PX, `${drawing.work} units`);
});

test('stacked plate-sized triangles stop at the budget, counted as they are drawn', () => {
  const { v, f } = mesh(new TextEncoder().encode(pictureBombObj(4000)), 'obj');
  const drawing = render(v, f);
  assert.equal(drawing.complete, false);
  // Stopped within one triangle's work past the budget (a triangle covers at most the picture, row by row).
  assert.ok(drawing.work > PICTURE_WORK_BUDGET, `${drawing.work}`);
  assert.ok(drawing.work <= PICTURE_WORK_BUDGET + TRIANGLE_WORK + PICTURE_PX * (PICTURE_PX + 1), `${drawing.work}`);
});

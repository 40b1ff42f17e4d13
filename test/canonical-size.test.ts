// The canonical mesh's least size (shared/model/canonical.ts), which storage is reserved against before the mesh is
// written: never more than what the writer then writes, and exact for OBJ lines of one-character coordinates.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  canonicalBytesAtLeast,
  type Mesh,
  parseModel,
  writeCanonical3mf,
  writeCanonicalObj,
} from '../shared/model/index.ts';
import { largestAccepted3mf } from './helpers/hostile.ts';
import { CUBE_OBJ } from './helpers/meshes.ts';

const torus = parseModel(largestAccepted3mf(50, 40, 3), '3mf').mesh;
const cube = parseModel(new TextEncoder().encode(CUBE_OBJ), 'obj').mesh;

test('the least size never exceeds what is written, for OBJ and for the 3MF with a negative volume', () => {
  for (const mesh of [torus, cube]) {
    assert.ok(canonicalBytesAtLeast(mesh, null) <= writeCanonicalObj(mesh).length);
    assert.ok(canonicalBytesAtLeast(mesh, cube) <= writeCanonical3mf(mesh, cube).length);
  }
  // Most of an instanced mesh is its face lines, counted exactly: the bound is most of the real size.
  assert.ok(canonicalBytesAtLeast(torus, null) > 0.5 * writeCanonicalObj(torus).length);
});

test('exact for an OBJ whose coordinates are single digits, indices of every width', () => {
  const n = 1200; // vertex numbers up to four digits
  const positions = new Float64Array(3 * n).map((_, i) => i % 10);
  const indices = new Uint32Array(3 * (n - 2)).map((_, i) => Math.floor(i / 3) + (i % 3));
  const mesh: Mesh = { positions, indices };
  assert.equal(canonicalBytesAtLeast(mesh, null), writeCanonicalObj(mesh).length);
});

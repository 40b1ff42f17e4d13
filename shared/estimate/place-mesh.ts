// The canonical mesh as the slicer prints it. The server hands PrusaSlicer the stored mesh plus a placement (uniform
// scale, then degrees about the plate's X, then Y, then Z axis, counter-clockwise looking down each axis toward the
// origin; docs/placement.md); the estimator must see the same solid, so it applies the same transform.
import type { Mesh } from '../model/mesh.ts';
import { refuse } from './errors.ts';

/** The fields of the server's SliceTransform (server/slicer/engine.ts). */
export interface MeshPlacement {
  scale: number;
  rotate_x: number;
  rotate_y: number;
  rotate_z: number;
}

/** A new mesh, scaled then rotated about X, Y and Z (degrees); the triangles are shared with the input. */
export function placeMesh(mesh: Mesh, t: MeshPlacement): Mesh {
  const values = [t?.scale, t?.rotate_x, t?.rotate_y, t?.rotate_z];
  if (!values.every((v) => typeof v === 'number' && Number.isFinite(v)) || !(t.scale > 0)) {
    refuse('invalid_mesh', 'A placement needs a finite scale above 0 and finite rotations in degrees.');
  }
  const rad = Math.PI / 180;
  const [cx, sx] = [Math.cos(t.rotate_x * rad), Math.sin(t.rotate_x * rad)];
  const [cy, sy] = [Math.cos(t.rotate_y * rad), Math.sin(t.rotate_y * rad)];
  const [cz, sz] = [Math.cos(t.rotate_z * rad), Math.sin(t.rotate_z * rad)];
  const src = mesh.positions;
  const out = new Float64Array(src.length);
  for (let i = 0; i < src.length; i += 3) {
    let x = src[i]! * t.scale;
    let y = src[i + 1]! * t.scale;
    let z = src[i + 2]! * t.scale;
    [y, z] = [y * cx - z * sx, y * sx + z * cx];
    [x, z] = [x * cy + z * sy, -x * sy + z * cy];
    [x, y] = [x * cz - y * sz, x * sz + y * cz];
    out[i] = x;
    out[i + 1] = y;
    out[i + 2] = z;
  }
  return { positions: out, indices: mesh.indices };
}

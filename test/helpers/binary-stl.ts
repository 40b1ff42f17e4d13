// Binary STL files the tests write: an 80-byte header, the triangle count, then 50 bytes a triangle (the normal left
// zero, as many exporters leave it, then the three corners and an attribute count of zero).
import type { Mesh } from '../../shared/model/index.ts';

/** A binary STL of triangles given as nine numbers each: the three corners' x, y and z. */
export function binaryStl(triangles: readonly (readonly number[])[], header = 'test'): Uint8Array {
  const bytes = new Uint8Array(84 + 50 * triangles.length);
  bytes.set(new TextEncoder().encode(header).subarray(0, 80));
  const view = new DataView(bytes.buffer);
  view.setUint32(80, triangles.length, true);
  triangles.forEach((t, i) => {
    t.forEach((v, k) => {
      view.setFloat32(84 + 50 * i + 12 + 4 * k, v, true);
    });
  });
  return bytes;
}

/** A mesh's triangles as binaryStl takes them. */
export function meshTriangles(mesh: Mesh): number[][] {
  const corner = (v: number) => [...mesh.positions.subarray(3 * v, 3 * v + 3)];
  return Array.from({ length: mesh.indices.length / 3 }, (_, t) =>
    [0, 1, 2].flatMap((c) => corner(mesh.indices[3 * t + c]!)),
  );
}

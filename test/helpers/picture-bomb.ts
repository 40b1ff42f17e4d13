// A mesh that is cheap to upload and to slice but costly to draw (docs/security.md, "Kept quotes' pictures"): a thin
// plate (so the slicer prices it) holding thousands of flat triangles, each as large as the plate, stacked inside
// it between two layers. Nothing extends along Z, so slicing it costs almost nothing; drawing it covers the
// picture's pixels once per triangle. The triangles are each a little different, so none is a duplicate.
import { boxesObj } from './meshes.ts';

/**
 * The OBJ text: a 100 × 100 × 2 mm plate and `triangles` (even) half-plate flat triangles at z = 1.03 mm, as
 * sheets of two faces back to back.
 */
export function pictureBombObj(triangles: number): string {
  const plate = boxesObj([[0, 0, 0, 100, 100, 2]]);
  const plateVertices = plate.split('\n').filter((l) => l.startsWith('v ')).length;
  const lines: string[] = [];
  for (let t = 0; t < triangles; t += 2) {
    const d = +(1 + (8 * t) / triangles).toFixed(5); // every sheet its own corners: no edge shared between sheets
    const corners =
      (t / 2) % 2 === 0
        ? [
            [d, d],
            [100 - d, d],
            [d, 100 - d],
          ]
        : [
            [100 - d, 100 - d],
            [d, 100 - d],
            [100 - d, d],
          ];
    for (const [x, y] of corners) lines.push(`v ${x} ${y} 1.03`);
  }
  for (let t = 0; t < triangles; t += 2) {
    // Each sheet twice, front and back: a closed surface of no volume, so the mesh stays closed.
    const first = plateVertices + (t / 2) * 3 + 1;
    lines.push(`f ${first} ${first + 1} ${first + 2}`, `f ${first} ${first + 2} ${first + 1}`);
  }
  return `${plate.trimEnd()}\n${lines.join('\n')}\n`;
}

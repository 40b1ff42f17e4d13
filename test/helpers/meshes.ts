// Small OBJ models written by the tests themselves (boxes, an overhang) for fast real slices. The browser's component
// tests load this file too: it imports nothing of Node's or of the parsers (those are in estimate-inputs.ts).
type Box = [x0: number, y0: number, z0: number, x1: number, y1: number, z1: number];

/**
 * The twelve triangles of a box whose eight corners are numbered from 0: the bottom face's four corners
 * counter-clockwise seen from above, then the top face's in the same order. Outward-facing (counter-clockwise
 * seen from outside).
 */
export const BOX_TRIANGLES = [
  [0, 2, 1],
  [0, 3, 2],
  [4, 5, 6],
  [4, 6, 7],
  [0, 1, 5],
  [0, 5, 4],
  [1, 2, 6],
  [1, 6, 5],
  [2, 3, 7],
  [2, 7, 6],
  [3, 0, 4],
  [3, 4, 7],
] as const;

export function boxesObj(boxes: Box[]): string {
  const lines: string[] = [];
  boxes.forEach(([x0, y0, z0, x1, y1, z1], i) => {
    for (const z of [z0, z1])
      for (const [x, y] of [
        [x0, y0],
        [x1, y0],
        [x1, y1],
        [x0, y1],
      ])
        lines.push(`v ${x} ${y} ${z}`);
    const o = i * 8 + 1; // OBJ counts vertices from 1
    for (const f of BOX_TRIANGLES) lines.push(`f ${f.map((v) => v + o).join(' ')}`);
  });
  return `${lines.join('\n')}\n`;
}

/** A 20 mm cube. */
export const CUBE_OBJ = boxesObj([[0, 0, 0, 20, 20, 20]]);
/** A pillar carrying a wide plate: the plate's underside overhangs and needs support. */
export const T_SHAPE_OBJ = boxesObj([
  [15, 0, 0, 25, 10, 20],
  [0, 0, 20, 40, 10, 25],
]);

/** OBJ text of a convex polygon drawn in the XZ plane (counter-clockwise seen from -Y), extruded along Y. */
export function prismObj(polygon: [x: number, z: number][], depth: number): string {
  const n = polygon.length;
  const lines = [...polygon.map(([x, z]) => `v ${x} 0 ${z}`), ...polygon.map(([x, z]) => `v ${x} ${depth} ${z}`)];
  for (let i = 1; i <= n; i++) {
    const j = (i % n) + 1;
    lines.push(`f ${i} ${j} ${j + n}`, `f ${i} ${j + n} ${i + n}`);
  }
  for (let i = 2; i < n; i++) lines.push(`f 1 ${i + 1} ${i}`, `f ${1 + n} ${i + n} ${i + 1 + n}`);
  return `${lines.join('\n')}\n`;
}

const WEDGE_RUN = 5 * Math.tan(Math.PI / 3);
/** A 1 cm³ wedge, 5 mm high, its long face leaning 60° from vertical: an overhang that needs support. */
export const WEDGE_OBJ = prismObj(
  [
    [0, 0],
    [2, 0],
    [2 + WEDGE_RUN, 5],
    [0, 5],
  ],
  1000 / ((4 + WEDGE_RUN) * 2.5),
);
/** A deck on two pillars: the middle bridges (unsupported by design), both ends overhang and need support. */
export const BRIDGE_OBJ = boxesObj([
  [10, 0, 0, 16, 10, 12],
  [44, 0, 0, 50, 10, 12],
  [0, 0, 12, 60, 10, 15],
]);

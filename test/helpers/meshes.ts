// Small OBJ models written by the tests themselves (boxes, an overhang) for fast real slices.
type Box = [x0: number, y0: number, z0: number, x1: number, y1: number, z1: number];

export function boxesObj(boxes: Box[]): string {
  const lines: string[] = [];
  boxes.forEach(([x0, y0, z0, x1, y1, z1], i) => {
    for (const z of [z0, z1]) for (const [x, y] of [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) lines.push(`v ${x} ${y} ${z}`);
    const o = i * 8;
    const faces = [[1, 3, 2], [1, 4, 3], [5, 6, 7], [5, 7, 8], [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 4, 8], [3, 8, 7], [4, 1, 5], [4, 5, 8]];
    for (const f of faces) lines.push(`f ${f.map((v) => v + o).join(' ')}`);
  });
  return lines.join('\n') + '\n';
}

/** A 20 mm cube. */
export const CUBE_OBJ = boxesObj([[0, 0, 0, 20, 20, 20]]);
/** A pillar carrying a wide plate: the plate's underside overhangs and needs support. */
export const T_SHAPE_OBJ = boxesObj([[15, 0, 0, 25, 10, 20], [0, 0, 20, 40, 10, 25]]);

// The import check's reference part: a 20 mm cube, made here as a binary STL, so that the merchant's desktop
// PrusaSlicer and ours slice the very same mesh. Placed by each slicer alike (centred on the bed, on its bottom),
// it prints the same wherever the bed's origin is.

export const REFERENCE_PART_NAME = 'slicequote-reference-cube-20mm.stl';
const SIZE_MM = 20;

type Vec = [number, number, number];

/** The cube's 12 triangles, counter-clockwise seen from outside, with their outward normals. */
function cubeTriangles(s: number): { normal: Vec; corners: [Vec, Vec, Vec] }[] {
  const faces: { normal: Vec; quad: [Vec, Vec, Vec, Vec] }[] = [
    {
      normal: [0, 0, -1],
      quad: [
        [0, 0, 0],
        [0, s, 0],
        [s, s, 0],
        [s, 0, 0],
      ],
    },
    {
      normal: [0, 0, 1],
      quad: [
        [0, 0, s],
        [s, 0, s],
        [s, s, s],
        [0, s, s],
      ],
    },
    {
      normal: [0, -1, 0],
      quad: [
        [0, 0, 0],
        [s, 0, 0],
        [s, 0, s],
        [0, 0, s],
      ],
    },
    {
      normal: [0, 1, 0],
      quad: [
        [0, s, 0],
        [0, s, s],
        [s, s, s],
        [s, s, 0],
      ],
    },
    {
      normal: [-1, 0, 0],
      quad: [
        [0, 0, 0],
        [0, 0, s],
        [0, s, s],
        [0, s, 0],
      ],
    },
    {
      normal: [1, 0, 0],
      quad: [
        [s, 0, 0],
        [s, s, 0],
        [s, s, s],
        [s, 0, s],
      ],
    },
  ];
  return faces.flatMap(({ normal, quad: [a, b, c, d] }) => [
    { normal, corners: [a, b, c] as [Vec, Vec, Vec] },
    { normal, corners: [a, c, d] as [Vec, Vec, Vec] },
  ]);
}

function binaryStl(triangles: ReturnType<typeof cubeTriangles>): Buffer {
  const out = Buffer.alloc(84 + 50 * triangles.length);
  out.write('slicequote reference part: 20 mm cube', 0, 'ascii');
  out.writeUInt32LE(triangles.length, 80);
  triangles.forEach(({ normal, corners }, i) => {
    let at = 84 + 50 * i;
    for (const v of [normal, ...corners])
      for (const x of v) {
        out.writeFloatLE(x, at);
        at += 4;
      }
  });
  return out;
}

const TRIANGLES = cubeTriangles(SIZE_MM);
const STL = binaryStl(TRIANGLES);

export const referencePart = {
  name: REFERENCE_PART_NAME,
  triangles: TRIANGLES.length,
  size_mm: { x: SIZE_MM, y: SIZE_MM, z: SIZE_MM },
  /** A copy: the served bytes are not the module's to lend out. */
  bytes: (): Buffer => Buffer.from(STL),
};

// Closed solids with known cross-sections, as OBJ text with outward-facing triangles: prisms over any simple
// polygon (with an optional hole), pyramids, cones, spheres, tori and boxes with a sealed cavity. The estimator's
// tests check their sections against the formulas; its benchmark slices them as models it was never tuned on.
type P2 = [x: number, y: number];
type P3 = [x: number, y: number, z: number];

/** OBJ text of vertices and triangles (0-based indices, counter-clockwise seen from outside). */
export function trianglesObj(vertices: P3[], faces: [number, number, number][]): string {
  const lines = vertices.map(([x, y, z]) => `v ${x} ${y} ${z}`);
  for (const [a, b, c] of faces) lines.push(`f ${a + 1} ${b + 1} ${c + 1}`);
  return `${lines.join('\n')}\n`;
}

/** A regular polygon (counter-clockwise) of n corners on radius r around (cx, cy). */
export function regularPolygon(n: number, r: number, cx = 0, cy = 0): P2[] {
  return Array.from({ length: n }, (_, i) => [
    cx + r * Math.cos((2 * Math.PI * i) / n),
    cy + r * Math.sin((2 * Math.PI * i) / n),
  ]);
}

/** Triangles of a closed prism over a convex counter-clockwise polygon from z0 to z1 (inside out when `flip`). */
function prismShell(poly: P2[], z0: number, z1: number, flip: boolean, v: P3[], f: [number, number, number][]) {
  const n = poly.length;
  const base = v.length;
  for (const [x, y] of poly) v.push([x, y, z0]);
  for (const [x, y] of poly) v.push([x, y, z1]);
  const add = (a: number, b: number, c: number) => f.push(flip ? [a, c, b] : [a, b, c]);
  for (let i = 0; i < n; i++) {
    const j = (i + 1) % n;
    add(base + i, base + j, base + n + j);
    add(base + i, base + n + j, base + n + i);
  }
  for (let i = 1; i + 1 < n; i++) {
    add(base + n, base + n + i, base + n + i + 1);
    add(base, base + i + 1, base + i);
  }
}

/** A prism over a convex counter-clockwise polygon, z from z0 to z1. */
export function prismZObj(poly: P2[], z0: number, z1: number): string {
  const v: P3[] = [];
  const f: [number, number, number][] = [];
  prismShell(poly, z0, z1, false, v, f);
  return trianglesObj(v, f);
}

/** An axis-aligned box from (x0, y0, z0) to (x1, y1, z1), as a prism. */
export const boxObj = (x0: number, y0: number, z0: number, x1: number, y1: number, z1: number) =>
  prismZObj(
    [
      [x0, y0],
      [x1, y0],
      [x1, y1],
      [x0, y1],
    ],
    z0,
    z1,
  );

/** A box a × a × height with a sealed cubic cavity of side b centred inside (cross-section a² − b² across it). */
export function hollowBoxObj(a: number, height: number, b: number, cavityZ0: number): string {
  const v: P3[] = [];
  const f: [number, number, number][] = [];
  prismShell(
    [
      [0, 0],
      [a, 0],
      [a, a],
      [0, a],
    ],
    0,
    height,
    false,
    v,
    f,
  );
  const o = (a - b) / 2;
  prismShell(
    [
      [o, o],
      [o + b, o],
      [o + b, o + b],
      [o, o + b],
    ],
    cavityZ0,
    cavityZ0 + b,
    true,
    v,
    f,
  );
  return trianglesObj(v, f);
}

/** A tube: n-gon outer radius R, inner radius r, height h, open through (an annulus in every section). */
export function tubeObj(n: number, R: number, r: number, h: number): string {
  const outer = regularPolygon(n, R);
  const inner = regularPolygon(n, r);
  const v: P3[] = [];
  for (const [x, y] of outer) v.push([x, y, 0]);
  for (const [x, y] of outer) v.push([x, y, h]);
  for (const [x, y] of inner) v.push([x, y, 0]);
  for (const [x, y] of inner) v.push([x, y, h]);
  const f: [number, number, number][] = [];
  const [ob, ot, ib, it] = [0, n, 2 * n, 3 * n];
  for (let i = 0; i < n; i++) {
    const j = (i + 1) % n;
    f.push([ob + i, ob + j, ot + j], [ob + i, ot + j, ot + i]); // outer wall, facing out
    f.push([ib + j, ib + i, it + i], [ib + j, it + i, it + j]); // inner wall, facing the hole
    f.push([ot + i, ot + j, it + j], [ot + i, it + j, it + i]); // top ring
    f.push([ob + j, ob + i, ib + i], [ob + j, ib + i, ib + j]); // bottom ring
  }
  return trianglesObj(v, f);
}

/** A pyramid (or cone, with many corners) over a convex counter-clockwise polygon, apex above (ax, ay) at height h. */
export function pyramidObj(base: P2[], h: number, apex: P2 = [0, 0]): string {
  const v: P3[] = base.map(([x, y]) => [x, y, 0]);
  v.push([apex[0], apex[1], h]);
  const n = base.length;
  const f: [number, number, number][] = [];
  for (let i = 0; i < n; i++) f.push([i, (i + 1) % n, n]);
  for (let i = 1; i + 1 < n; i++) f.push([0, i + 1, i]);
  return trianglesObj(v, f);
}

/** A closed parametric surface on a (rows + 1) × cols grid, triangles turned to face away from `inside(u, v)`. */
function gridSolid(
  rows: number,
  cols: number,
  at: (i: number, j: number) => P3,
  inside: (p: P3) => P3,
  poles: boolean,
): string {
  const v: P3[] = [];
  const index = (i: number, j: number) => {
    if (poles && i === 0) return 0;
    if (poles && i === rows) return 1;
    return (poles ? 2 : 0) + (poles ? i - 1 : i % rows) * cols + (j % cols);
  };
  if (poles) v.push(at(0, 0), at(rows, 0));
  for (let i = poles ? 1 : 0; i < rows; i++) for (let j = 0; j < cols; j++) v.push(at(i, j));
  const f: [number, number, number][] = [];
  const add = (a: number, b: number, c: number) => {
    if (a === b || b === c || a === c) return;
    // index() only returns vertices pushed above.
    const [pa, pb, pc] = [v[a]!, v[b]!, v[c]!];
    const u: P3 = [pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]];
    const w: P3 = [pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]];
    const n: P3 = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]];
    const centre = [(pa[0] + pb[0] + pc[0]) / 3, (pa[1] + pb[1] + pc[1]) / 3, (pa[2] + pb[2] + pc[2]) / 3] as P3;
    const ref = inside(centre);
    const out = n[0] * (centre[0] - ref[0]) + n[1] * (centre[1] - ref[1]) + n[2] * (centre[2] - ref[2]);
    f.push(out >= 0 ? [a, b, c] : [a, c, b]);
  };
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      add(index(i, j), index(i + 1, j), index(i + 1, j + 1));
      add(index(i, j), index(i + 1, j + 1), index(i, j + 1));
    }
  }
  return trianglesObj(v, f);
}

/** A UV sphere of radius r resting on z = 0. */
export function sphereObj(r: number, rows = 24, cols = 48): string {
  return gridSolid(
    rows,
    cols,
    (i, j) => {
      const theta = (Math.PI * i) / rows;
      const phi = (2 * Math.PI * j) / cols;
      return [r * Math.sin(theta) * Math.cos(phi), r * Math.sin(theta) * Math.sin(phi), r - r * Math.cos(theta)];
    },
    () => [0, 0, r],
    true,
  );
}

/** A torus lying flat: ring radius R, tube radius r, resting on z = 0. */
export function torusObj(R: number, r: number, rows = 24, cols = 64): string {
  return gridSolid(
    rows,
    cols,
    (i, j) => {
      const a = (2 * Math.PI * i) / rows;
      const b = (2 * Math.PI * j) / cols;
      return [(R + r * Math.cos(a)) * Math.cos(b), (R + r * Math.cos(a)) * Math.sin(b), r + r * Math.sin(a)];
    },
    ([x, y]) => {
      const d = Math.hypot(x, y) || 1;
      return [(R * x) / d, (R * y) / d, r];
    },
    false,
  );
}

/**
 * n small regular tetrahedra (edge `edge`) scattered without overlap checks over a cube of side `side`, from a
 * fixed seed: as many separate bodies as tetrahedra, the shape that costs a slicer most per byte.
 */
export function tetraCloudObj(n: number, side: number, edge: number, seed = 1): string {
  let s = seed >>> 0 || 1;
  const random = () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
  const v: P3[] = [];
  const f: [number, number, number][] = [];
  const h = edge * Math.sqrt(2 / 3);
  const r = edge / Math.sqrt(3);
  for (let i = 0; i < n; i++) {
    const [x, y, z] = [random() * (side - edge), random() * (side - edge), random() * (side - h)];
    const b = v.length;
    for (let k = 0; k < 3; k++) {
      const a = (2 * Math.PI * k) / 3;
      v.push([x + r + r * Math.cos(a), y + r + r * Math.sin(a), z]);
    }
    v.push([x + r, y + r, z + h]);
    f.push([b, b + 2, b + 1], [b, b + 1, b + 3], [b + 1, b + 2, b + 3], [b + 2, b, b + 3]);
  }
  return trianglesObj(v, f);
}

/** A k × k grid of flat tori (ring radius R, tube r), `gap` apart: many bodies of many triangles each. */
export function torusGridObj(k: number, R: number, r: number, gap: number, rows = 24, cols = 64): string {
  const one = torusObj(R, r, rows, cols);
  const verts = one.split('\n').filter((l) => l.startsWith('v '));
  const faces = one.split('\n').filter((l) => l.startsWith('f '));
  const lines: string[] = [];
  const pitch = 2 * (R + r) + gap;
  for (let i = 0; i < k * k; i++) {
    const [dx, dy] = [(i % k) * pitch, Math.floor(i / k) * pitch];
    for (const l of verts) {
      const [, x, y, z] = l.split(' ');
      lines.push(`v ${Number(x) + dx} ${Number(y) + dy} ${z}`);
    }
  }
  for (let i = 0; i < k * k; i++) {
    const base = i * verts.length;
    for (const l of faces) {
      const [, a, b, c] = l.split(' ');
      lines.push(`f ${Number(a) + base} ${Number(b) + base} ${Number(c) + base}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

// The part's picture on a kept quote (its PDF and its reopened view): no thumbnail is stored, so the canonical
// mesh is drawn, seen from above and in front at an angle, flat-shaded into a small depth buffer and written as a
// PNG. Drawing runs in a worker thread (picture-worker.ts), never on the API's event loop, and within a budget of
// drawing work counted as it draws: one unit per triangle, per pixel row it spans and per pixel it covers. A mesh
// whose drawing would cost more (huge flat triangles stacked thousands deep cost the same per triangle as the
// whole picture) is shown as its bounding box instead, in grey, so it reads as an outline and not as the part.
import { crc32, deflateSync } from 'node:zlib';

/** Pixels of the square picture: sharp in a PDF at 7 cm, small as a data URL (a few KiB). */
export const PICTURE_PX = 320;
/**
 * Drawing work one picture may take (triangles + pixel rows + pixels covered): about 0.2 s of one core. Real parts
 * cost a few million units (3DBenchy's 225,000 triangles about 1.1 million); every pixel covered 250 times over is
 * 25 million.
 */
export const PICTURE_WORK_BUDGET = 25_000_000;

type V3 = [number, number, number];
const norm = (v: V3): V3 => {
  const l = Math.hypot(...v) || 1;
  return [v[0] / l, v[1] / l, v[2] / l];
};
const dot = (a: V3, b: V3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
/** Toward the viewer (front-right, above), the screen's right and up: an isometric-like view of a Z-up part. */
const TOWARD = norm([1, -1, 1]);
const RIGHT = norm([1, 1, 0]);
const UP = norm([-1, 1, 2]);
const LIGHT = norm([0.6, -1, 1.6]);
/** The part's colour, and the outline's: grey, so a box is never taken for the part. */
export const PART_COLOR: V3 = [62, 116, 178];
export const OUTLINE_COLOR: V3 = [150, 150, 150];

export interface Drawing {
  /** RGB pixels, row by row. */
  rgb: Uint8Array;
  /** Work units spent; more than the budget when it was stopped. */
  work: number;
  /** false: the budget ran out before every triangle was drawn. */
  complete: boolean;
}

/** Screen x, y (pixels) and depth of every vertex, the part centred and fitted with a margin. */
function project(v: Float64Array, px: number): Float64Array {
  const n = v.length / 3;
  const out = new Float64Array(n * 3);
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < n; i++) {
    const p: V3 = [v[i * 3]!, v[i * 3 + 1]!, v[i * 3 + 2]!];
    const x = dot(p, RIGHT);
    const y = -dot(p, UP);
    out[i * 3] = x;
    out[i * 3 + 1] = y;
    out[i * 3 + 2] = dot(p, TOWARD);
    minX = Math.min(minX, x);
    maxX = Math.max(maxX, x);
    minY = Math.min(minY, y);
    maxY = Math.max(maxY, y);
  }
  const scale = (px * 0.9) / Math.max(maxX - minX, maxY - minY, 1e-9);
  const offX = (px - (maxX - minX) * scale) / 2;
  const offY = (px - (maxY - minY) * scale) / 2;
  for (let i = 0; i < n; i++) {
    out[i * 3] = (out[i * 3]! - minX) * scale + offX;
    out[i * 3 + 1] = (out[i * 3 + 1]! - minY) * scale + offY;
  }
  return out;
}

export interface DrawOptions {
  px?: number;
  budget?: number;
  color?: V3;
  /** Called after each triangle with the work spent so far (the worker publishes it; a test may pause there). */
  progress?: (work: number) => void;
}

/**
 * Work a triangle costs before any pixel, in pixel units: setting it up (its normal, shade and depth plane) takes
 * about as long as covering this many pixels.
 */
export const TRIANGLE_WORK = 16;

/** Flat-shaded triangles into an RGB image on white, nearer over farther, until the budget is spent. */
export function render(v: Float64Array, f: Uint32Array, opts: DrawOptions = {}): Drawing {
  const px = opts.px ?? PICTURE_PX;
  const budget = opts.budget ?? PICTURE_WORK_BUDGET;
  const [cr, cg, cb] = opts.color ?? PART_COLOR;
  const s = project(v, px);
  const depth = new Float64Array(px * px).fill(-Infinity);
  const rgb = new Uint8Array(px * px * 3).fill(255);
  let work = 0;
  for (let t = 0; t < f.length; t += 3) {
    if (work > budget) return { rgb, work, complete: false };
    const a = f[t]! * 3;
    const b = f[t + 1]! * 3;
    const c = f[t + 2]! * 3;
    const [e1x, e1y, e1z] = [v[b]! - v[a]!, v[b + 1]! - v[a + 1]!, v[b + 2]! - v[a + 2]!];
    const [e2x, e2y, e2z] = [v[c]! - v[a]!, v[c + 1]! - v[a + 1]!, v[c + 2]! - v[a + 2]!];
    const [nx, ny, nz] = [e1y * e2z - e1z * e2y, e1z * e2x - e1x * e2z, e1x * e2y - e1y * e2x];
    const length = Math.sqrt(nx * nx + ny * ny + nz * nz) || 1;
    // Both sides lit alike: uploads are not always consistently wound.
    const light = 0.35 + 0.65 * Math.abs((nx * LIGHT[0] + ny * LIGHT[1] + nz * LIGHT[2]) / length);
    const shade = (ch: number) => Math.min(255, Math.round(ch * light + 70 * (1 - light)));
    work += TRIANGLE_WORK + fill(s, a, b, c, px, depth, rgb, (shade(cr) << 16) | (shade(cg) << 8) | shade(cb));
    opts.progress?.(work);
  }
  return { rgb, work, complete: work <= budget };
}

/**
 * Scan-line fill of one triangle; returns its work: the rows it spans and the pixels it covers. Only the covered
 * span of each row is visited, so a long thin sliver costs its rows, not its bounding box.
 */
function fill(
  s: Float64Array,
  a: number,
  b: number,
  c: number,
  px: number,
  depth: Float64Array,
  rgb: Uint8Array,
  shade: number,
): number {
  const [ax, ay, az, bx, by, bz, cx, cy, cz] = [
    s[a]!,
    s[a + 1]!,
    s[a + 2]!,
    s[b]!,
    s[b + 1]!,
    s[b + 2]!,
    s[c]!,
    s[c + 1]!,
    s[c + 2]!,
  ];
  const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  if (!(Math.abs(area) >= 1e-12)) return 0;
  // Depth is a plane over the screen: z = az + dzdx (x - ax) + dzdy (y - ay).
  const dzdx = ((bz - az) * (cy - ay) - (cz - az) * (by - ay)) / area;
  const dzdy = ((cz - az) * (bx - ax) - (bz - az) * (cx - ax)) / area;
  // Corners top to bottom: (x0, y0), (x1, y1), (x2, y2).
  let [x0, y0, x1, y1, x2, y2] = [ax, ay, bx, by, cx, cy];
  if (y1 < y0) [x0, y0, x1, y1] = [x1, y1, x0, y0];
  if (y2 < y1) [x1, y1, x2, y2] = [x2, y2, x1, y1];
  if (y1 < y0) [x0, y0, x1, y1] = [x1, y1, x0, y0];
  const [r, g, bl] = [shade >> 16, (shade >> 8) & 255, shade & 255];
  const top = Math.max(0, Math.ceil(y0 - 0.5));
  const bottom = Math.min(px - 1, Math.floor(y2 - 0.5));
  let work = 0;
  for (let y = top; y <= bottom; y++) {
    work++;
    const yc = y + 0.5;
    const long = x0 + ((x2 - x0) * (yc - y0)) / (y2 - y0);
    const short =
      yc < y1 ? x0 + ((x1 - x0) * (yc - y0)) / (y1 - y0) : y2 > y1 ? x1 + ((x2 - x1) * (yc - y1)) / (y2 - y1) : x1;
    const left = Math.max(0, Math.ceil(Math.min(long, short) - 0.5));
    const right = Math.min(px - 1, Math.floor(Math.max(long, short) - 0.5));
    const rowZ = az + dzdy * (yc - ay) + dzdx * (0.5 - ax);
    for (let x = left; x <= right; x++) {
      const z = rowZ + dzdx * x;
      const i = y * px + x;
      if (z <= depth[i]!) continue;
      depth[i] = z;
      rgb[i * 3] = r;
      rgb[i * 3 + 1] = g;
      rgb[i * 3 + 2] = bl;
    }
    if (right >= left) work += right - left + 1;
  }
  return work;
}

/** The 8 corners and 12 triangles of a box. */
export function boxMesh(min: V3, max: V3): { v: Float64Array; f: Uint32Array } {
  const v: number[] = [];
  for (let i = 0; i < 8; i++) v.push(i & 1 ? max[0] : min[0], i & 2 ? max[1] : min[1], i & 4 ? max[2] : min[2]);
  // Two triangles per side: -x, +x, -y, +y, -z, +z.
  const sides = [
    [0, 2, 6, 4],
    [1, 3, 7, 5],
    [0, 1, 5, 4],
    [2, 3, 7, 6],
    [0, 1, 3, 2],
    [4, 5, 7, 6],
  ];
  const f = sides.flatMap(([i, j, k, l]) => [i!, j!, k!, i!, k!, l!]);
  return { v: Float64Array.from(v), f: Uint32Array.from(f) };
}

/** The outline shown instead of a part too costly to draw: its bounding box, in grey. */
export function outline(min: V3, max: V3, px = PICTURE_PX): Uint8Array {
  const box = boxMesh(min, max);
  return render(box.v, box.f, { px, color: OUTLINE_COLOR, budget: Number.POSITIVE_INFINITY }).rgb;
}

/** RGB pixels as a PNG (8-bit, colour type 2, no filter), with a text chunk saying what it shows. */
export function encodePng(rgb: Uint8Array, px: number, description: string): Buffer {
  const stride = px * 3;
  const rows = Buffer.alloc(px * (stride + 1));
  for (let y = 0; y < px; y++) rows.set(rgb.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(px, 0);
  header.writeUInt32BE(px, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('tEXt', Buffer.from(`Description\0${description}`, 'latin1')),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

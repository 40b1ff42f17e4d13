// The part's picture on a kept quote (its PDF and its reopened view): no thumbnail is stored, so the canonical
// mesh is drawn here, seen from above and in front at an angle, flat-shaded into a small depth buffer and
// written as a PNG. A depth buffer costs the same for 12 triangles as for 2 million (memory is the pixels and
// the vertices), and every triangle is drawn, so the picture has no holes however detailed the part is.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { crc32, deflateSync } from 'node:zlib';

/** Pixels of the square picture: sharp in a PDF at 7 cm, small as a data URL (a few KiB). */
export const PICTURE_PX = 320;
/**
 * Canonical meshes above this size (about 300,000 triangles) get no picture: drawing one runs on the event loop,
 * and its vertices are held while it is drawn.
 */
export const PICTURE_MAX_MESH_BYTES = 16 * 1024 * 1024;
/** Pictures kept in memory (a few KiB each): a link opened again, or its PDF, does not draw the mesh again. */
const CACHED_PICTURES = 64;

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
const COLOR: V3 = [62, 116, 178];

/** Vertices and triangles of a canonical OBJ (only `v` and `f` lines, 1-based indices), read line by line. */
async function readObj(path: string): Promise<{ v: Float64Array; f: Uint32Array }> {
  let v = new Float64Array(3 * 4096);
  let f = new Uint32Array(3 * 4096);
  let nv = 0;
  let nf = 0;
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    const parts = line.split(' ');
    if (parts[0] === 'v') {
      if (nv + 3 > v.length) v = grow(v);
      for (let i = 1; i <= 3; i++) v[nv++] = Number(parts[i]);
    } else if (parts[0] === 'f') {
      if (nf + 3 > f.length) f = grow(f);
      for (let i = 1; i <= 3; i++) f[nf++] = Number(parts[i]) - 1;
    }
  }
  return { v: v.subarray(0, nv), f: f.subarray(0, nf) };
}

function grow<T extends Float64Array | Uint32Array>(a: T): T {
  const bigger = new (a.constructor as new (n: number) => T)(a.length * 2);
  bigger.set(a);
  return bigger;
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

/** Flat-shaded triangles into an RGBA image on white, nearer triangles over farther ones. */
export function render(v: Float64Array, f: Uint32Array, px = PICTURE_PX): Uint8Array {
  const s = project(v, px);
  const depth = new Float64Array(px * px).fill(-Infinity);
  const rgba = new Uint8Array(px * px * 4).fill(255);
  for (let t = 0; t < f.length; t += 3) {
    const [a, b, c] = [f[t]! * 3, f[t + 1]! * 3, f[t + 2]! * 3];
    const e1: V3 = [v[b]! - v[a]!, v[b + 1]! - v[a + 1]!, v[b + 2]! - v[a + 2]!];
    const e2: V3 = [v[c]! - v[a]!, v[c + 1]! - v[a + 1]!, v[c + 2]! - v[a + 2]!];
    const n = norm([e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]]);
    // Both sides lit alike: uploads are not always consistently wound.
    const light = 0.35 + 0.65 * Math.abs(dot(n, LIGHT));
    const rgb = COLOR.map((ch) => Math.min(255, Math.round(ch * light + 70 * (1 - light)))) as V3;
    fill(s, a, b, c, px, depth, rgba, rgb);
  }
  return rgba;
}

function fill(
  s: Float64Array,
  a: number,
  b: number,
  c: number,
  px: number,
  depth: Float64Array,
  rgba: Uint8Array,
  rgb: V3,
) {
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
  if (Math.abs(area) < 1e-12) return;
  const x0 = Math.max(0, Math.floor(Math.min(ax, bx, cx)));
  const x1 = Math.min(px - 1, Math.ceil(Math.max(ax, bx, cx)));
  const y0 = Math.max(0, Math.floor(Math.min(ay, by, cy)));
  const y1 = Math.min(px - 1, Math.ceil(Math.max(ay, by, cy)));
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const [qx, qy] = [x + 0.5, y + 0.5];
      const w0 = ((bx - qx) * (cy - qy) - (by - qy) * (cx - qx)) / area;
      const w1 = ((cx - qx) * (ay - qy) - (cy - qy) * (ax - qx)) / area;
      const w2 = 1 - w0 - w1;
      if (w0 < 0 || w1 < 0 || w2 < 0) continue;
      const z = w0 * az + w1 * bz + w2 * cz;
      const i = y * px + x;
      if (z <= depth[i]!) continue;
      depth[i] = z;
      rgba.set(rgb, i * 4);
    }
  }
}

/** RGBA pixels as a PNG (8-bit, colour type 6, no filter). */
export function encodePng(rgba: Uint8Array, px: number): Buffer {
  const rows = Buffer.alloc(px * (px * 4 + 1));
  for (let y = 0; y < px; y++) rows.set(rgba.subarray(y * px * 4, (y + 1) * px * 4), y * (px * 4 + 1) + 1);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(px, 0);
  header.writeUInt32BE(px, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
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

const cache = new Map<string, Promise<Buffer | null>>();

/**
 * The picture of a file's mesh, drawn once per file while it is among the last CACHED_PICTURES asked for (its
 * mesh never changes: a rescale changes the file's scale, not the shape drawn). Concurrent asks share one drawing.
 */
export function cachedPicture(fileId: string, canonicalPath: () => Promise<string>): Promise<Buffer | null> {
  const hit = cache.get(fileId);
  if (hit) {
    cache.delete(fileId);
    cache.set(fileId, hit); // most recently used last
    return hit;
  }
  const drawing = canonicalPath()
    .then(partPicture)
    .catch(() => null);
  cache.set(fileId, drawing);
  if (cache.size > CACHED_PICTURES) cache.delete(cache.keys().next().value!);
  return drawing;
}

/** The picture of a canonical mesh as a PNG, or null when there is none to draw (a 3MF, too large, gone). */
export async function partPicture(canonicalPath: string): Promise<Buffer | null> {
  if (!canonicalPath.endsWith('.obj')) return null;
  const size = await stat(canonicalPath).then(
    (s) => s.size,
    () => null,
  );
  if (size === null || size > PICTURE_MAX_MESH_BYTES) return null;
  const { v, f } = await readObj(canonicalPath);
  if (f.length === 0) return null;
  return encodePng(render(v, f), PICTURE_PX);
}

// Parses a model off the main thread with the project's own parsers (shared/model), so a 50 MB
// STL never freezes the shop page, and turns the welded mesh into what WebGL draws: unindexed
// float32 triangles with flat normals (sharp edges stay sharp). The buffers are transferred, not copied.
import { detectFormat, ModelError, parseModel, type Mesh } from '../../shared/model/index.ts';
import type { ParseReply, ParseRequest } from './parse-protocol.ts';

self.onmessage = (event: MessageEvent<ParseRequest>) => {
  const { name, bytes, maxBytes } = event.data;
  let reply: ParseReply;
  try {
    const data = new Uint8Array(bytes);
    const model = parseModel(data, detectFormat(name, data) ?? undefined, { maxBytes });
    const { positions, normals } = flatTriangles(model.mesh);
    const m = model.measurements;
    reply = { ok: true, format: model.format, positions, normals, size: m.bbox.size, min: m.bbox.min, volume: m.volume_mm3, triangles: m.triangles, warnings: model.warnings };
    self.postMessage(reply, { transfer: [positions.buffer, normals.buffer] });
  } catch (e) {
    reply = e instanceof ModelError
      ? { ok: false, code: e.code, message: e.message }
      : { ok: false, code: 'parse_failed', message: 'The model could not be read in the browser.' };
    self.postMessage(reply);
  }
};

function flatTriangles(mesh: Mesh): { positions: Float32Array; normals: Float32Array } {
  const { positions: p, indices: t } = mesh;
  const positions = new Float32Array(t.length * 3);
  const normals = new Float32Array(t.length * 3);
  for (let i = 0; i < t.length; i += 3) {
    const a = t[i] * 3, b = t[i + 1] * 3, c = t[i + 2] * 3;
    const ux = p[b] - p[a], uy = p[b + 1] - p[a + 1], uz = p[b + 2] - p[a + 2];
    const vx = p[c] - p[a], vy = p[c + 1] - p[a + 1], vz = p[c + 2] - p[a + 2];
    let nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const len = Math.hypot(nx, ny, nz) || 1;
    nx /= len; ny /= len; nz /= len;
    const o = i * 3;
    for (let k = 0; k < 3; k++) {
      const v = t[i + k] * 3;
      positions[o + k * 3] = p[v];
      positions[o + k * 3 + 1] = p[v + 1];
      positions[o + k * 3 + 2] = p[v + 2];
      normals[o + k * 3] = nx;
      normals[o + k * 3 + 1] = ny;
      normals[o + k * 3 + 2] = nz;
    }
  }
  return { positions, normals };
}

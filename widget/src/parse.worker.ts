// Parses a model off the main thread with the project's own parsers (shared/model), so a 50 MB
// STL never freezes the shop page. The welded mesh goes back as float32 positions and its indices,
// what WebGL draws; the buffers are transferred, not copied.
import { detectFormat, ModelError, parseModel } from '../../shared/model/index.ts';
import type { ParseReply, ParseRequest } from './parse-protocol.ts';

self.onmessage = (event: MessageEvent<ParseRequest>) => {
  const { name, bytes, maxBytes } = event.data;
  try {
    const data = new Uint8Array(bytes);
    const model = parseModel(data, detectFormat(name, data) ?? undefined, { maxBytes });
    const positions = Float32Array.from(model.mesh.positions);
    const indices = model.mesh.indices;
    const m = model.measurements;
    const reply: ParseReply = {
      ok: true,
      format: model.format,
      positions,
      indices,
      size: m.bbox.size,
      min: m.bbox.min,
      volume: m.volume_mm3,
      triangles: m.triangles,
      warnings: model.warnings,
    };
    self.postMessage(reply, { transfer: [positions.buffer, indices.buffer] });
  } catch (e) {
    const reply: ParseReply =
      e instanceof ModelError
        ? { ok: false, code: e.code, message: e.message }
        : { ok: false, code: 'parse_failed', message: 'The model could not be read in the browser.' };
    self.postMessage(reply);
  }
};

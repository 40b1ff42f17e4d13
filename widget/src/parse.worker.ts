// Parses a model off the main thread with the project's own parsers (shared/model), so a 50 MB
// STL never freezes the shop page. The welded mesh goes back as float32 positions and its indices,
// what WebGL draws; the buffers are transferred, not copied. Then, with the shop's published slice
// settings, it measures the estimator's features of the mesh (shared/estimate): a few hundred numbers
// the server prices before the upload has arrived (docs/instant-price.md).
import { extractFeatures, type Features } from '../../shared/estimate/index.ts';
import { detectFormat, ModelError, parseModel } from '../../shared/model/index.ts';
import type { MeasuredFeatures, ParseReply, ParseRequest } from './parse-protocol.ts';

self.onmessage = (event: MessageEvent<ParseRequest>) => {
  const { name, bytes, maxBytes, settings } = event.data;
  let model: ReturnType<typeof parseModel>;
  const parseStart = performance.now();
  try {
    const data = new Uint8Array(bytes);
    model = parseModel(data, detectFormat(name, data) ?? undefined, { maxBytes });
  } catch (e) {
    const reply: ParseReply =
      e instanceof ModelError
        ? { ok: false, code: e.code, message: e.message }
        : { ok: false, code: 'parse_failed', message: 'The model could not be read in the browser.' };
    self.postMessage(reply);
    return;
  }
  const positions = Float32Array.from(model.mesh.positions);
  // A copy goes with the preview (transferred): the mesh keeps its own for the features measured next.
  const indices = model.mesh.indices.slice();
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
    ms: performance.now() - parseStart,
  };
  self.postMessage(reply, { transfer: [positions.buffer, indices.buffer] });
  let features: Features | null = null;
  const measureStart = performance.now();
  try {
    // The slicer version left out: the product's default slicer (2.9), as the server runs it.
    if (settings) features = extractFeatures(model.mesh, settings);
  } catch {
    // A mesh the estimator refuses (too many layers, flat): no early estimate; the slice decides.
  }
  // The estimate's share of the worker's time, for the page's User Timing (bench/widget.ts reads it).
  const measured: MeasuredFeatures = { features, ms: settings ? performance.now() - measureStart : null };
  self.postMessage(measured);
};

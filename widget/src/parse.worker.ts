// Parses a model off the main thread with the project's own parsers (shared/model), so a 50 MB
// STL never freezes the shop page. The welded mesh goes back as float32 positions and its indices,
// what WebGL draws; the buffers are transferred, not copied. Then, with the shop's published slice
// settings, it measures the estimator's features of the mesh (shared/estimate): a few hundred numbers
// the server prices before the upload has arrived (docs/instant-price.md).
import { extractFeatures, type Features } from '../../shared/estimate/index.ts';
import { detectFormat, ModelError, parseModel } from '../../shared/model/index.ts';
import type { Mesh } from '../../shared/model/index.ts';
import type { MeasuredFeatures, ParseReply, ParseRequest, WarmedUp, WarmUpRequest } from './parse-protocol.ts';

self.onmessage = (event: MessageEvent<ParseRequest | WarmUpRequest>) => {
  if ('warmUp' in event.data) return warmUp(event.data.warmUp);
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
    if (settings) features = extractFeatures(model.mesh, settings);
  } catch {
    // A mesh the estimator refuses (too many layers, flat): no early estimate; the slice decides.
  }
  // The estimate's share of the worker's time, for the page's User Timing (bench/widget.ts reads it).
  const measured: MeasuredFeatures = { features, ms: settings ? performance.now() - measureStart : null };
  self.postMessage(measured);
};

/**
 * A worker is started before the shopper's first file and runs the estimator once on a small sphere: the browser
 * compiles the estimator's hot code then, at idle, instead of on the shopper's model (a first, cold run took about
 * twice as long as a warm one).
 */
function warmUp(settings: ParseRequest['settings']): void {
  const start = performance.now();
  try {
    if (settings) extractFeatures(sphere(12, 16, 32), settings);
  } catch {
    // Settings the estimator refuses: the shopper's file will say so; nothing to warm.
  }
  const reply: WarmedUp = { warmedUp: performance.now() - start };
  self.postMessage(reply);
}

/** A UV sphere of radius r (mm) resting on z = 0: curved sections on every layer, as most models have. */
function sphere(r: number, rows: number, cols: number): Mesh {
  const positions: number[] = [0, 0, 0];
  for (let i = 1; i < rows; i++) {
    const polar = (Math.PI * i) / rows;
    for (let j = 0; j < cols; j++) {
      const azimuth = (2 * Math.PI * j) / cols;
      positions.push(
        r * Math.sin(polar) * Math.cos(azimuth),
        r * Math.sin(polar) * Math.sin(azimuth),
        r - r * Math.cos(polar),
      );
    }
  }
  positions.push(0, 0, 2 * r);
  const top = positions.length / 3 - 1;
  const at = (i: number, j: number) => 1 + (i - 1) * cols + (j % cols);
  const indices: number[] = [];
  for (let j = 0; j < cols; j++) {
    indices.push(0, at(1, j + 1), at(1, j));
    indices.push(top, at(rows - 1, j), at(rows - 1, j + 1));
    for (let i = 1; i < rows - 1; i++) {
      indices.push(at(i, j), at(i, j + 1), at(i + 1, j + 1), at(i, j), at(i + 1, j + 1), at(i + 1, j));
    }
  }
  return { positions: new Float64Array(positions), indices: new Uint32Array(indices) };
}

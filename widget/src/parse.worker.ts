// Parses a model off the main thread with the project's own parsers (shared/model), so a 50 MB
// STL never freezes the shop page. The welded mesh goes back as float32 positions and its indices,
// what WebGL draws; the buffers are transferred, not copied. Then, with the shop's published slice
// settings, it measures the estimator's features of the mesh (shared/estimate): a few hundred numbers
// the server prices before the upload has arrived (docs/instant-price.md), first the coarse stage's (one pass
// over the triangles, milliseconds, sent before the preview), then the fine stage's (the layers' polygons). The worker keeps the mesh
// afterwards: when the shopper changes a choice it measures the features again with that choice's
// settings, so the new choice's estimate shows at once instead of after its slice.
import { type EstimateSettings, extractCoarseFeatures, extractFeatures } from '../../shared/estimate/index.ts';
import { detectFormat, ModelError, parseModel } from '../../shared/model/index.ts';
import type { Mesh } from '../../shared/model/mesh.ts';
import type {
  EstimateStage,
  MeasuredFeatures,
  MeasureRequest,
  ParseReply,
  ParseRequest,
  WorkerRequest,
} from './parse-protocol.ts';

/** The mesh as read, and the last scaled copy asked for (a rescaled part is measured at its new size). */
let kept: Mesh | null = null;
let scaled: { scale: number; mesh: Mesh } | null = null;

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  if (event.data.kind === 'measure') measureAgain(event.data);
  else parse(event.data);
};

function parse({ name, bytes, maxBytes, settings }: ParseRequest): void {
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
  // The coarse stage's features go first, before the preview: the page asks for their estimate before it draws the
  // preview (a long task on a slow machine), so the first figure does not wait for the drawing.
  self.postMessage(settings ? measure(model.mesh, settings, 'coarse') : { stage: 'coarse', features: null, ms: null });
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
  kept = model.mesh;
  // The fine stage's features, their share of the worker's time for the page's User Timing (bench/widget.ts).
  self.postMessage(settings ? measure(model.mesh, settings, 'fine') : { stage: 'fine', features: null, ms: null });
}

function measureAgain({ id, stage, settings, scale }: MeasureRequest): void {
  const mesh = kept ? meshAt(kept, scale) : null;
  const measured: MeasuredFeatures = mesh ? measure(mesh, settings, stage) : { stage, features: null, ms: null };
  self.postMessage({ ...measured, id });
}

function measure(mesh: Mesh, settings: EstimateSettings, stage: EstimateStage): MeasuredFeatures {
  const start = performance.now();
  const ms = () => performance.now() - start;
  try {
    // The slicer version left out: the product's default slicer (2.9), as the server runs it.
    return stage === 'coarse'
      ? { stage, features: extractCoarseFeatures(mesh, settings), ms: ms() }
      : { stage, features: extractFeatures(mesh, settings), ms: ms() };
  } catch {
    // A mesh the estimator refuses (too many layers, flat): no estimate of its own; the slice decides.
    return { stage, features: null, ms: ms() };
  }
}

/** The kept mesh scaled by `scale` about the origin (the estimator reads sizes and layers, not where it stands). */
function meshAt(mesh: Mesh, scale: number): Mesh {
  if (scale === 1) return mesh;
  if (scaled?.scale !== scale) scaled = { scale, mesh: { ...mesh, positions: mesh.positions.map((x) => x * scale) } };
  return scaled.mesh;
}

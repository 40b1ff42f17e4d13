// Runs in a worker thread: parse an upload with our shared parsers, write the canonical mesh, and report; or read
// a stored canonical mesh and measure the features the instant estimate needs (docs/estimate.md). An upload may
// also be read as it arrives (a binary STL welded record by record): its last byte leaves only the measuring and
// the canonical mesh to do.
// A hostile file can only exhaust this worker (heap-capped, killed on timeout), never the API process.
// Workers stay alive between jobs, so the TypeScript loader and the parsers load once.

import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import {
  EstimateError,
  type EstimateSettings,
  extractFeatures,
  type MeshPlacement,
  placeMesh,
} from '../../shared/estimate/index.ts';
import {
  BinaryStlStream,
  type ByteSink,
  CanonicalObjDraft,
  canonicalBytesAtLeast,
  detectFormat,
  ModelError,
  type ParsedModel,
  type ParseLimits,
  parsedStl,
  parseModel,
  resolveLimits,
  streamCanonical3mf,
  streamCanonicalObj,
} from '../../shared/model/index.ts';
import { COUNTED_WORK_CODES, inflatedAllowance, SMALL_LANE_OUTGROWN } from './budget.ts';
import { checkCompression } from './compression.ts';
import { currentThread } from './cpu-time.ts';
import { convexHullXY, describeShape } from './footprint.ts';

export interface ParseJob {
  kind?: 'parse';
  sourcePath: string;
  fileName: string;
  /** Where to write the canonical mesh: OBJ, or 3MF when the model has negative volumes. */
  canonical: { obj: string; '3mf': string };
  /** The most the canonical mesh may take on disk (the upload's storage room); unbounded when left out. */
  maxCanonicalBytes?: number;
  /**
   * The small-file worker's counts (budget.ts, SMALL_LANE_LIMITS): a file that passes one answers
   * `small_lane_outgrown`, to be parsed again by a shared worker with the usual limits.
   */
  laneLimits?: Partial<ParseLimits>;
}

/** The estimator's features of a stored canonical mesh, as placed for the slice, with the quote's settings. */
export interface FeaturesJob {
  kind: 'features';
  meshPath: string;
  placement: MeshPlacement | null;
  settings: EstimateSettings;
  /** Version of the slicer the quote slices with: it decides which overhangs are bridges (docs/estimate.md). */
  slicerVersion?: string;
}

function features(job: FeaturesJob) {
  const bytes = new Uint8Array(readFileSync(job.meshPath));
  const mesh = parseModel(bytes, job.meshPath.endsWith('.3mf') ? '3mf' : 'obj').mesh;
  return extractFeatures(job.placement ? placeMesh(mesh, job.placement) : mesh, job.settings, {
    slicerVersion: job.slicerVersion,
  });
}

/** An upload read as it arrives: started, fed chunk by chunk, then ended with the job (or dropped: read later). */
export type StreamMessage =
  | { kind: 'stream-start' }
  | { kind: 'stream-chunk'; bytes: Uint8Array }
  | { kind: 'stream-drop' }
  | { kind: 'stream-end'; job: ParseJob };

/**
 * The most canonical text a stream writes ahead (its mesh's lines as they come); a larger mesh's is written once it
 * is complete, as any upload's. Held outside the heap, beside the mesh's own arrays.
 */
const DRAFT_BYTES = 64 * 1024 * 1024;

/** The upload being read as it arrives, if any, and its canonical mesh written as it grows. */
let streaming: { stl: BinaryStlStream; draft: CanonicalObjDraft } | null = null;

function startStream() {
  const draft = new CanonicalObjDraft(DRAFT_BYTES);
  streaming = { stl: new BinaryStlStream(resolveLimits(), draft), draft };
}

/** The whole binary STL its first bytes stated, read as it arrived, is parsed; null: the file is something else. */
function endStream(job: ParseJob) {
  const stream = streaming;
  streaming = null;
  const stl = stream?.stl.finish();
  return stl ? canonicalize(job, parsedStl(stl), stream!.draft) : null;
}

function run(job: ParseJob) {
  return canonicalize(job, parse(job));
}

/** Writes the canonical mesh within the room the upload has (from `draft` if it is ready), and reports the rest. */
function canonicalize(job: ParseJob, parsed: ParsedModel, draft?: CanonicalObjDraft) {
  const canonical = parsed.negativeVolumes ? '3mf' : 'obj';
  const room = job.maxCanonicalBytes ?? Number.POSITIVE_INFINITY;
  // An instanced 3MF is refused here, before its expanded mesh is written, when even its least size has no room.
  const least = canonicalBytesAtLeast(parsed.mesh, parsed.negativeVolumes);
  if (least > room) throw noRoom(least, room);
  const meshSha256 = writeHashed(job.canonical[canonical], room, (sink) => {
    if (parsed.negativeVolumes) streamCanonical3mf(parsed.mesh, parsed.negativeVolumes, sink);
    else if (!draft?.streamIf(parsed.mesh, sink)) streamCanonicalObj(parsed.mesh, sink);
  });
  return {
    format: parsed.format,
    unit: parsed.unit,
    measurements: parsed.measurements,
    warnings: parsed.warnings,
    canonical,
    meshSha256,
    footprint: convexHullXY(parsed.mesh.positions),
    shape: describeShape(parsed.mesh.positions, parsed.mesh.indices),
  };
}

/**
 * Reads and parses the upload; its bytes are garbage once parsed, before the canonical mesh is written. A 3MF
 * may inflate only to what its size justifies (budget.ts), checked on its stated sizes first.
 */
function parse(job: ParseJob): ParsedModel {
  const bytes = new Uint8Array(readFileSync(job.sourcePath));
  const format = detectFormat(job.fileName, bytes);
  if (!format) throw new ModelError('unsupported_format', 'The file is not an STL, OBJ or 3MF model.');
  const lane = job.laneLimits ?? {};
  if (format !== '3mf') return parseModel(bytes, format, lane);
  checkCompression(bytes);
  const allowance = inflatedAllowance(bytes.length);
  return parseModel(bytes, format, {
    ...lane,
    maxInflatedBytes: Math.min(allowance, lane.maxInflatedBytes ?? allowance),
  });
}

/** The canonical mesh needs more than the upload's storage room; the caller answers with the limit that set it. */
function noRoom(neededAtLeast: number, room: number): ModelError {
  return new ModelError(
    'storage_room_exceeded',
    `The model's mesh needs at least ${neededAtLeast} bytes of storage, more than the ${room} bytes left for it.`,
    { needed_at_least_bytes: neededAtLeast, room_bytes: room },
  );
}

/** Streams the canonical mesh to disk and to its hash, never holding it whole, and never more than `room` bytes. */
function writeHashed(path: string, room: number, write: (sink: ByteSink) => void): string {
  const hash = createHash('sha256');
  const fd = openSync(path, 'w');
  let written = 0;
  try {
    write((chunk) => {
      written += chunk.length;
      if (written > room) throw noRoom(written, room);
      hash.update(chunk);
      for (let offset = 0; offset < chunk.length; ) offset += writeSync(fd, chunk, offset);
    });
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

function handle(job: ParseJob | FeaturesJob | Extract<StreamMessage, { kind: 'stream-end' }>) {
  try {
    if (job.kind === 'stream-end') return { ok: true, result: endStream(job.job) };
    return { ok: true, result: job.kind === 'features' ? features(job) : run(job) };
  } catch (err) {
    if (err instanceof EstimateError) return { ok: false, code: err.code, message: err.message, details: null };
    const onSmallLane = job.kind !== 'features' && job.kind !== 'stream-end' && job.laneLimits;
    if (err instanceof ModelError && onSmallLane && COUNTED_WORK_CODES.has(err.code))
      return {
        ok: false,
        code: SMALL_LANE_OUTGROWN,
        message: 'More work than the small-file worker does.',
        details: null,
      };
    if (err instanceof ModelError)
      return { ok: false, code: err.code, message: err.message, details: err.details ?? null };
    // An unexpected parser exception is still the file's fault from the user's view; keep the detail for logs.
    return {
      ok: false,
      code: 'model_unreadable',
      message: 'The model could not be read.',
      details: { internal: String(err) },
    };
  }
}

/** A stream's start, chunks and drop need no answer; everything else is answered once. */
function receive(message: ParseJob | FeaturesJob | StreamMessage) {
  switch (message.kind) {
    case 'stream-start':
      startStream();
      return;
    case 'stream-chunk':
      streaming?.stl.push(message.bytes);
      return;
    case 'stream-drop':
      streaming = null;
      return;
    default:
      parentPort!.postMessage(handle(message));
  }
}

parentPort!.on('message', receive);
// The parent reads this thread's CPU time under /proc to hold a parse to its budget (worker-thread.ts).
parentPort!.postMessage({ ready: true, thread: currentThread() });

// Runs in a worker thread: parse an upload with our shared parsers, write the canonical mesh, and report.
// A hostile file can only exhaust this worker (heap-capped, killed on timeout), never the API process.
// Workers stay alive between jobs, so the TypeScript loader and the parsers load once.
import { parentPort } from 'node:worker_threads';
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { detectFormat, parseModel, writeCanonicalObj, ModelError } from '../../shared/model/index.ts';
import { convexHullXY } from './footprint.ts';

export interface ParseJob {
  sourcePath: string;
  fileName: string;
  canonicalPath: string;
}

function run(job: ParseJob) {
  const bytes = new Uint8Array(readFileSync(job.sourcePath));
  const format = detectFormat(job.fileName, bytes);
  if (!format) {
    throw new ModelError('unsupported_format', 'The file is not an STL, OBJ or 3MF model.');
  }
  const parsed = parseModel(bytes, format);
  const canonical = writeCanonicalObj(parsed.mesh);
  writeFileSync(job.canonicalPath, canonical);
  return {
    format: parsed.format,
    unit: parsed.unit,
    measurements: parsed.measurements,
    warnings: parsed.warnings,
    meshSha256: createHash('sha256').update(canonical).digest('hex'),
    footprint: convexHullXY(parsed.mesh.positions),
  };
}

function handle(job: ParseJob) {
  try {
    return { ok: true, result: run(job) };
  } catch (err) {
    if (err instanceof ModelError) return { ok: false, code: err.code, message: err.message, details: err.details ?? null };
    // An unexpected parser exception is still the file's fault from the user's view; keep the detail for logs.
    return { ok: false, code: 'model_unreadable', message: 'The model could not be read.', details: { internal: String(err) } };
  }
}

parentPort!.on('message', (job: ParseJob) => parentPort!.postMessage(handle(job)));
parentPort!.postMessage({ ready: true });

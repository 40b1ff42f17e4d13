// Messages between the element and the parse worker.
import type { EstimateSettings, Features } from '../../shared/estimate/index.ts';
import type { ModelWarning } from '../../shared/model/index.ts';

export interface ParseRequest {
  kind: 'parse';
  name: string;
  bytes: ArrayBuffer;
  maxBytes: number;
  /** The slice settings the shop publishes for its default choices: the worker then measures the estimate's features. */
  settings: EstimateSettings | null;
}

export interface ParsedPreview {
  ok: true;
  format: string;
  /** Welded vertices, millimetres, in the file's own coordinates. */
  positions: Float32Array;
  /** Three vertex indices per triangle. */
  indices: Uint32Array;
  size: [number, number, number];
  min: [number, number, number];
  volume: number;
  triangles: number;
  warnings: ModelWarning[];
  /** How long the worker took to read the file and weld its mesh, ms. */
  ms: number;
}

/** The worker's second message, after the preview: the estimator's features, or null when none could be made. */
export interface MeasuredFeatures {
  /** Absent for the first measurement (with the parse); the request's id for a later one (MeasureRequest). */
  id?: number;
  features: Features | null;
  /** How long the worker took to measure them (extractFeatures), ms; null when it did not try. */
  ms: number | null;
}

/**
 * A later measurement of the mesh the worker keeps: the estimate's features for another choice (its settings), the
 * mesh scaled by `scale` (the part rescaled on the server since it was read). Answered with a MeasuredFeatures.
 */
export interface MeasureRequest {
  kind: 'measure';
  id: number;
  settings: EstimateSettings;
  scale: number;
}

export type WorkerRequest = ParseRequest | MeasureRequest;

export type ParseReply = ParsedPreview | { ok: false; code: string; message: string };

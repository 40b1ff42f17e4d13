// Messages between the element and the parse worker.
import type { CoarseFeatures, EstimateSettings, Features } from '../../shared/estimate/index.ts';
import type { ModelWarning } from '../../shared/model/index.ts';

export interface ParseRequest {
  kind: 'parse';
  name: string;
  bytes: ArrayBuffer;
  maxBytes: number;
  /** The slice settings the shop publishes for its default choices: the worker then measures the estimate's features,
   *  coarse then fine. */
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

/** The estimate's two stages: the coarse features (one pass over the triangles, milliseconds), then the fine ones
 *  (the polygons of the layers, seconds for a large part). */
export type EstimateStage = 'coarse' | 'fine';
export interface StageFeatures {
  coarse: CoarseFeatures;
  fine: Features;
}

/** The worker's messages after the preview: the coarse features, then the fine ones, each null when none could be
 *  made. */
export type MeasuredFeatures = { [S in EstimateStage]: Measured<S> }[EstimateStage];
export interface Measured<S extends EstimateStage> {
  /** Absent for the first measurement (with the parse); the request's id for a later one (MeasureRequest). */
  id?: number;
  stage: S;
  features: StageFeatures[S] | null;
  /** How long the worker took to measure them, ms; null when it did not try. */
  ms: number | null;
}

/**
 * A later measurement of the mesh the worker keeps: the estimate's features of one stage for another choice (its
 * settings), the mesh scaled by `scale` (the part rescaled on the server since it was read). Answered with a
 * MeasuredFeatures of that stage.
 */
export interface MeasureRequest {
  kind: 'measure';
  id: number;
  stage: EstimateStage;
  settings: EstimateSettings;
  scale: number;
}

export type WorkerRequest = ParseRequest | MeasureRequest;

export type ParseReply = ParsedPreview | { ok: false; code: string; message: string };

// Messages between the element and the parse worker.
import type { ModelWarning } from '../../shared/model/index.ts';

export interface ParseRequest {
  name: string;
  bytes: ArrayBuffer;
  maxBytes: number;
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
}

export type ParseReply = ParsedPreview | { ok: false; code: string; message: string };

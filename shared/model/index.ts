// Public API of the model parsers. Pure TypeScript with no Node-only APIs: the same code runs
// in the API server (in a worker thread) and in the storefront widget (in a Web Worker).
import { detectFormat, type ModelFormat } from './detect.ts';
import { fail } from './errors.ts';
import { type ParseLimits, resolveLimits } from './limits.ts';
import { type Measurements, measure } from './measure.ts';
import type { Mesh } from './mesh.ts';
import { parseObj } from './obj.ts';
import { assessMesh } from './quality.ts';
import { parseStl, type StlResult } from './stl.ts';
import { parse3mf } from './threemf.ts';
import type { ModelWarning } from './warnings.ts';

export {
  type ByteSink,
  CanonicalObjDraft,
  canonicalBytesAtLeast,
  streamCanonical3mf,
  streamCanonicalObj,
  writeCanonical3mf,
  writeCanonicalObj,
} from './canonical.ts';
export { detectFormat, type ModelFormat } from './detect.ts';
export { ModelError } from './errors.ts';
export { DEFAULT_LIMITS, type ParseLimits, resolveLimits } from './limits.ts';
export { type Measurements, measure } from './measure.ts';
export type { Mesh } from './mesh.ts';
export { BinaryStlStream, statedBinaryStlBytes } from './stl-stream.ts';
export type { ModelWarning, ModelWarningCode } from './warnings.ts';

export interface ParsedModel {
  format: ModelFormat;
  mesh: Mesh;
  measurements: Measurements;
  /** Unit of the source file, e.g. 'millimeter', 'inch'. STL and OBJ carry none: millimetres assumed. */
  unit: string;
  /**
   * Negative volumes of a PrusaSlicer project, in the mesh's coordinates: the slicer must cut them away
   * from `mesh` (see writeCanonical3mf). Null for every other file.
   */
  negativeVolumes: Mesh | null;
  warnings: ModelWarning[];
}

/** Parses, welds and measures a model. Throws ModelError (and only ModelError) on bad input. */
export function parseModel(bytes: Uint8Array, format?: ModelFormat, limits?: Partial<ParseLimits>): ParsedModel {
  const resolved = resolveLimits(limits);
  if (bytes.length === 0) fail('empty_file', 'The file is empty.');
  if (bytes.length > resolved.maxBytes) {
    fail(
      'file_too_large',
      `The file is ${bytes.length} bytes, more than the ${resolved.maxBytes} bytes this service accepts.`,
      {
        size: bytes.length,
        limit: resolved.maxBytes,
      },
    );
  }
  const kind = format ?? detectFormat('', bytes);
  return measured(kind!, readSource(kind, bytes, resolved));
}

/** A binary STL read as it arrived (BinaryStlStream), checked and measured as parseModel does every model. */
export function parsedStl(stl: StlResult): ParsedModel {
  return measured('stl', { ...stl, negative: null, unit: 'millimeter', warnings: [] });
}

function measured(format: ModelFormat, source: Source): ParsedModel {
  if (source.mesh.indices.length === 0)
    fail('no_triangles', 'The model contains no triangles, so there is nothing to print.');
  const measurements = measure(source.mesh);
  const warnings = [...source.warnings, ...assessMesh(source.mesh, measurements, source.degenerate)];
  return {
    format,
    mesh: source.mesh,
    measurements,
    unit: source.unit,
    negativeVolumes: source.negative,
    warnings,
  };
}

interface Source {
  mesh: Mesh;
  negative: Mesh | null;
  degenerate: number;
  unit: string;
  warnings: ModelWarning[];
}

function readSource(kind: ModelFormat | null, bytes: Uint8Array, limits: ParseLimits): Source {
  switch (kind) {
    case 'stl':
      return { ...parseStl(bytes, limits), negative: null, unit: 'millimeter', warnings: [] };
    case 'obj':
      return { ...parseObj(bytes, limits), negative: null, unit: 'millimeter', warnings: [] };
    case '3mf':
      return parse3mf(bytes, limits);
    default:
      return fail('unsupported_format', 'The file is not an STL, OBJ or 3MF model.');
  }
}

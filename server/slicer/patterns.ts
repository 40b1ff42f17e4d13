// Spec infill pattern names -> PrusaSlicer 2.5 `fill_pattern` values.
// The spec lists names from several slicers; PrusaSlicer lacks some, so those are sliced with the
// nearest pattern it has, and the quote reports which one was used.
import type { InfillPattern } from '../../shared/settings.ts';

/** Values PrusaSlicer accepts for `fill_pattern` (prusa-slicer --help-fff, the same on 2.5 and 2.9). */
export const PRUSA_FILL_PATTERNS = [
  'rectilinear',
  'alignedrectilinear',
  'grid',
  'triangles',
  'stars',
  'cubic',
  'line',
  'concentric',
  'honeycomb',
  '3dhoneycomb',
  'gyroid',
  'hilbertcurve',
  'archimedeanchords',
  'octagramspiral',
  'adaptivecubic',
  'supportcubic',
  'lightning',
] as const;

export type PrusaFillPattern = (typeof PRUSA_FILL_PATTERNS)[number];

export interface PatternUsed {
  requested: InfillPattern;
  /** The PrusaSlicer pattern actually sliced. */
  used: PrusaFillPattern;
  /** false when PrusaSlicer has no such pattern and `used` is its nearest equivalent. */
  exact: boolean;
}

// exact: same geometry under another name counts as exact (trihexagon = stars, honeycomb3d = 3dhoneycomb).
const MAP: Record<InfillPattern, [PrusaFillPattern, boolean]> = {
  rectilinear: ['rectilinear', true],
  alignedrectilinear: ['alignedrectilinear', true],
  zigzag: ['rectilinear', false], // zig-zag = rectilinear lines joined at the ends, which PrusaSlicer's anchors do
  crosszag: ['rectilinear', false], // zig-zag crossing direction every layer, as rectilinear does
  lockedzag: ['rectilinear', false], // zig-zag interlocked with the skin; geometry closest to rectilinear
  line: ['line', true],
  grid: ['grid', true],
  triangles: ['triangles', true],
  trihexagon: ['stars', true], // PrusaSlicer calls the tri-hexagonal tiling "stars"
  cubic: ['cubic', true],
  adaptivecubic: ['adaptivecubic', true],
  supportcubic: ['supportcubic', true],
  honeycomb: ['honeycomb', true],
  honeycomb3d: ['3dhoneycomb', true],
  lateralhoneycomb: ['honeycomb', false], // a honeycomb walled sideways; plain honeycomb uses similar material
  gyroid: ['gyroid', true],
  monotonic: ['rectilinear', false], // monotonic exists only for solid surfaces; sparse equivalent is rectilinear
  monotonicline: ['line', false], // unconnected monotonic lines; PrusaSlicer's unconnected lines are "line"
  lightning: ['lightning', true],
};

export function mapInfillPattern(requested: InfillPattern): PatternUsed {
  const [used, exact] = MAP[requested];
  return { requested, used, exact };
}

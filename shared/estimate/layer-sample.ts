// Which layers the polygon estimator works on (docs/estimate.md, "Sampled layers"). Offsetting and classifying a
// layer's polygons with Clipper costs about a millisecond; the sweep's perimeter and area of every layer cost
// microseconds. So the regions are computed on a sample that holds every layer where they can change abruptly, and a
// stride between; layer-fill.ts computes more where a layer's counts change and fills in the others. It holds:
// - the first layers (the first is all bottom, the next carry its shells; the second is the first at full speed)
//   and the last one;
// - both layers around a change of the section's loop count, or of its area or perimeter by more than CHANGE_SHARE;
// - every SAMPLE_STRIDE-th layer;
// - for each top or bottom surface that reaches the infill area (and so is grown 3 mm into it and carried through
//   the shell layers), the layers either side of both ends of its shells. Which surfaces reach it is found by
//   cutting only the candidates: the bands where a face, or a valley between faces, is shallow enough to move
//   sideways nearly the perimeters' width over one layer, or where a hole or an island starts or ends
//   (surface-bands.ts). Elsewhere a surface is a sliver under the perimeters.
// With supports, the column is measured on the sample and on the layer under each band with a face shallower than
// the support angle.
import type { Mesh } from '../model/mesh.ts';
import type { LayerSweep } from './layer-sweep.ts';
import { valleyReach } from './surface-bands.ts';

/** Parts with at most this many layers compute every layer (a few hundred milliseconds at most). */
export const MIN_SAMPLED_LAYERS = 40;
/** Between the layers the sample must hold, every this-many-th layer is computed (4 strayed little less from every
 *  layer on the benchmark's models, 16 three times as far; docs/estimate.md). */
export const SAMPLE_STRIDE = 8;
/** A layer whose area or perimeter differs from the next one's by more than this share is computed, with it. */
export const CHANGE_SHARE = 0.05;
/** A surface is cut exactly when its faces may reach this share of the perimeters' width into the section: the
 *  infill area starts a whole width in, so a margin is left for corners and the simplified outline. */
export const REACH_SHARE = 0.95;

export interface SampleParams {
  perimeters: number;
  /** Perimeter line spacing, mm: the infill area starts perimeters × spacing inside the outline. */
  spacing_mm: number;
  top_solid_layers: number;
  bottom_solid_layers: number;
  /** Supports on: how far a layer may reach beyond the one below unsupported, mm; null with supports off. */
  overhang_step_mm: number | null;
  /** External perimeter width, mm: overhangs are opened by a tenth of it, so narrower slivers vanish. */
  external_width_mm: number;
}

export interface LayerSample {
  layers: number;
  /** The perimeters' width, mm: where the infill area starts. */
  band_mm: number;
  top_solid_layers: number;
  bottom_solid_layers: number;
  /** Per layer: 1 where its regions and perimeter loops are computed from its polygons. */
  computed: Uint8Array;
  /** Per band b (between layers b − 1 and b, n + 1 of them): 1 where layer b − 1's top surface (layer b's bottom
   *  surface) may reach the infill area: it is cut, and where it does reach it, grown and carried exactly. */
  topCut: Uint8Array;
  bottomCut: Uint8Array;
  /** Per band: 1 where layer b − 1's top surface (layer b's bottom surface) is certainly empty once opened by a
   *  tenth of a line: no face or valley in it moves sideways that far twice over, and no hole or island starts or
   *  ends there (or the surface was cut and found empty). A layer whose shells span only empty surfaces has none. */
  emptyTop: Uint8Array;
  emptyBottom: Uint8Array;
  /** Per band b: 1 where layer b overhangs layer b − 1 beyond the support angle (supports on). */
  overhang: Uint8Array;
  /** Per layer: 1 where the support column is cut by the part and measured (supports on). */
  supported: Uint8Array;
}

/** The layers to compute, or null when the part has so few layers that every one is. `loops`: the number of loops
 *  (outlines and holes) of each layer's section. Deterministic: the same mesh and settings, the same sample. */
export function sampleLayers(
  mesh: Mesh,
  sweep: LayerSweep,
  loops: ArrayLike<number>,
  q: SampleParams,
): LayerSample | null {
  const n = sweep.layers;
  if (n <= MIN_SAMPLED_LAYERS) return null;
  const topReach = sweep.topReach.slice();
  const bottomReach = sweep.bottomReach.slice();
  // Valleys are looked for only where they could make a surface a candidate: a gentler one leaves a notch
  // narrower than the perimeters, which no infill area reaches (its band may then count as empty below: the notch
  // is left out of the shells of the layers whose shells span only such bands).
  valleyReach(mesh, sweep.bands, sweep.orientation, cutReach(q), topReach, bottomReach);
  // The opening removes what is narrower than twice its width: a surface no wider than that is empty.
  const narrow = (2 * q.external_width_mm) / 10;
  const s: LayerSample = {
    layers: n,
    band_mm: Math.max(q.perimeters, 0) * q.spacing_mm,
    top_solid_layers: q.top_solid_layers,
    bottom_solid_layers: q.bottom_solid_layers,
    computed: new Uint8Array(n),
    topCut: new Uint8Array(n + 1),
    bottomCut: new Uint8Array(n + 1),
    emptyTop: new Uint8Array(n + 1),
    emptyBottom: new Uint8Array(n + 1),
    overhang: new Uint8Array(n + 1),
    supported: new Uint8Array(n),
  };
  const mark = (i: number) => {
    if (i >= 0 && i < n) s.computed[i] = 1;
  };
  // The first layer is all bottom, the next B − 1 carry its shells; the second is the first at full speed.
  for (let i = 0; i <= Math.max(q.bottom_solid_layers, 1); i++) mark(i);
  for (let i = 0; i < n; i += SAMPLE_STRIDE) mark(i);
  // The last layer's top is its whole section: its shells' edge is computed.
  mark(n - 1);
  addShellEdges(s, n - 1, 'top');
  const reach = cutReach(q);
  for (let b = 0; b <= n; b++) {
    // A hole that opens or closes, or an island that starts, ends, splits or merges, may leave a surface anywhere
    // in the section, whatever the faces' slope: a pit's tip inside the part exposes the layer under it.
    const topology = sweep.critical[b] === 1 || (b > 0 && b < n && loops[b - 1] !== loops[b]);
    if (b > 0 && (b === n || topology || topReach[b]! > reach)) s.topCut[b] = 1;
    if (b < n && (b === 0 || topology || bottomReach[b]! > reach)) s.bottomCut[b] = 1;
    if (b > 0 && b < n && !topology) {
      s.emptyTop[b] = Number(topReach[b]! <= narrow);
      s.emptyBottom[b] = Number(bottomReach[b]! <= narrow);
    }
  }
  for (let i = 0; i + 1 < n; i++) {
    const { area: A, perimeter: P } = sweep;
    if (loops[i] !== loops[i + 1] || changes(A[i]!, A[i + 1]!) || changes(P[i]!, P[i + 1]!)) {
      mark(i);
      mark(i + 1);
    }
  }
  if (q.overhang_step_mm !== null) {
    // The column under an overhang is measured where the sample is and on the layer under each overhang (a face
    // shallower than the support angle), which the overhang is cut from.
    s.supported.set(s.computed);
    // A face reaching less than a tenth of a line beyond the step leaves a sliver the opening removes.
    const beyond = q.overhang_step_mm + q.external_width_mm / 10;
    for (let b = 1; b < n; b++) {
      if (bottomReach[b]! > beyond || sweep.critical[b] === 1 || loops[b - 1] !== loops[b]) {
        s.overhang[b] = 1;
        s.supported[b - 1] = 1;
      }
    }
  }
  return s;
}

/** How far a face must reach (mm over one layer) for its surface to be cut. */
export const cutReach = (q: Pick<SampleParams, 'perimeters' | 'spacing_mm'>): number =>
  REACH_SHARE * Math.max(q.perimeters, 0) * q.spacing_mm;

const changes = (a: number, b: number) => Math.abs(a - b) > CHANGE_SHARE * Math.max(a, b);

/** Marks as computed the layers either side of both ends of a surface's shells: for layer j's top surface, the
 *  shells span layers j − T + 1 … j; for its bottom surface j … j + B − 1. sampledRegions calls it for each cut
 *  surface that reaches the infill area. */
export function addShellEdges(s: LayerSample, j: number, kind: 'top' | 'bottom'): void {
  const [first, last] = kind === 'top' ? [j - s.top_solid_layers + 1, j] : [j, j + s.bottom_solid_layers - 1];
  for (const i of [first - 1, first, last, last + 1]) {
    if (i >= 0 && i < s.layers) s.computed[i] = 1;
  }
}

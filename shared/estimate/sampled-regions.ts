// The regions of the layers a sample computes (layer-sample.ts), with the same offsets and differences as
// layer-regions.ts but without cutting every layer's surfaces:
// - a surface that may reach the infill area (the sample's topCut, bottomCut) is tested first (is the infill area
//   left uncovered by the next layer?) and, where it does reach it, cut, grown 3 mm into the infill area and
//   carried down (up) its shell layers exactly as layer-regions.ts does;
// - every other surface is a sliver narrower than the perimeters, which reaches the infill area of the layers it is
//   carried to only summed over several layers (a dome's flank). Summed over a layer's T shell layers above, such
//   slivers are what the layer T above does not cover: the shells of layer i are the infill area less what both
//   the layer T above and the layer B below cover (exact for a part that narrows, widens or leans steadily, which
//   is all the sample leaves between its computed layers), plus the cut surfaces within reach; none where every
//   surface within reach is too narrow to survive the opening (the sample's emptyTop, emptyBottom).
// - support columns are carried down through the computed layers and the layers under an overhang, cut by each.
import type { Paths64 } from 'clipper2-ts';
import {
  and,
  area,
  emptyRegions,
  grow,
  type LayerRegions,
  minus,
  offset,
  opening,
  overhangOf,
  type RegionParams,
  type Surface,
  samePaths,
  unionAnd,
  unionMinus,
} from './layer-regions.ts';
import { addShellEdges, type LayerSample } from './layer-sample.ts';

/** The regions of a sample's layers: the computed ones, and any other layer once `computeLayer` has computed it. */
export interface SampledRegions {
  /** Zero on the layers not computed (layer-fill.ts fills them in). */
  regions: LayerRegions;
  /** Computes one more layer's regions and marks it computed (its support area stays filled in). */
  computeLayer(i: number): void;
}

/** The regions of the sample's computed layers; marks the edges of the shells of the cut surfaces that reach the
 *  infill area as computed. */
export function sampledRegions(sections: Paths64[], s: LayerSample, q: RegionParams): SampledRegions {
  const n = s.layers;
  const T = q.top_solid_layers;
  const B = q.bottom_solid_layers;
  const out = emptyRegions(n);
  const cores = infillAreas(sections, q);
  const open = q.external_width_mm / 10;
  // The cut surfaces that reach the infill area, by layer (the top of layer b − 1, the bottom of layer b): what
  // the next layer does not cover, opened by a tenth of a line, in the infill area and grown 3 mm into it. Most
  // never reach it: that is found first, without the opening's two offsets.
  const reaching = (j: number, neighbour: Paths64 | null, empty: Uint8Array, b: number): Surface | null => {
    const core = cores(j);
    if (neighbour !== null && minus(core, neighbour).length === 0) return null;
    const surface = neighbour === null ? sections[j]! : opening(minus(sections[j]!, neighbour), open);
    if (surface.length === 0) empty[b] = 1;
    const reached = grow(surface, core);
    return reached.inside.length === 0 ? null : reached;
  };
  const tops = new Map<number, Surface>();
  const bottoms = new Map<number, Surface>();
  for (let b = 0; b <= n; b++) {
    const top = s.topCut[b] ? reaching(b - 1, b < n ? sections[b]! : null, s.emptyTop, b) : null;
    if (top) {
      tops.set(b - 1, top);
      addShellEdges(s, b - 1, 'top');
    }
    const bottom = s.bottomCut[b] ? reaching(b, b > 0 ? sections[b - 1]! : null, s.emptyBottom, b) : null;
    if (bottom) {
      bottoms.set(b, bottom);
      addShellEdges(s, b, 'bottom');
    }
  }
  // Whether every surface layer i's shells carry is empty: the tops of layers i … i + T − 1 (bands i + 1 … i + T)
  // and the bottoms of layers i − B + 1 … i.
  const noShells = (i: number) => {
    for (let b = i + 1; b <= i + T; b++) if (!s.emptyTop[b]) return false;
    for (let b = i - B + 1; b <= i; b++) if (!s.emptyBottom[b]) return false;
    return true;
  };
  const computeLayer = (i: number) => {
    s.computed[i] = 1;
    const section = sections[i]!;
    const core = cores(i);
    out.section[i] = area(section);
    const coreArea = area(core);
    out.walls[i] = Math.max(0, out.section[i]! - coreArea);
    // Without top (bottom) layers the layer itself covers what the shells would.
    const above = T === 0 ? section : (sections[i + T] ?? []);
    const below = B === 0 ? section : i - B >= 0 ? sections[i - B]! : [];
    const thin = noShells(i) ? [] : thinShells(section, core, above, below);
    // The cut surfaces within reach, each already inside its own layer's infill area: cut to this one's.
    const grown: Paths64[] = [];
    for (let k = 0; k < T && i + k < n; k++) grown.push(tops.get(i + k)?.grown ?? []);
    for (let k = 0; k < B && i - k >= 0; k++) grown.push(bottoms.get(i - k)?.grown ?? []);
    const cut = grown.filter((p) => p.length > 0);
    const solid = cut.length === 0 ? thin : unionAnd([thin, ...cut], core);
    out.solid[i] = Math.min(coreArea, area(solid));
    out.top[i] = Math.min(out.solid[i]!, area(tops.get(i)?.inside ?? []));
    out.bridge[i] = i > 0 ? Math.min(out.solid[i]! - out.top[i]!, area(bottoms.get(i)?.inside ?? [])) : 0;
    out.sparse[i] = Math.max(0, coreArea - out.solid[i]!);
  };
  for (let i = 0; i < n; i++) if (s.computed[i]) computeLayer(i);
  if (q.overhang_step_mm !== null) sampledSupport(sections, s, q, out.support);
  return { regions: out, computeLayer };
}

/** The infill area of a layer, computed once, and reused for a layer whose section repeats the last one computed. */
function infillAreas(sections: Paths64[], q: RegionParams): (i: number) => Paths64 {
  const band = q.perimeters * q.spacing_mm;
  const cores = new Map<number, Paths64>();
  let last = -1;
  return (i) => {
    let core = cores.get(i);
    if (core) return core;
    core =
      last >= 0 && samePaths(sections[i]!, sections[last]!)
        ? cores.get(last)!
        : offset(offset(sections[i]!, -band - q.spacing_mm / 2), q.spacing_mm / 2);
    cores.set(i, core);
    last = i;
    return core;
  };
}

/** The part of the infill area that the layer T above and the layer B below do not both cover. */
function thinShells(section: Paths64, core: Paths64, above: Paths64, below: Paths64): Paths64 {
  const sameAbove = samePaths(above, section);
  const sameBelow = samePaths(below, section);
  if (sameAbove && sameBelow) return [];
  const covered = sameAbove ? below : sameBelow ? above : and(above, below);
  return minus(core, covered);
}

/** Support columns carried down through the layers the sample measures them on, cut by each of them. */
function sampledSupport(sections: Paths64[], s: LayerSample, q: RegionParams, support: Float64Array): void {
  let column: Paths64 = [];
  let cutBy: Paths64 | null = null;
  for (let m = s.layers - 2; m >= 0; m--) {
    if (!s.supported[m]) continue;
    const overhang = s.overhang[m + 1] ? overhangOf(sections[m + 1]!, sections[m]!, q) : [];
    // Nothing to carry, or a column already cut by the same section: left as it is.
    const idle = overhang.length === 0 && (column.length === 0 || (cutBy !== null && samePaths(cutBy, sections[m]!)));
    if (!idle) {
      column = unionMinus(column, overhang, offset(sections[m]!, q.support_gap_mm));
      cutBy = sections[m]!;
    }
    support[m] = area(column);
  }
}

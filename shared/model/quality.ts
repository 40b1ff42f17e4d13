// When is an open (non-watertight) mesh still quotable?
//
// The volume of a closed surface is well defined. For an open one the signed volume depends on
// the arbitrary apex o of the tetrahedra: V(o) = V(0) − (1/3)·o·A, where A = Σ triangle vector
// areas, which is zero for a closed surface and equals minus the vector area of the holes
// otherwise. Moving the apex anywhere inside the bounding box (diagonal d) changes the volume by
// up to |A|·d/3, so
//
//     openness = |A|·d / (3·|V|)
//
// is the relative uncertainty of the volume we would quote. Measured on the corpus:
//
//     broken/stl_open_box_not_watertight.stl (20 mm cube, top missing)  0.866
//     obj/suzanne.obj (open eye sockets)                                 0.141
//     obj/teapot.obj (open lid seam and spout)                           0.105
//
// We refuse above 0.35 (about the geometric mean of 0.14 and 0.87, leaving a factor of ~2.5
// on either side) with mesh_not_closed; below it the mesh is accepted with a warning that
// states the uncertainty.
import { fail } from './errors.ts';
import type { Measurements } from './measure.ts';
import { surfaceIntegrals } from './measure.ts';
import type { Mesh } from './mesh.ts';
import { type ModelWarning, modelWarning } from './warnings.ts';

export const MAX_OPENNESS = 0.35;

export function openness(mesh: Mesh, m: Measurements): number {
  const [ax, ay, az] = surfaceIntegrals(mesh).vectorArea;
  const diagonal = Math.hypot(m.bbox.size[0], m.bbox.size[1], m.bbox.size[2]);
  const uncertainty = (Math.hypot(ax, ay, az) * diagonal) / 3;
  return m.volume_mm3 > 0 ? uncertainty / m.volume_mm3 : Infinity;
}

/** Warnings about the mesh; throws mesh_not_closed when the volume is too ill-defined to quote. */
export function assessMesh(mesh: Mesh, m: Measurements, degenerate: number): ModelWarning[] {
  const warnings: ModelWarning[] = [];
  if (degenerate > 0) {
    const what = degenerate === 1 ? '1 degenerate triangle' : `${degenerate} degenerate triangles`;
    const message = `${what} (with two corners at the same point) ${degenerate === 1 ? 'was' : 'were'} removed.`;
    warnings.push(modelWarning('degenerate_triangles_removed', message, { count: degenerate }));
  }
  if (!m.watertight) {
    const open = openness(mesh, m);
    if (open > MAX_OPENNESS) {
      fail(
        'mesh_not_closed',
        `The mesh has holes too large to define its volume: depending on an arbitrary reference point the volume could change by ${formatPercent(open)} (more than ${formatPercent(MAX_OPENNESS)}). Close the holes and upload again.`,
        { openness: Number.isFinite(open) ? open : null, threshold: MAX_OPENNESS },
      );
    }
    const message =
      'The mesh is not watertight (some edges are not shared by exactly two consistently oriented triangles); ' +
      `its volume is approximate (uncertain by up to ${formatPercent(open)}).`;
    warnings.push(modelWarning('not_watertight', message, { openness: open }));
  }
  if (m.bodies > 1) {
    warnings.push(
      modelWarning('several_bodies', `The model consists of ${m.bodies} separate bodies.`, { count: m.bodies }),
    );
  }
  return warnings;
}

function formatPercent(x: number): string {
  if (!Number.isFinite(x)) return 'an unbounded amount';
  return `${(x * 100).toPrecision(2)} %`;
}

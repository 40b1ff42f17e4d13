// Printability: does the model fit a build volume (as uploaded, turned on the plate, or laid down — the same
// placement search quotes use), and what would a print shop want to be warned about before quoting it.

import type { UnitSuspectWarning } from '../placement/index.ts';
import {
  fileFactor,
  fittingTurn,
  placeFile,
  scaledMeasurements,
  unitWarning,
  type Volume,
} from '../placement/index.ts';
import type { FileRow } from './sql.ts';

export type BuildVolume = Volume;

export type Warning = { code: string; message: string } | UnitSuspectWarning;

export function checkPrintability(file: FileRow, volume: BuildVolume) {
  const m = scaledMeasurements(file);
  const size = m.bbox.size;
  const fitsAsIs = size[0] <= volume.x && size[1] <= volume.y && size[2] <= volume.z;
  const factor = fileFactor(file);
  const footprint = file.footprint.map(([x, y]) => [x * factor, y * factor] as [number, number]);
  const turn = size[2] <= volume.z ? fittingTurn(footprint, volume) : null;
  const placed = placeFile(file, volume);
  const warnings: Warning[] = [];
  if (!m.watertight)
    warnings.push({
      code: 'not_watertight',
      message:
        'The mesh has holes or non-manifold edges; the slicer will try to repair it, and the result may differ from the design.',
    });
  if (m.bodies > 1)
    warnings.push({
      code: 'several_bodies',
      message: `The file holds ${m.bodies} separate bodies; they will be printed together as one job.`,
    });
  const unit = unitWarning(file);
  if (unit) warnings.push(unit);
  if (!placed)
    warnings.push({
      code: 'does_not_fit',
      message: `The model (${size.map((v) => v.toFixed(1)).join(' × ')} mm) does not fit the ${volume.x} × ${volume.y} × ${volume.z} mm build volume in any orientation.`,
    });
  return {
    file_id: file.id,
    build_volume: volume,
    unit: file.unit,
    scale: file.scale,
    dimensions: { x: size[0], y: size[1], z: size[2] },
    bounding_box: m.bbox,
    volume_mm3: m.volume_mm3,
    surface_area_mm2: m.surface_area_mm2,
    triangles: m.triangles,
    watertight: m.watertight,
    bodies: m.bodies,
    fits: fitsAsIs,
    fits_rotated: { fits: fitsAsIs || turn !== null, angle_deg: fitsAsIs ? 0 : (turn?.deg ?? null) },
    placement: placed?.placement ?? null,
    warnings,
  };
}

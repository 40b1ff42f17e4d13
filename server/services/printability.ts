// Printability: does the model fit a build volume (as is, or after a rotation about Z), and what would a
// print shop want to be warned about before quoting it.
import type { FileRow } from '../db/queries/files.ts';
import { fitRotatedXY } from '../models/footprint.ts';

export interface BuildVolume {
  x: number;
  y: number;
  z: number;
}

export interface Warning {
  code: string;
  message: string;
  suggested_scale?: number;
}

const SMALL_MM = 5; // the largest dimension of a deliberate print is rarely below this
const UNIT_FACTORS = [
  { factor: 25.4, unit: 'inches' },
  { factor: 10, unit: 'centimetres' },
  { factor: 1000, unit: 'metres' },
];

function unitWarnings(size: number[], volume: BuildVolume): Warning[] {
  const largest = Math.max(...size);
  const plate = Math.max(volume.x, volume.y, volume.z);
  if (largest < SMALL_MM) {
    const fix = UNIT_FACTORS.find((u) => largest * u.factor >= 10 && largest * u.factor <= plate) ?? UNIT_FACTORS[0];
    return [{
      code: 'suspiciously_small',
      message: `The model is only ${largest.toPrecision(3)} mm across; it was likely exported in ${fix.unit}. Scaling by ${fix.factor} would make it ${(largest * fix.factor).toPrecision(4)} mm.`,
      suggested_scale: fix.factor,
    }];
  }
  if (largest > plate * 4) {
    const fix = UNIT_FACTORS.map((u) => ({ ...u, factor: 1 / u.factor })).find((u) => largest * u.factor <= plate) ?? { factor: 1 / 1000, unit: 'micrometres' };
    return [{
      code: 'suspiciously_large',
      message: `The model is ${Math.round(largest)} mm across, far beyond the ${plate} mm build volume; it may have been exported in a smaller unit. Scaling by ${+fix.factor.toPrecision(4)} would make it ${(largest * fix.factor).toPrecision(4)} mm.`,
      suggested_scale: +fix.factor.toPrecision(6),
    }];
  }
  return [];
}

export function checkPrintability(file: FileRow, volume: BuildVolume) {
  const m = file.measurements as Record<string, any>;
  const size: number[] = m.bbox.size;
  const fitsAsIs = size[0] <= volume.x && size[1] <= volume.y && size[2] <= volume.z;
  const rotated = size[2] <= volume.z ? fitRotatedXY(file.footprint, volume.x, volume.y) : { fits: false, angle_deg: null };
  const warnings: Warning[] = [];
  if (!m.watertight) warnings.push({ code: 'not_watertight', message: 'The mesh has holes or non-manifold edges; the slicer will try to repair it, and the result may differ from the design.' });
  if (m.bodies > 1) warnings.push({ code: 'several_bodies', message: `The file holds ${m.bodies} separate bodies; they will be printed together as one job.` });
  warnings.push(...unitWarnings(size, volume));
  if (!fitsAsIs && !rotated.fits) warnings.push({ code: 'does_not_fit', message: `The model (${size.map((v) => v.toFixed(1)).join(' × ')} mm) does not fit the ${volume.x} × ${volume.y} × ${volume.z} mm build volume.` });
  return {
    file_id: file.id,
    build_volume: volume,
    dimensions: { x: size[0], y: size[1], z: size[2] },
    bounding_box: m.bbox,
    volume_mm3: m.volume_mm3,
    surface_area_mm2: m.surface_area_mm2,
    triangles: m.triangles,
    watertight: m.watertight,
    bodies: m.bodies,
    fits: fitsAsIs,
    fits_rotated: { fits: fitsAsIs || rotated.fits, angle_deg: fitsAsIs ? 0 : rotated.angle_deg },
    warnings,
  };
}

// A slice's measure -> the print statistics a quote reports. Grams and filament length are arithmetic on the
// extruded volume, so a quote answered from a cached slice gets its material's density and diameter exactly.

import type { SliceStats } from '../../shared/print-stats.ts';
import type { ResolvedMaterial } from '../../shared/settings.ts';
import type { SliceMeasure } from './gcode-stats.ts';

export function printStats(m: SliceMeasure, material: Pick<ResolvedMaterial, 'density' | 'diameter'>): SliceStats {
  const volumeCm3 = m.extruded_volume_mm3 / 1000;
  const weight = volumeCm3 * material.density;
  const crossSection = Math.PI * (material.diameter / 2) ** 2;
  return {
    filament_length_mm: Math.round((m.extruded_volume_mm3 / crossSection) * 100) / 100,
    filament_volume_cm3: volumeCm3,
    filament_weight_g: weight,
    support_weight_g: weight * m.support_share,
    print_time_s: m.print_time_s,
    layers: m.layers,
    support_share: m.support_share,
    max_z_mm: m.max_z_mm,
  };
}

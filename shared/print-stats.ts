// The print statistics every quote reports: its slice's measure (volume, time, layers, support share) turned
// into grams and filament length with the quote's material (server/slicer/print-stats.ts).
export interface SliceStats {
  filament_length_mm: number;
  filament_volume_cm3: number;
  filament_weight_g: number;
  /** filament_weight_g × support_share. */
  support_weight_g: number;
  print_time_s: number;
  layers: number;
  /** Support extrusion over all extrusion, 0..1. */
  support_share: number;
  /** Highest layer Z: the printed height, for the build-volume check. */
  max_z_mm: number;
}

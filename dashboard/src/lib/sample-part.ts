// The sample part the Prices page prices as the merchant types: the 20 mm calibration cube of
// demo/models/calibration-cube.stl, from a real slice. PrusaSlicer 2.9.2 sliced it with the shipped global profiles
// (0.2 mm layers, 2 perimeters, 5 top and 4 bottom layers, 20 % rectilinear infill, no support), quoted through
// POST /v2/file/quote with PLA: print_stats.filament_volume_cm3 3.367899734760395 (1400.21 mm of 1.75 mm filament)
// and print_time_s 1067. The volume, not the grams, is kept: as on the server (server/slicer/print-stats.ts), each
// material weighs volume × its own density. test/e2e/dashboard-prices.e2e.test.ts quotes the cube again and checks
// that the page's figure is the quote's total.
import type { PrintStats } from '../../../shared/pricing.ts';

export const SAMPLE_PART = {
  name: '20 mm calibration cube',
  /** Extruded filament, cm³ (model only: the cube needs no support). */
  filamentCm3: 3.367899734760395,
  printTimeS: 1067,
} as const;

/** The cube's grams and seconds in a material of this density (g/cm³). */
export function sampleStats(density: number): PrintStats {
  return {
    filament_weight_g: SAMPLE_PART.filamentCm3 * density,
    support_weight_g: 0,
    print_time_s: SAMPLE_PART.printTimeS,
  };
}

// How calibration scopes, the history and the price list name the printer a quote was made for.
import type { Resolution } from '../profiles/index.ts';

/** The printer a quote was made for: its build volume and nozzle. */
export function printerLabel(p: Resolution['settings']['printer']): string {
  return `${p.bed_size_x}x${p.bed_size_y}x${p.bed_size_z} mm, ${p.nozzle_diameter} mm nozzle`;
}

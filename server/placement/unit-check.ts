// A model whose size suggests it was drawn in another unit (inches, centimetres, metres read as millimetres, or
// the reverse) gets a `unit_suspect` warning with the scale that would fix it (docs/placement.md).
import { MM_PER_UNIT, UNIT_NAMES, UNITS, type Unit } from './units.ts';

/** A deliberate print is rarely smaller than this across... */
export const SMALL_MM = 5;
/** ...or larger than this. */
export const LARGE_MM = 1000;
/** A suggestion must land the model in this range. */
const PLAUSIBLE_MM: [number, number] = [10, 1000];

export interface UnitSuspectWarning {
  code: 'unit_suspect';
  message: string;
  /** The model's largest dimension as it would be printed now, mm. */
  largest_mm: number;
  /** Multiply the current size by this. */
  suggested_scale: number;
  /** The unit the numbers were probably drawn in, when the fix is reading them in another unit. */
  suggested_unit?: Unit;
}

// Inches first: the usual mistake (CAD in inches, exported without a unit); then centimetres and metres.
const UP = [25.4, 10, 1000];
const DOWN = UP.map((f) => 1 / f);

const fmt = (mm: number) => `${+mm.toPrecision(3)} mm`;

export function unitSuspect(largestMm: number, unit: Unit): UnitSuspectWarning | null {
  const factors = largestMm < SMALL_MM ? UP : largestMm > LARGE_MM ? DOWN : null;
  if (!factors || !(largestMm > 0)) return null;
  const factor =
    factors.find((f) => largestMm * f >= PLAUSIBLE_MM[0] && largestMm * f <= PLAUSIBLE_MM[1]) ?? factors[0]!;
  const target = MM_PER_UNIT[unit] * factor;
  const suggestedUnit = UNITS.find((u) => Math.abs(MM_PER_UNIT[u] / target - 1) < 1e-9);
  const scaled = fmt(largestMm * factor);
  const scale = +factor.toPrecision(6);
  const why = largestMm < SMALL_MM ? `is only ${fmt(largestMm)} across` : `is ${fmt(largestMm)} across`;
  const fix = suggestedUnit
    ? `it was probably drawn in ${UNIT_NAMES[suggestedUnit]}; read in ${UNIT_NAMES[suggestedUnit]} (×${scale}) it is ${scaled}`
    : `scaled by ${scale} it would be ${scaled}`;
  return {
    code: 'unit_suspect',
    message: `The model ${why}: ${fix}.`,
    largest_mm: +largestMm.toPrecision(6),
    suggested_scale: scale,
    ...(suggestedUnit ? { suggested_unit: suggestedUnit } : {}),
  };
}

// Units a model's numbers can be read in, and the factor from a file's canonical mesh to printed millimetres.
// STL and OBJ carry no unit (millimetres are assumed unless one is stated); a 3MF states its own, which the parser
// has already applied to the canonical mesh (docs/placement.md).
import { canonicalMember } from '../../shared/enums.ts';

export const UNITS = ['mm', 'cm', 'm', 'in', 'ft', 'um'] as const;
export type Unit = (typeof UNITS)[number];

/** Where a file's unit came from: its own declaration (3MF), the uploader, or the default. */
export type UnitSource = 'file' | 'stated' | 'assumed';

export const MM_PER_UNIT: Record<Unit, number> = { mm: 1, cm: 10, m: 1000, in: 25.4, ft: 304.8, um: 0.001 };

export const UNIT_NAMES: Record<Unit, string> = {
  mm: 'millimetres',
  cm: 'centimetres',
  m: 'metres',
  in: 'inches',
  ft: 'feet',
  um: 'micrometres',
};

/** 3MF unit names (as the parser reports them) in our short form. */
const FROM_3MF: Record<string, Unit> = {
  millimeter: 'mm',
  centimeter: 'cm',
  meter: 'm',
  inch: 'in',
  foot: 'ft',
  micron: 'um',
};

/** A unit named in any letter case ("MM", "In"), in its canonical spelling; undefined if it names none. */
export const unitNamed = (value: unknown): Unit | undefined => canonicalMember(UNITS, value);

/** The unit the parser converted the canonical mesh from (millimetres for STL and OBJ). */
export function sourceUnit(parsedUnit: string | undefined): Unit {
  return FROM_3MF[parsedUnit ?? ''] ?? 'mm';
}

/** Canonical mesh → printed millimetres: read the numbers in `unit` instead of the source unit, then scale. */
export function meshFactor(unit: Unit, source: Unit, scale: number): number {
  return (MM_PER_UNIT[unit] / MM_PER_UNIT[source]) * scale;
}

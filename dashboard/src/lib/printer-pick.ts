// The "Your printer" picker's rules, apart from its view: printers grouped by model for the list, and a pick
// (vendor, printer, the ticked prints and filaments) kept to what the chosen printer is compatible with.
import type { LibraryPrinter } from './types.ts';

export interface PrinterPick {
  vendor: string;
  printer: string;
  prints: string[];
  filaments: string[];
}

/** The printers of one vendor by model, in the library's order: each model once, its nozzle variants under it. */
export function byModel(printers: LibraryPrinter[]): { model: string; printers: LibraryPrinter[] }[] {
  const groups = new Map<string, LibraryPrinter[]>();
  for (const printer of printers) groups.set(printer.model, [...(groups.get(printer.model) ?? []), printer]);
  return [...groups].map(([model, list]) => ({ model, printers: list }));
}

/** A new pick for a printer: what was ticked and is compatible with it stays ticked. */
export function pickFor(vendor: string, printer: LibraryPrinter, before: PrinterPick | null): PrinterPick {
  const keep = (ticked: string[] | undefined, offered: string[] | undefined) =>
    (ticked ?? []).filter((name) => (offered ?? []).includes(name));
  return {
    vendor,
    printer: printer.name,
    prints: keep(before?.prints, printer.prints),
    filaments: keep(before?.filaments, printer.filaments),
  };
}

/** Ticks or unticks one preset, keeping the library's order. */
export function toggle(pick: PrinterPick, kind: 'prints' | 'filaments', name: string, offered: string[]): PrinterPick {
  const ticked = new Set(pick[kind]);
  if (ticked.has(name)) ticked.delete(name);
  else ticked.add(name);
  return { ...pick, [kind]: offered.filter((n) => ticked.has(n)) };
}

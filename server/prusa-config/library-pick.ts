// A shop's pick from the printer library, checked name by name and flattened with each value's source.
import { ValidationError } from '../http/index.ts';
import type { PresetSet } from './config-set.ts';
import type { LoadedVendor } from './library.ts';

export interface LibraryPick {
  vendor: string;
  printer: string;
  prints: string[];
  filaments: string[];
}

/**
 * A shop's pick from the library, flattened with each value's source. Every name is checked: an unknown vendor,
 * printer, print or filament, or one not compatible with the printer, is a 400 naming the field.
 */
export function pickFromLibrary(
  vendors: ReadonlyMap<string, LoadedVendor>,
  pick: LibraryPick,
  prefix = 'library',
): PresetSet {
  const vendor = vendors.get(pick.vendor);
  if (!vendor) throw refuse(`${prefix}.vendor`, `no vendor "${pick.vendor}" in the printer library`);
  const printer = vendor.listing.printers.find((p) => p.name === pick.printer);
  if (!printer) throw refuse(`${prefix}.printer`, `${vendor.listing.name} has no printer "${pick.printer}"`);
  const check = (kind: 'prints' | 'filaments', names: string[]) =>
    names.forEach((name, i) => {
      const known = vendor.bundle.presets[kind === 'prints' ? 'print' : 'filament'].get(name);
      if (!known || known.abstract)
        throw refuse(`${prefix}.${kind}[${i}]`, `${vendor.listing.name} has no ${kind.slice(0, -1)} preset "${name}"`);
      if (!printer[kind].includes(name))
        throw refuse(`${prefix}.${kind}[${i}]`, `"${name}" is not compatible with the printer "${printer.name}"`);
    });
  check('prints', pick.prints);
  check('filaments', pick.filaments);
  const f = vendor.flattener;
  return {
    printer: f.flat('printer', printer.name),
    prints: pick.prints.map((name) => f.flat('print', name)),
    filaments: pick.filaments.map((name) => f.flat('filament', name)),
  };
}

const refuse = (field: string, message: string) => new ValidationError([{ field, message }]);

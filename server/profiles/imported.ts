// The shop's imported PrusaSlicer options for one quote (docs/profiles.md): those of the default printer
// profile, then the material's (a filament's options win over the printer's, as in PrusaSlicer), with the
// profile and preset each came from, and the settings whose options are written over them: those the request or
// the offer set, and those of a section whose profile imported nothing.
import type { ImportedOptions } from '../slicer/index.ts';
import type { ProfileRow } from './sql.ts';

const EXPLICIT = new Set(['request', 'offer']);

export function importedOptions(
  printer: ProfileRow | undefined,
  material: ProfileRow,
  sources: Record<string, string>,
): { options: ImportedOptions; sources: Record<string, string> } | null {
  const fromPrinter = printer?.slicer_options ?? null;
  const fromMaterial = material.slicer_options ?? null;
  if (!fromPrinter && !fromMaterial) return null;
  const options: Record<string, string> = {};
  const origin: Record<string, string> = {};
  for (const [row, opts] of [
    [printer, fromPrinter],
    [material, fromMaterial],
  ] as const) {
    if (!row || !opts) continue;
    for (const [key, value] of Object.entries(opts)) {
      options[key] = value;
      origin[key] = `profile:${row.id} (${row.slicer_sources?.[key] ?? row.name})`;
    }
  }
  const written = (field: string) => {
    if (EXPLICIT.has(sources[field] ?? '')) return true;
    // A section whose profile brought no options keeps the service's own mapping of its settings.
    return field.startsWith('printer_config.') ? !fromPrinter : !fromPrinter && !fromMaterial;
  };
  const explicit = Object.keys(sources).filter(written);
  return {
    options: { options, sources: origin, explicit },
    sources: Object.fromEntries(Object.entries(origin).map(([k, v]) => [`slicer.${k}`, v])),
  };
}

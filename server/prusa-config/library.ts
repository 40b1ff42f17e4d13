// The printer library: the vendor bundles shipped with PrusaSlicer as vendor → printer (one per nozzle variant) →
// the print and filament presets compatible with it, as PrusaSlicer's configuration wizard and its preset combos
// decide it. Pure: the caller reads the files (in a worker thread: the Prusa bundle is several MB).
import { type Bundle, Flattener, offered, readBundle } from './bundle.ts';
import { Compatibility } from './compatibility.ts';
import { VENDOR_INI_LIMITS } from './ini.ts';

export interface LibraryPrinter {
  /** The printer preset's name, as PrusaSlicer lists it. */
  name: string;
  /** The printer model's name from `[printer_model:ID]`. */
  model: string;
  model_id: string;
  nozzle_diameter: number;
  prints: string[];
  filaments: string[];
}

export interface LibraryVendor {
  /** The bundle's file name without `.ini`: PrusaResearch, Creality. */
  id: string;
  name: string;
  config_version: string;
  printers: LibraryPrinter[];
  /** Presets whose condition this reader cannot evaluate; they are listed with no printer. */
  unsupported_conditions: string[];
}

export interface LoadedVendor {
  bundle: Bundle;
  flattener: Flattener;
  listing: LibraryVendor;
}

/** Reads one vendor bundle and works out, for each of its FFF printers, the presets compatible with it. */
export function loadVendor(id: string, text: string): LoadedVendor | null {
  const bundle = readBundle(text, VENDOR_INI_LIMITS);
  if (!bundle.vendor) return null;
  const flattener = new Flattener(bundle);
  const judge = new Compatibility(flattener);
  // Sorted once: Prusa Research's 2.9 bundle has thousands of filaments and some 200 printers.
  const prints = byName(offered(bundle, 'print'));
  const filaments = byName(offered(bundle, 'filament'));
  const printers = printersOf(bundle, flattener).map((printer) => ({
    ...printer,
    prints: judge.compatibleOf('print', prints, printer.name),
    filaments: judge.compatibleOf('filament', filaments, printer.name),
  }));
  const listing: LibraryVendor = {
    id,
    name: bundle.vendor.name || id,
    config_version: bundle.vendor.configVersion,
    printers,
    unsupported_conditions: [...judge.unsupported].sort(),
  };
  return { bundle, flattener, listing };
}

/** Names sorted as PrusaSlicer's lists show them: alphabetically, numbers by value. */
const byName = (presets: { name: string }[]): string[] =>
  presets.map((p) => p.name).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));

/**
 * The printers PrusaSlicer installs from a vendor bundle: a printer_model and printer_variant that the `[vendor]`
 * lists, FFF only (SLA printers are not quoted here). In the models' order, then their variants' order.
 */
function printersOf(bundle: Bundle, flattener: Flattener) {
  const found = offered(bundle, 'printer').flatMap((preset) => {
    const modelId = flattener.option('printer', preset.name, 'printer_model') ?? '';
    const variant = flattener.option('printer', preset.name, 'printer_variant') ?? '';
    const modelIndex = bundle.models.findIndex((m) => m.id === modelId);
    const model = bundle.models[modelIndex];
    if (model?.technology !== 'FFF' || !model.variants.includes(variant)) return [];
    // A printer without nozzle_diameter has PrusaSlicer's default, 0.4 mm.
    const nozzle = Number((flattener.option('printer', preset.name, 'nozzle_diameter') ?? '0.4').split(',')[0]);
    return [
      {
        order: modelIndex * 1000 + model.variants.indexOf(variant),
        printer: {
          name: preset.name,
          model: model.name,
          model_id: model.id,
          nozzle_diameter: nozzle > 0 ? nozzle : Number(variant) || 0.4,
        },
      },
    ];
  });
  return found.sort((a, b) => a.order - b.order).map((f) => f.printer);
}

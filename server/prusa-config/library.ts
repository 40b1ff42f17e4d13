// The printer library: the vendor bundles shipped with PrusaSlicer as vendor → printer (one per nozzle variant) →
// the print and filament presets compatible with it, as PrusaSlicer's configuration wizard and its preset combos
// decide it. Pure: the caller reads the files (in a worker thread: the Prusa bundle is several MB).
import { ValidationError } from '../http/index.ts';
import { type Bundle, Flattener, type PresetKind, offered, readBundle } from './bundle.ts';
import type { PresetSet } from './config-set.ts';
import { ConditionError, type Node, evaluateCondition, parseCondition } from './conditions.ts';
import { VENDOR_INI_LIMITS, splitStrings } from './ini.ts';

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

/**
 * PrusaSlicer's compatibility of a print or filament with a printer: a non-empty `compatible_printers` list names
 * it; else a non-empty `compatible_printers_condition` holds for the printer's options (and `num_extruders`);
 * else it suits every printer. A condition this reader cannot evaluate counts as incompatible and is remembered.
 */
interface Rule {
  listed: Set<string> | null;
  condition: string;
}

class Compatibility {
  readonly unsupported = new Set<string>();
  /** Per preset: the printers it names, or its condition's text. */
  private readonly rules = new Map<string, Rule>();
  /** The rules of a list of names, worked out once for all the printers. */
  private readonly ruleLists = new WeakMap<string[], Rule[]>();
  private readonly conditions = new Map<string, Node | null | ConditionError>();
  /** Per printer and condition text: the verdict, null when it cannot be judged. Presets share conditions. */
  private readonly verdicts = new Map<string, Map<string, boolean | null>>();

  constructor(private readonly flattener: Flattener) {}

  /** The presets of `names` compatible with the printer, in their order. */
  compatibleOf(kind: PresetKind, names: string[], printer: string): string[] {
    let rules = this.ruleLists.get(names);
    if (!rules) {
      rules = names.map((name) => this.ruleOf(kind, name));
      this.ruleLists.set(names, rules);
    }
    let verdicts = this.verdicts.get(printer);
    if (!verdicts) {
      verdicts = new Map();
      this.verdicts.set(printer, verdicts);
    }
    return names.filter((name, i) => {
      const rule = rules[i]!;
      if (rule.listed) return rule.listed.has(printer);
      let verdict = verdicts.get(rule.condition);
      if (verdict === undefined) {
        verdict = this.evaluate(rule.condition, printer);
        verdicts.set(rule.condition, verdict);
      }
      if (verdict === null) this.unsupported.add(`${kind}:${name}`);
      return verdict === true;
    });
  }

  private ruleOf(kind: PresetKind, preset: string) {
    const key = `${kind}:${preset}`;
    let rule = this.rules.get(key);
    if (!rule) {
      const listed = splitStrings(this.flattener.option(kind, preset, 'compatible_printers') ?? '') ?? [];
      const condition = this.flattener.option(kind, preset, 'compatible_printers_condition') ?? '';
      rule = { listed: listed.length > 0 ? new Set(listed) : null, condition };
      this.rules.set(key, rule);
    }
    return rule;
  }

  private evaluate(condition: string, printer: string): boolean | null {
    const node = this.parsed(condition);
    if (node === null) return true;
    if (node instanceof ConditionError) return null;
    try {
      return evaluateCondition(node, this.optionsOf(printer));
    } catch (err) {
      if (!(err instanceof ConditionError)) throw err;
      return null;
    }
  }

  private parsed(text: string): Node | null | ConditionError {
    let node = this.conditions.get(text);
    if (node === undefined) {
      try {
        node = parseCondition(text);
      } catch (err) {
        if (!(err instanceof ConditionError)) throw err;
        node = err;
      }
      this.conditions.set(text, node);
    }
    return node;
  }

  private readonly printerOptions = new Map<string, Record<string, string>>();

  private optionsOf(printer: string): Record<string, string> {
    let options = this.printerOptions.get(printer);
    if (!options) {
      options = { ...this.flattener.flat('printer', printer).options };
      // PrusaSlicer adds the extruder count, read from the nozzle list, for the conditions.
      options.num_extruders ??= String((options.nozzle_diameter ?? '0.4').split(',').length);
      this.printerOptions.set(printer, options);
    }
    return options;
  }
}

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

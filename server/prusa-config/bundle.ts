// A PrusaSlicer config bundle as presets: the vendor's `[vendor]` and `[printer_model:ID]` sections, and
// `[print:…]`, `[filament:…]`, `[printer:…]` presets whose `inherits` is applied as PrusaSlicer applies it.
// PrusaSlicer's rule: a preset keeps its own values; then its parents, each already resolved, fill in only the keys
// still missing, the last parent first, so with `inherits = a; b` a key both define comes from b. Abstract
// presets (`*name*`) exist only to be inherited. Loops, unknown parents, over-deep chains and over-large results
// are BundleErrors (400) naming the preset, never a hang or a blown heap.
import { BundleError } from './bundle-errors.ts';
import type { FlatPreset, PresetSet } from './config-set.ts';
import { type IniLimits, parseIni, splitStrings, USER_INI_LIMITS } from './ini.ts';
import type { ImportNote, ReadConfig } from './notes.ts';

export type PresetKind = 'print' | 'filament' | 'printer';
export const PRESET_KINDS: readonly PresetKind[] = ['print', 'filament', 'printer'];

export interface RawPreset {
  kind: PresetKind;
  name: string;
  /** `*name*`: only a parent of other presets, never offered. */
  abstract: boolean;
  own: Map<string, string>;
  inherits: string[];
}

export interface PrinterModel {
  id: string;
  name: string;
  variants: string[];
  technology: string;
  family: string;
}

export interface Bundle {
  vendor: { name: string; configVersion: string } | null;
  models: PrinterModel[];
  presets: Record<PresetKind, Map<string, RawPreset>>;
  /** A user's bundle's `[presets]` section: the presets that were selected when it was exported. */
  selected: { print: string | null; printer: string | null; filaments: string[] };
}

/** Inherits chains longer than this are refused: PrusaSlicer's own bundles go about six deep. */
const MAX_DEPTH = 64;
/** The most option values flattening may produce for one bundle (each preset holds its inherited keys too). */
const DEFAULT_MAX_FLAT_VALUES = 1_000_000;

/** Reads the sections of a bundle into presets and the vendor's printer models; nothing is resolved yet. */
export function readBundle(text: string, limits: IniLimits = USER_INI_LIMITS): Bundle {
  const bundle: Bundle = {
    vendor: null,
    models: [],
    presets: { print: new Map(), filament: new Map(), printer: new Map() },
    selected: { print: null, printer: null, filaments: [] },
  };
  for (const section of parseIni(text, limits)) {
    const colon = section.header.indexOf(':');
    const kind = colon === -1 ? section.header : section.header.slice(0, colon);
    const name = colon === -1 ? '' : section.header.slice(colon + 1);
    if (kind === 'vendor') bundle.vendor = vendorOf(section.entries);
    else if (kind === 'printer_model' && name) bundle.models.push(modelOf(name, section.entries));
    else if (kind === 'presets') bundle.selected = selectedOf(section.entries);
    else if ((PRESET_KINDS as readonly string[]).includes(kind) && name)
      bundle.presets[kind as PresetKind].set(name, presetOf(kind as PresetKind, name, section.entries));
  }
  return bundle;
}

function vendorOf(entries: Map<string, string>) {
  return { name: entries.get('name') ?? '', configVersion: entries.get('config_version') ?? '' };
}

function modelOf(id: string, entries: Map<string, string>): PrinterModel {
  return {
    id,
    name: entries.get('name') ?? id,
    variants: splitStrings(entries.get('variants') ?? '') ?? [],
    // PrusaSlicer takes a model without `technology` for an FFF printer.
    technology: entries.get('technology') || 'FFF',
    family: entries.get('family') ?? '',
  };
}

function selectedOf(entries: Map<string, string>): Bundle['selected'] {
  const filaments = [...entries]
    .filter(([key]) => /^filament(_\d+)?$/.test(key))
    .map(([, value]) => value)
    .filter((value) => value !== '');
  return { print: entries.get('print') || null, printer: entries.get('printer') || null, filaments };
}

function presetOf(kind: PresetKind, name: string, entries: Map<string, string>): RawPreset {
  const own = new Map(entries);
  const inheritsText = own.get('inherits') ?? '';
  own.delete('inherits');
  const inherits = splitStrings(inheritsText);
  if (inherits === null)
    throw new BundleError('bundle_malformed', `Preset [${kind}:${name}] has an unreadable inherits list.`, {
      section: `${kind}:${name}`,
      key: 'inherits',
    });
  return { kind, name, abstract: name.length > 1 && name.startsWith('*') && name.endsWith('*'), own, inherits };
}

interface Flat {
  options: Map<string, string>;
  sources: Map<string, string>;
}

/**
 * Resolves the presets of one bundle. `check` walks a preset's chain once (loops, unknown parents, depth);
 * `option` answers one resolved key without building the preset (the library asks a few keys of thousands of
 * presets); `flat` builds the whole preset, each once, a resolved parent shared by all its children.
 */
export class Flattener {
  private readonly done: Record<PresetKind, Map<string, Flat>> = {
    print: new Map(),
    filament: new Map(),
    printer: new Map(),
  };
  private readonly checked = new Set<string>();
  private readonly active = new Set<string>();
  /** Resolved values of the keys `option` was asked, per preset: bounded by keys asked × presets. */
  private readonly lookups = new Map<string, Map<string, string | undefined>>();
  private values = 0;

  constructor(
    readonly bundle: Bundle,
    private readonly maxValues = DEFAULT_MAX_FLAT_VALUES,
  ) {}

  /** Throws BundleError when the preset, or a preset in its inherits chain, is missing, loops or is too deep. */
  check(kind: PresetKind, name: string, chain: string[] = [], depth = 0): void {
    const key = `${kind}:${name}`;
    if (this.checked.has(key)) return;
    const preset = this.bundle.presets[kind].get(name);
    if (!preset) throw unknownPreset(kind, name, chain);
    if (this.active.has(key)) throw inheritsLoop(kind, [...chain, name]);
    if (depth >= MAX_DEPTH)
      throw new BundleError('bundle_too_deep', `Preset [${key}] inherits through more than ${MAX_DEPTH} levels.`, {
        preset: name,
        kind,
      });
    this.active.add(key);
    try {
      for (const parent of preset.inherits) this.check(kind, parent, [...chain, name], depth + 1);
    } finally {
      this.active.delete(key);
    }
    this.checked.add(key);
  }

  /** The preset with its inherits chain applied; throws BundleError naming it when it cannot be. */
  flat(kind: PresetKind, name: string): FlatPreset {
    this.check(kind, name);
    const { options, sources } = this.resolve(kind, name);
    return { name, options: Object.fromEntries(options), sources: Object.fromEntries(sources) };
  }

  /** One option of the resolved preset, without building it. */
  option(kind: PresetKind, name: string, key: string): string | undefined {
    this.check(kind, name);
    let cache = this.lookups.get(key);
    if (!cache) {
      cache = new Map();
      this.lookups.set(key, cache);
    }
    return this.lookup(kind, name, key, cache);
  }

  /** Own value, else the parents' from the last to the first: PrusaSlicer's order. Called on checked chains. */
  private lookup(kind: PresetKind, name: string, key: string, cache: Map<string, string | undefined>) {
    const id = `${kind}:${name}`;
    if (cache.has(id)) return cache.get(id);
    const preset = this.bundle.presets[kind].get(name)!;
    let value = preset.own.get(key);
    for (let i = preset.inherits.length - 1; value === undefined && i >= 0; i--)
      value = this.lookup(kind, preset.inherits[i]!, key, cache);
    cache.set(id, value);
    return value;
  }

  /** Called on checked chains only, so it neither loops nor runs deep. */
  private resolve(kind: PresetKind, name: string): Flat {
    const cached = this.done[kind].get(name);
    if (cached) return cached;
    const flat = this.merge(this.bundle.presets[kind].get(name)!);
    this.done[kind].set(name, flat);
    return flat;
  }

  private merge(preset: RawPreset): Flat {
    const options = new Map(preset.own);
    const sources = new Map([...preset.own.keys()].map((key) => [key, preset.name]));
    for (let i = preset.inherits.length - 1; i >= 0; i--) {
      const parent = this.resolve(preset.kind, preset.inherits[i]!);
      for (const [key, value] of parent.options) {
        if (options.has(key)) continue;
        options.set(key, value);
        sources.set(key, parent.sources.get(key)!);
      }
    }
    this.values += options.size;
    if (this.values > this.maxValues)
      throw new BundleError(
        'bundle_too_large',
        `Resolving the bundle's inherits yields more than ${this.maxValues} option values.`,
        { preset: preset.name, kind: preset.kind, max_values: this.maxValues },
      );
    return { options, sources };
  }
}

function unknownPreset(kind: PresetKind, name: string, chain: string[]): BundleError {
  const child = chain[chain.length - 1];
  return new BundleError(
    'bundle_unknown_parent',
    child
      ? `Preset [${kind}:${child}] inherits "${name}", which the bundle does not define.`
      : `The bundle has no ${kind} preset "${name}".`,
    { kind, preset: child ?? name, parent: name },
  );
}

function inheritsLoop(kind: PresetKind, chain: string[]): BundleError {
  const start = chain.indexOf(chain[chain.length - 1]!);
  const loop = chain.slice(start);
  return new BundleError(
    'bundle_inherits_loop',
    `Preset [${kind}:${loop[0]}] inherits itself: ${loop.map((n) => `"${n}"`).join(' → ')}.`,
    { kind, preset: loop[0], loop },
  );
}

/** The presets a bundle offers (not abstract), in file order. */
export const offered = (bundle: Bundle, kind: PresetKind): RawPreset[] =>
  [...bundle.presets[kind].values()].filter((preset) => !preset.abstract);

/**
 * A user's config bundle (PrusaSlicer's File → Export → Config Bundle) as a PresetSet: every print and filament
 * it offers, and its printer: the one selected at export (`[presets] printer`), else its only printer.
 */
export function resolveBundle(text: string, limits: IniLimits = USER_INI_LIMITS): PresetSet {
  return resolveRead(readBundle(text, limits));
}

/**
 * A config bundle a shop exported: its presets name the system presets they were made from (`inherits`), which
 * the bundle does not carry, but PrusaSlicer saves every option of a user preset, so its own values stand. Such a
 * parent is dropped and listed; a parent the bundle does define is applied, and loops are still refused.
 */
export function readUserBundle(text: string): ReadConfig {
  const bundle = readBundle(text, USER_INI_LIMITS);
  const ignored: ImportNote[] = [];
  for (const kind of PRESET_KINDS)
    for (const preset of bundle.presets[kind].values()) {
      const missing = preset.inherits.filter((parent) => !bundle.presets[kind].has(parent));
      if (!missing.length) continue;
      preset.inherits = preset.inherits.filter((parent) => bundle.presets[kind].has(parent));
      for (const parent of missing)
        ignored.push({
          key: 'inherits',
          reason: `[${kind}:${preset.name}] inherits "${parent}", which the bundle does not carry (a system preset): the preset's own saved values are used`,
        });
    }
  return { set: resolveRead(bundle), ignored };
}

function resolveRead(bundle: Bundle): PresetSet {
  const flattener = new Flattener(bundle);
  // Every preset is resolved, so a loop or a missing parent anywhere is reported, not only on the ones returned.
  for (const kind of PRESET_KINDS) for (const name of bundle.presets[kind].keys()) flattener.check(kind, name);
  const printers = offered(bundle, 'printer');
  const printerName =
    bundle.selected.printer && bundle.presets.printer.has(bundle.selected.printer)
      ? bundle.selected.printer
      : printers.length === 1
        ? printers[0]!.name
        : null;
  return {
    printer: printerName ? flattener.flat('printer', printerName) : null,
    prints: offered(bundle, 'print').map((p) => flattener.flat('print', p.name)),
    filaments: offered(bundle, 'filament').map((p) => flattener.flat('filament', p.name)),
  };
}

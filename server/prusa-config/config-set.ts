// What a shop brings from its slicer, flattened: a printer, the print presets it offers and its filaments.
// Every reader of PrusaSlicer configs (a flat export, a bundle, a project 3MF, a vendor library pick, an Orca or
// Bambu preset) produces this; the import checks it against the allowlist and stores it as the shop's profiles.

/** One PrusaSlicer preset with its `inherits` chain applied: every option by its PrusaSlicer name, as text. */
export interface FlatPreset {
  name: string;
  options: Record<string, string>;
  /** The preset (in the inherits chain, or the file) each option's value came from. */
  sources: Record<string, string>;
}

export interface PresetSet {
  printer: FlatPreset | null;
  prints: FlatPreset[];
  filaments: FlatPreset[];
}

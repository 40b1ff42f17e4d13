// The custom G-code blocks an import keeps or leaves out (docs/profiles.md, "Custom G-code"), by PrusaSlicer's
// option names, with the names PrusaSlicer's own settings pages give them.
const BLOCK_NAMES: Record<string, string> = {
  start_gcode: 'Start G-code',
  end_gcode: 'End G-code',
  before_layer_gcode: 'Before layer change G-code',
  layer_gcode: 'After layer change G-code',
  toolchange_gcode: 'Tool change G-code',
  between_objects_gcode: 'Between objects G-code',
  color_change_gcode: 'Color change G-code',
  pause_print_gcode: 'Pause print G-code',
  template_custom_gcode: 'Template custom G-code',
  start_filament_gcode: 'Start filament G-code',
  end_filament_gcode: 'End filament G-code',
};

/** "Start G-code", or the option name itself for a block this list does not know. */
export const blockName = (key: string): string => BLOCK_NAMES[key] ?? key;

/** The custom G-code blocks among an import's notes (those it left out). */
export const gcodeBlocks = (notes: { key: string }[]): string[] =>
  notes.map((n) => n.key).filter((key) => key in BLOCK_NAMES);

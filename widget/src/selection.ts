// The shopper's choices: sensible starting values from the merchant's configuration, and the
// labels the selectors show.
import type { Selection, WidgetConfig, WidgetMaterial } from './types.ts';

const STANDARD_LAYER_MM = 0.2;
const STANDARD_INFILL = 20;

export function initialSelection(config: WidgetConfig, preferred?: string | null): Selection {
  const material = findMaterial(config, preferred) ?? findMaterial(config, config.default_material) ?? config.materials[0];
  return {
    material: material?.name ?? config.default_material,
    color: material?.colors[0] ?? '',
    layerHeight: closest(config.layer_heights, config.default_layer_height ?? STANDARD_LAYER_MM),
    infill: closest(config.infill_options, config.default_infill ?? STANDARD_INFILL),
    quantity: 1,
  };
}

/** Case-insensitive, since a merchant types the `material` attribute by hand. */
export function findMaterial(config: WidgetConfig, name?: string | null): WidgetMaterial | undefined {
  if (!name) return undefined;
  const wanted = name.toLowerCase();
  return config.materials.find((m) => m.name.toLowerCase() === wanted);
}

/** A new material keeps the colour when it is offered in it, else takes the material's first. */
export function withMaterial(config: WidgetConfig, sel: Selection, name: string): Selection {
  const colors = findMaterial(config, name)?.colors ?? [];
  return { ...sel, material: name, color: colors.includes(sel.color) ? sel.color : (colors[0] ?? '') };
}

export function qualityLabel(layerHeight: number, all: number[]): string {
  const mm = `${layerHeight} mm`;
  if (all.length < 2) return mm;
  const sorted = [...all].sort((a, b) => a - b);
  if (layerHeight === sorted[0]) return `Fine ${mm}`;
  if (layerHeight === sorted[sorted.length - 1]) return `Draft ${mm}`;
  return layerHeight === closest(all, STANDARD_LAYER_MM) ? `Standard ${mm}` : mm;
}

function closest(values: number[], target: number): number {
  return values.reduce((best, v) => (Math.abs(v - target) < Math.abs(best - target) ? v : best), values[0] ?? target);
}

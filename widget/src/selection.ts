// The shopper's choices: the offer's defaults to start with, and what changing the material does to the colour.
import { priceLine } from '../../shared/line-price.ts';
import { currencyDigits } from '../../shared/pricing.ts';
import type { Quote, Selection, WidgetConfig, WidgetMaterial, WidgetQuality } from './types.ts';

export function initialSelection(config: WidgetConfig, preferred?: string | null): Selection {
  const material =
    findMaterial(config, preferred) ?? findMaterial(config, config.default_material) ?? config.materials[0];
  return {
    material: material?.name ?? config.default_material,
    color: material?.colors[0] ?? '',
    quality: config.default_quality,
    infill: config.default_infill,
    quantity: config.quantity.min,
    lead_time: config.default_lead_time ?? '',
  };
}

/** Case-insensitive, since a merchant types the `material` attribute by hand. */
export function findMaterial(config: WidgetConfig | undefined, name?: string | null): WidgetMaterial | undefined {
  if (!name || !config) return undefined;
  const wanted = name.toLowerCase();
  return config.materials.find((m) => m.name.toLowerCase() === wanted);
}

export function findQuality(config: WidgetConfig, id: string): WidgetQuality | undefined {
  return config.qualities.find((q) => q.id === id);
}

/**
 * How a colour is drawn: the offer's swatch for it (#rrggbb), else its name (a CSS colour such as "Red" draws as
 * itself; a name that is no CSS colour, like "Galaxy Purple" without a swatch, falls back to the preview's own).
 */
export function swatchOf(config: WidgetConfig | null, sel: Pick<Selection, 'material' | 'color'> | null): string {
  if (!sel?.color) return '';
  return findMaterial(config ?? undefined, sel.material)?.swatches?.[sel.color] ?? sel.color;
}

/** A new material keeps the colour when it is offered in it, else takes the material's first. */
export function withMaterial(config: WidgetConfig, sel: Selection, name: string): Selection {
  const colors = findMaterial(config, name)?.colors ?? [];
  return { ...sel, material: name, color: colors.includes(sel.color) ? sel.color : (colors[0] ?? '') };
}

/** The quantity typed, kept within the shop's range (the dashboard's offer preview). */
export function clampQuantity(config: WidgetConfig, raw: string): number {
  const { min, max } = config.quantity;
  return Math.min(max, Math.max(min, Math.round(Number(raw)) || min));
}

/** The quantity the shopper typed, or what is wrong with it: a whole number within the shop's range. */
export function checkQuantity(config: WidgetConfig, raw: string): { quantity: number } | { error: string } {
  const { min, max } = config.quantity;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    return {
      error:
        min === max ? `This shop sells exactly ${min} of each part.` : `Enter a whole number from ${min} to ${max}.`,
    };
  }
  return { quantity: n };
}

/** What a line is priced from: the quote's unit price, floor and lead time. */
export type PricedQuote = Pick<Quote, 'total_price' | 'currency'> & {
  choices?: Quote['choices'];
  minimum_unit_price?: Quote['minimum_unit_price'];
  price_breakdown?: Pick<NonNullable<Quote['price_breakdown']>, 'minimum_unit_price'>;
};

/** The part's minimum price (a break stops there); quotes stored before it was a field of its own hold it in the breakdown. */
export const minimumUnitPrice = (q: PricedQuote): number | null =>
  q.minimum_unit_price ?? q.price_breakdown?.minimum_unit_price ?? null;

/**
 * What the line costs, exactly as the cart prices it (shared/line-price.ts): unit price × quantity, less the offer's
 * quantity break down to the minimum price per part at most, plus the quote's lead-time surcharge, raised to the
 * shop's minimum line price.
 */
export function quoteLine(
  q: PricedQuote,
  quantity: number,
  config: Pick<WidgetConfig, 'minimum_line_price' | 'quantity_breaks'> | null,
) {
  const terms = {
    quantity_breaks: config?.quantity_breaks ?? [],
    lead_time: q.choices?.lead_time ?? null,
    minimum_line_price: config?.minimum_line_price ?? null,
    minimum_unit_price: minimumUnitPrice(q),
  };
  return priceLine(q.total_price, quantity, terms, currencyDigits(q.currency));
}

export function lineTotal(
  q: PricedQuote,
  quantity: number,
  config: Pick<WidgetConfig, 'minimum_line_price' | 'quantity_breaks'> | null,
): number {
  return quoteLine(q, quantity, config).total;
}

/** Whether the part is priced at the shop's minimum: said by the breakdown, or by the shopper's part of it. */
export function atMinimumPrice(b: Quote['price_breakdown']): boolean {
  if (!b) return false;
  return 'minimum_price_applied' in b ? b.minimum_price_applied : b.minimum_price_adjustment > 0;
}

// Settings written in either of two units (docs/pricing.md, "One setting in two units"). Its own module, free of
// the settings catalogue, so the price formula (also bundled in the widget) can read a pair without it.
import type { SettingSection } from './settings.ts';

/**
 * One setting that may be written in either of two units. Resolution treats the pair as one field: the
 * highest-priority source setting either name wins, and both names report its value. Within one object (a
 * request section or a profile) both may appear only if equal; a stored object where they differ resolves to
 * names[0], as it always priced.
 */
export interface SettingAlias {
  readonly section: SettingSection;
  readonly names: readonly [string, string];
  /** A value of names[1] in the unit of names[0]. */
  readonly toFirst: (v: number) => number;
  /** A value of names[0] in the unit of names[1]. */
  readonly fromFirst: (v: number) => number;
}

/** Unit conversions keep 15 significant digits, so 12.3 per kg is 0.0123 per gram and back to 12.3. */
const tidy = (v: number) => Number(v.toPrecision(15));

export const SETTING_ALIASES: readonly SettingAlias[] = [
  {
    section: 'material_config',
    names: ['price_per_gram', 'price_per_kg'],
    toFirst: (kg) => tidy(kg / 1000),
    fromFirst: (g) => tidy(g * 1000),
  },
];

export function aliasOf(section: SettingSection, name: string): SettingAlias | undefined {
  return SETTING_ALIASES.find((a) => a.section === section && a.names.includes(name));
}

/** The pair's value in one object, in the unit of `name` (names[0] first); undefined when it sets neither. */
export function aliasValue(alias: SettingAlias, values: Record<string, unknown> | undefined, name: string) {
  const [first, second] = alias.names;
  const a = values?.[first],
    b = values?.[second];
  if (typeof a === 'number') return name === first ? a : alias.fromFirst(a);
  if (typeof b === 'number') return name === second ? b : alias.toFirst(b);
  return undefined;
}

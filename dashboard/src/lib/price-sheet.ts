// The Prices page's model: the money fields that already exist in the profiles (each material's price per kg; the
// machine's hourly cost; the global settings' energy cost, fee, minimum price per part and tax), as the merchant
// types them, checked with the catalogue's own rules (shared/settings.ts), and what one sample part then costs a
// shopper, computed by the one price formula (computePrice, shared/pricing.ts) over settings resolved as the
// server resolves them (server/profiles/resolve.ts).

import { aliasOf, aliasValue } from '../../../shared/aliases.ts';
import { DEFAULT_MINIMUM_PRICE } from '../../../shared/offer.ts';
import { computePrice, type PriceBreakdown } from '../../../shared/pricing.ts';
import {
  DEFAULT_SETTINGS,
  getSetting,
  type ResolvedSettings,
  validateConfigSection,
} from '../../../shared/settings.ts';
import { numberOrText } from './profile-rules.ts';
import { printerBaseline } from './profiles.ts';
import { sampleStats } from './sample-part.ts';
import type { Profile } from './types.ts';

export interface PriceData {
  currency: string;
  materials: Profile[];
  printers: Profile[];
  globals: Profile[];
  /** The materials shoppers can choose (the account's offer and each widget key's own), by profile name. */
  offered: string[];
  /** The minimum price per part of the account's saved offer; null: none of its own (the profiles' applies). */
  offerMinimum: number | null;
  /** The account's offer is the default one, derived from the profiles (no offer saved). */
  derivedOffer: boolean;
}

export type ShopFieldName = 'hourly_cost' | 'energy_cost_per_kwh' | 'fixed_fee' | 'minimum_price' | 'tax_rate';

/** The shop-wide money fields, in merchant words; each is a setting of the catalogue. */
export const SHOP_FIELDS: { name: ShopFieldName; section: 'printer_config' | 'quote_config'; label: string }[] = [
  { name: 'hourly_cost', section: 'printer_config', label: 'Machine time per hour' },
  { name: 'energy_cost_per_kwh', section: 'quote_config', label: 'Electricity per kWh' },
  { name: 'fixed_fee', section: 'quote_config', label: 'Handling fee per part' },
  { name: 'minimum_price', section: 'quote_config', label: 'Minimum price per part' },
  { name: 'tax_rate', section: 'quote_config', label: 'Tax added' },
];

/** The form as typed: a price per kg by material name, and the shop-wide fields. */
export interface PriceForm {
  prices: Record<string, string>;
  shop: Record<ShopFieldName, string>;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const own = (list: Profile[], name: string) => list.find((p) => p.scope === 'account' && same(p.name, name));
const shipped = (list: Profile[], name: string) => list.find((p) => p.scope === 'global' && same(p.name, name));
const defaultOf = (list: Profile[], scope: Profile['scope']) => list.find((p) => p.scope === scope && p.is_default);
const PRICE = aliasOf('material_config', 'price_per_kg')!;
const perKg = (p: Profile | undefined) => aliasValue(PRICE, p?.settings, 'price_per_kg') as number | undefined;

/** A material's price per kg as quotes take it: the account's own profile's, else the shipped one of its name. */
export function materialPrice(d: PriceData, name: string): { value: number | undefined; ownPrice: boolean } {
  const mine = perKg(own(d.materials, name));
  return mine !== undefined
    ? { value: mine, ownPrice: true }
    : { value: perKg(shipped(d.materials, name)), ownPrice: false };
}

/** The quote settings every part starts from: built-ins, the shipped global settings, yours, field by field. */
function quoteBaseline(d: PriceData): ResolvedSettings['quote'] {
  const quote = (p: Profile | undefined) =>
    Object.fromEntries(Object.entries(p?.settings ?? {}).filter(([k]) => getSetting('quote_config', k)));
  return {
    ...DEFAULT_SETTINGS.quote,
    ...quote(defaultOf(d.globals, 'global')),
    ...quote(defaultOf(d.globals, 'account')),
  };
}

/** The shop currency, which every amount in the profiles is in: your default global settings', else the shipped one. */
export function shopCurrency(globals: Profile[]): string {
  const c = defaultOf(globals, 'account')?.settings.currency ?? defaultOf(globals, 'global')?.settings.currency;
  return typeof c === 'string' ? c : DEFAULT_SETTINGS.quote.currency;
}

const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));

/** The key of a material's price field in problems and element ids. */
export const priceKey = (material: string) => `price:${material}`;

/** The shipped profiles and the built-ins state their amounts in this currency. */
export const SHIPPED_CURRENCY = DEFAULT_SETTINGS.quote.currency;

/** Each field's value as quotes take it now, by field key, and whether it comes from a profile of the account. */
function loaded(d: PriceData): Map<string, { value: unknown; own: boolean }> {
  const quote = quoteBaseline(d);
  const ownPrinter = defaultOf(d.printers, 'account')?.settings ?? {};
  const ownGlobal = defaultOf(d.globals, 'account')?.settings ?? {};
  const out = new Map<string, { value: unknown; own: boolean }>();
  for (const m of d.offered) {
    const { value, ownPrice } = materialPrice(d, m);
    out.set(priceKey(m), { value, own: ownPrice });
  }
  const hourly = printerBaseline(d.printers, d.globals).hourly_cost;
  out.set('hourly_cost', { value: hourly, own: ownPrinter.hourly_cost !== undefined });
  for (const f of SHOP_FIELDS.filter((x) => x.section === 'quote_config'))
    out.set(f.name, { value: (quote as Record<string, unknown>)[f.name], own: ownGlobal[f.name] !== undefined });
  return out;
}

/**
 * In a shop that does not price in USD, the shipped example amounts (USD) are no price of its own: the server
 * refuses to quote with them (docs/pricing.md). Those fields start empty, to be typed in the shop's currency; by
 * field key, the shipped amount they would have shown. The minimum price per part is one unit of any currency.
 */
export function shippedAmounts(d: PriceData): Map<string, number> {
  const out = new Map<string, number>();
  if (d.currency === SHIPPED_CURRENCY) return out;
  for (const [key, { value, own }] of loaded(d)) {
    if (own || key === 'minimum_price' || typeof value !== 'number' || value === 0) continue;
    if (key.startsWith('price:') || getSetting(SHOP_FIELDS.find((f) => f.name === key)!.section, key)?.money)
      out.set(key, value);
  }
  return out;
}

export function formFrom(d: PriceData): PriceForm {
  const values = loaded(d);
  const examples = shippedAmounts(d);
  const at = (key: string) => (examples.has(key) ? '' : text(values.get(key)?.value));
  return {
    prices: Object.fromEntries(d.offered.map((m) => [m, at(priceKey(m))])),
    shop: Object.fromEntries(SHOP_FIELDS.map((f) => [f.name, at(f.name)])) as PriceForm['shop'],
  };
}

/** Problems as sentences naming the row and the field ("PLA: price per kg must be at least 0"), by field key. */
export function formIssues(d: PriceData, f: PriceForm): Map<string, string> {
  const out = new Map<string, string>();
  const examples = shippedAmounts(d);
  const required = (key: string) =>
    examples.has(key)
      ? `is needed in ${d.currency}: the shipped example, ${examples.get(key)} ${SHIPPED_CURRENCY}, is not your price`
      : 'is required';
  const check = (key: string, words: string, section: 'material_config' | ShopSection, name: string, t: string) => {
    const value = t.trim() === '' ? undefined : numberOrText(t);
    const [issue] =
      value === undefined ? [{ message: required(key) }] : validateConfigSection(section, { [name]: value });
    if (issue) out.set(key, `${words} ${issue.message.replace(/\bcurrency\b/, d.currency)}`);
  };
  for (const m of d.offered)
    check(priceKey(m), `${m}: price per kg`, 'material_config', 'price_per_kg', f.prices[m] ?? '');
  for (const s of SHOP_FIELDS) check(s.name, s.label, s.section, s.name, f.shop[s.name]);
  return out;
}
type ShopSection = (typeof SHOP_FIELDS)[number]['section'];

/** The minimum price per part shoppers pay: the saved offer's own, else the profiles' (the default offer: 1 for 0). */
export function shopperMinimum(d: PriceData, typed: number): number {
  if (d.offerMinimum !== null) return d.offerMinimum;
  return d.derivedOffer ? typed || DEFAULT_MINIMUM_PRICE : typed;
}

/** The settings one shopper's part of this material resolves to with the form's values; null while they are invalid. */
export function resolvedFor(d: PriceData, f: PriceForm, name: string): ResolvedSettings | null {
  const issues = formIssues(d, f);
  if (issues.has(priceKey(name)) || SHOP_FIELDS.some((s) => issues.has(s.name))) return null;
  const num = (t: string) => Number(t.trim());
  // Prices are never borrowed from another material (the server's rule): only the material's own fields layer.
  const { price_per_gram: _g, price_per_kg: _kg, ...fallback } = defaultOf(d.materials, 'global')?.settings ?? {};
  const material = {
    ...DEFAULT_SETTINGS.material,
    ...fallback,
    ...shipped(d.materials, name)?.settings,
    ...own(d.materials, name)?.settings,
  } as ResolvedSettings['material'];
  delete material.price_per_gram;
  material.price_per_kg = num(f.prices[name] ?? '');
  const printer = { ...printerBaseline(d.printers, d.globals), hourly_cost: num(f.shop.hourly_cost) };
  const quote = {
    ...quoteBaseline(d),
    energy_cost_per_kwh: num(f.shop.energy_cost_per_kwh),
    fixed_fee: num(f.shop.fixed_fee),
    tax_rate: num(f.shop.tax_rate),
    minimum_price: shopperMinimum(d, num(f.shop.minimum_price)),
  };
  return { printer: printer as ResolvedSettings['printer'], material, quote };
}

/** What a shopper pays for the sample part in this material (tax included), or null while the form has problems. */
export function samplePrice(d: PriceData, f: PriceForm, name: string): PriceBreakdown | null {
  const s = resolvedFor(d, f, name);
  return s ? computePrice(sampleStats(s.material.density), s) : null;
}

// Saving the Prices page with the profiles API as it is: each changed price goes to the profile quotes take it
// from. A material's price to the account's own material profile of that name (made when there is none: the
// shipped one stays underneath, field by field); the machine's hourly cost to every printer profile of the
// account (each quality may slice with its own), and to a new default one when none is the default; the energy
// cost, fee, minimum and tax to the account's default global settings (made when there is none).
import { ApiError, api, call } from './api.ts';
import { toApiError } from './loader.ts';
import { formFrom, type PriceData, type PriceForm, SHOP_FIELDS } from './price-sheet.ts';
import { KIND_LABEL } from './profiles.ts';
import type { Profile, ProfileKind } from './types.ts';

/** One profile to write: `profile` null makes a new one. */
export interface ProfileWrite {
  kind: ProfileKind;
  profile: Profile | null;
  name: string;
  is_default: boolean;
  settings: Record<string, unknown>;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** "My printer", or "My printer 2" when the account has a profile of that name already. */
function freeName(list: Profile[], base: string): string {
  const taken = (n: string) => list.some((p) => p.scope === 'account' && same(p.name, n));
  let name = base;
  for (let i = 2; taken(name); i++) name = `${base} ${i}`;
  return name;
}

const update = (p: Profile, changes: Record<string, unknown>, drop: string[] = []): ProfileWrite => {
  const settings = Object.fromEntries(Object.entries(p.settings).filter(([k]) => !drop.includes(k)));
  return { kind: p.kind, profile: p, name: p.name, is_default: p.is_default, settings: { ...settings, ...changes } };
};

function materialWrites(d: PriceData, f: PriceForm, before: PriceForm): ProfileWrite[] {
  return d.offered
    .filter((m) => (f.prices[m] ?? '').trim() !== (before.prices[m] ?? '').trim())
    .map((m) => {
      const price = { price_per_kg: Number(f.prices[m]) };
      const mine = d.materials.find((p) => p.scope === 'account' && same(p.name, m));
      // One price per material: a price kept per gram is replaced, never left beside a different per-kg one.
      if (mine) return update(mine, price, ['price_per_gram', 'price_per_kg']);
      return { kind: 'material', profile: null, name: m, is_default: false, settings: price };
    });
}

function printerWrites(d: PriceData, hourly: number): ProfileWrite[] {
  const mine = d.printers.filter((p) => p.scope === 'account');
  const writes = mine.map((p) => update(p, { hourly_cost: hourly }));
  if (!mine.some((p) => p.is_default))
    writes.push({
      kind: 'printer',
      profile: null,
      name: freeName(d.printers, 'My printer'),
      is_default: true,
      settings: { hourly_cost: hourly },
    });
  return writes;
}

function globalWrite(d: PriceData, changes: Record<string, unknown>): ProfileWrite {
  const mine = d.globals.find((p) => p.scope === 'account' && p.is_default);
  if (mine) return update(mine, changes);
  return { kind: 'global', profile: null, name: freeName(d.globals, 'My prices'), is_default: true, settings: changes };
}

/** The profile writes that store the form's changes (nothing for a field left as it was loaded). */
export function savePlan(d: PriceData, f: PriceForm): ProfileWrite[] {
  const before = formFrom(d);
  const changed = SHOP_FIELDS.filter((s) => f.shop[s.name].trim() !== before.shop[s.name].trim());
  const writes = materialWrites(d, f, before);
  if (changed.some((s) => s.name === 'hourly_cost')) writes.push(...printerWrites(d, Number(f.shop.hourly_cost)));
  const quote = changed.filter((s) => s.section === 'quote_config');
  if (quote.length) writes.push(globalWrite(d, Object.fromEntries(quote.map((s) => [s.name, Number(f.shop[s.name])]))));
  return writes;
}

function write(w: ProfileWrite) {
  // The settings were checked with the catalogue's rules (shared/settings.ts), as the server checks them.
  const body = { name: w.name, is_default: w.is_default, settings: w.settings as Record<string, never> };
  if (!w.profile) return call(api.POST('/v2/profiles/{kind}', { params: { path: { kind: w.kind } }, body }));
  const path = { kind: w.kind, profile_id: w.profile.profile_id };
  return call(api.PUT('/v2/profiles/{kind}/{profile_id}', { params: { path }, body }));
}

/** Runs the writes one by one; a refusal names the profile it was for (the writes before it are saved). */
export async function saveWrites(writes: ProfileWrite[]): Promise<void> {
  for (const w of writes) {
    try {
      await write(w);
    } catch (err) {
      const e = toApiError(err);
      throw new ApiError(
        e.status,
        e.code,
        `Your ${KIND_LABEL[w.kind].toLowerCase()} profile “${w.name}”: ${e.message}`,
        e.details,
      );
    }
  }
}

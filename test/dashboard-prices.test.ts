// The dashboard's Prices page: its sample part is priced by the one price formula over settings resolved exactly
// as the server resolves a quote's (resolveFromProfiles), problems name the material and the field, and saving
// writes only what changed, to the profiles quotes take it from.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ProfileWrite, savePlan } from '../dashboard/src/lib/price-save.ts';
import {
  formFrom,
  formIssues,
  type PriceData,
  resolvedFor,
  samplePrice,
  shippedAmounts,
  shopCurrency,
  shopperMinimum,
} from '../dashboard/src/lib/price-sheet.ts';
import { SAMPLE_PART, sampleStats } from '../dashboard/src/lib/sample-part.ts';
import type { Profile } from '../dashboard/src/lib/types.ts';
import { GLOBAL_PROFILES } from '../server/profiles/global-profiles.ts';
import { resolveFromProfiles } from '../server/profiles/resolve.ts';
import type { ProfileRow } from '../server/profiles/sql.ts';
import { computePrice } from '../shared/pricing.ts';

const shippedProfiles: Profile[] = GLOBAL_PROFILES.map((p) => ({
  profile_id: p.id,
  kind: p.kind,
  name: p.name,
  scope: 'global',
  is_default: p.is_default,
  settings: p.settings,
  created_at: '',
  updated_at: '',
}));

const mine = (kind: Profile['kind'], name: string, settings: Record<string, unknown>, isDefault = false): Profile => ({
  profile_id: `prof_${kind}_${name.replace(/\W/g, '').toLowerCase()}`,
  kind,
  name,
  scope: 'account',
  is_default: isDefault,
  settings,
  created_at: '',
  updated_at: '',
});

function data(own: Profile[] = [], extra: Partial<PriceData> = {}): PriceData {
  const all = [...own, ...shippedProfiles];
  const of = (kind: Profile['kind']) => all.filter((p) => p.kind === kind);
  return {
    currency: shopCurrency(of('global')),
    materials: of('material'),
    printers: of('printer'),
    globals: of('global'),
    offered: ['PLA', 'PETG'],
    offerMinimum: null,
    derivedOffer: false,
    ...extra,
  };
}

/** The same profiles as the server reads them for a quote. */
function rows(d: PriceData): ProfileRow[] {
  return [...d.materials, ...d.printers, ...d.globals].map((p) => ({
    id: p.profile_id,
    account_id: p.scope === 'account' ? 'usr_1' : null,
    kind: p.kind,
    name: p.name,
    is_default: p.is_default,
    settings: p.settings,
    created_at: new Date(),
    updated_at: new Date(),
  }));
}

test("the sample's price is the server's: the same settings, field by field, through the one price formula", () => {
  const shops = {
    shipped: data(),
    'own profiles': data([
      mine('material', 'pla', { price_per_gram: 0.031, color: 'Graphite' }),
      mine('printer', 'Mine', { hourly_cost: 2.25, power_watts: 200 }, true),
      mine('global', 'Shop', { fixed_fee: 0.4, tax_rate: 20, minimum_price: 0.5, energy_cost_per_kwh: 0.41 }, true),
    ]),
  };
  for (const [label, d] of Object.entries(shops)) {
    const form = formFrom(d);
    for (const material of d.offered) {
      const server = resolveFromProfiles(rows(d), { material_config: { filament_type: material } }).settings;
      const expected = computePrice(sampleStats(server.material.density), server);
      assert.deepEqual(samplePrice(d, form, material), expected, `${label}, ${material}`);
      const ours = resolvedFor(d, form, material)!;
      assert.deepEqual(
        [ours.material.density, ours.printer.hourly_cost, ours.quote.tax_rate],
        [server.material.density, server.printer.hourly_cost, server.quote.tax_rate],
      );
    }
  }
  const priced = samplePrice(shops['own profiles'], formFrom(shops['own profiles']), 'PLA')!;
  assert.equal(priced.price_per_gram, 0.031, 'a price kept per gram is the same price, shown per kg');
  assert.equal(formFrom(shops['own profiles']).prices.PLA, '31');
});

test('typing a price reprices the sample at once; a shopper pays the offer’s own minimum where it has one', () => {
  const d = data();
  const form = formFrom(d);
  const cheap = samplePrice(d, form, 'PLA')!;
  assert.equal(cheap.total, 1, 'the shipped cube sells at the 1.00 minimum');
  assert.ok(cheap.minimum_price_adjustment > 0);
  form.prices.PLA = '400';
  const dear = samplePrice(d, form, 'PLA')!;
  const grams = SAMPLE_PART.filamentCm3 * 1.24;
  assert.equal(dear.material, Math.round(grams * 0.4 * 100) / 100);
  assert.equal(dear.minimum_price_adjustment, 0);
  assert.equal(shopperMinimum(data([], { offerMinimum: 3 }), 0.5), 3);
  assert.equal(shopperMinimum(data([], { derivedOffer: true }), 0), 1, 'the default offer never sells for 0');
  assert.equal(shopperMinimum(data([], { derivedOffer: true }), 0.25), 0.25);
});

test('problems name the material or the field, in the catalogue’s words, and stop the sample', () => {
  const d = data();
  const form = formFrom(d);
  form.prices.PLA = '-3';
  form.prices.PETG = '';
  form.shop.hourly_cost = '-1';
  form.shop.tax_rate = '120';
  assert.deepEqual(Object.fromEntries(formIssues(d, form)), {
    'price:PLA': 'PLA: price per kg must be at least 0',
    'price:PETG': 'PETG: price per kg is required',
    hourly_cost: 'Machine time per hour must be at least 0 USD/h',
    tax_rate: 'Tax added must be at most 100 %',
  });
  assert.equal(samplePrice(d, form, 'PLA'), null);
});

test('saving writes only what changed, to the profiles quotes read it from', () => {
  const d = data([mine('material', 'PLA', { price_per_gram: 0.03, density: 1.25 })]);
  assert.deepEqual(savePlan(d, formFrom(d)), [], 'nothing typed, nothing written');
  const form = formFrom(d);
  form.prices.PLA = '32';
  form.prices.PETG = '35';
  form.shop.hourly_cost = '3';
  form.shop.minimum_price = '0.5';
  const plan = savePlan(d, form).map((w) => ({ ...w, profile: w.profile?.profile_id ?? null }));
  assert.deepEqual(plan, [
    {
      kind: 'material',
      profile: 'prof_material_pla',
      name: 'PLA',
      is_default: false,
      settings: { density: 1.25, price_per_kg: 32 },
    },
    { kind: 'material', profile: null, name: 'PETG', is_default: false, settings: { price_per_kg: 35 } },
    { kind: 'printer', profile: null, name: 'My printer', is_default: true, settings: { hourly_cost: 3 } },
    { kind: 'global', profile: null, name: 'My prices', is_default: true, settings: { minimum_price: 0.5 } },
  ]);

  // Every printer profile of the account gets the hourly cost (a quality may slice with any of them).
  const printers = data([
    mine('printer', 'MK3S — 0.20mm QUALITY', { layer_height: 0.2 }, true),
    mine('printer', 'MK3S — 0.30mm DRAFT', { layer_height: 0.3, hourly_cost: 1 }),
    mine('global', 'Shop', { tax_rate: 7 }, true),
  ]);
  const typed = formFrom(printers);
  typed.shop.hourly_cost = '2';
  typed.shop.tax_rate = '19';
  const writes = savePlan(printers, typed).map((w) => [w.profile?.name, w.settings]);
  assert.deepEqual(writes, [
    ['MK3S — 0.20mm QUALITY', { layer_height: 0.2, hourly_cost: 2 }],
    ['MK3S — 0.30mm DRAFT', { layer_height: 0.3, hourly_cost: 2 }],
    ['Shop', { tax_rate: 19 }],
  ]);
});

/** The profiles after the writes, as the server would hold them. */
function afterWrites(d: PriceData, writes: ProfileWrite[]): PriceData {
  const lists = { material: [...d.materials], printer: [...d.printers], global: [...d.globals] };
  for (const w of writes) {
    const list = lists[w.kind];
    if (w.is_default)
      for (const [i, p] of list.entries()) if (p.scope === 'account') list[i] = { ...p, is_default: false };
    const made = mine(w.kind, w.name, w.settings, w.is_default);
    const at = list.findIndex((p) => p.profile_id === w.profile?.profile_id);
    if (at >= 0) list[at] = { ...made, profile_id: w.profile!.profile_id };
    else list.unshift(made);
  }
  return { ...d, materials: lists.material, printers: lists.printer, globals: lists.global };
}

test('a shop in EUR types its own amounts: the shipped USD examples start empty, and the save lets quotes price', () => {
  const d = data([mine('global', 'Shop', { currency: 'EUR' }, true)]);
  assert.equal(d.currency, 'EUR');
  const examples = Object.fromEntries(shippedAmounts(d));
  assert.deepEqual(examples, { 'price:PLA': 25, 'price:PETG': 28, hourly_cost: 1.5, energy_cost_per_kwh: 0.3 });
  const form = formFrom(d);
  assert.deepEqual([form.prices.PLA, form.shop.hourly_cost, form.shop.minimum_price], ['', '', '1']);
  assert.equal(
    formIssues(d, form).get('price:PLA'),
    'PLA: price per kg is needed in EUR: the shipped example, 25 USD, is not your price',
  );
  assert.equal(samplePrice(d, form, 'PLA'), null);
  // The server refuses to quote a EUR shop with the USD examples, as the page says.
  assert.throws(() => resolveFromProfiles(rows(d), { material_config: { filament_type: 'PLA' } }), /shipped profile/);

  Object.assign(form.prices, { PLA: '27', PETG: '30' });
  Object.assign(form.shop, { hourly_cost: '1.4', energy_cost_per_kwh: '0.35' });
  assert.equal(formIssues(d, form).size, 0);
  const saved = afterWrites(d, savePlan(d, form));
  for (const material of d.offered) {
    const server = resolveFromProfiles(rows(saved), { material_config: { filament_type: material } }).settings;
    const expected = computePrice(sampleStats(server.material.density), server);
    assert.deepEqual(samplePrice(d, form, material), expected, `${material}: the page's figure is the quote's`);
    assert.equal(expected.currency, 'EUR');
  }
  assert.equal(shippedAmounts(saved).size, 0, 'saved: every amount is the shop’s own');
});

// Settings resolution without a database: the shipped profiles plus an account's own, as profilesForResolution
// returns them. Request > the account's profile > the shipped one, field by field; a setting with two names is
// one field; money is in the shop currency, converted with the shop's rates or refused.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../server/http/errors.ts';
import { GLOBAL_PROFILES } from '../server/profiles/global-profiles.ts';
import { type QuoteRequest, resolveFromProfiles } from '../server/profiles/resolve.ts';
import type { ProfileRow } from '../server/profiles/sql.ts';

const at = new Date('2030-01-01T00:00:00Z');
const shipped: ProfileRow[] = GLOBAL_PROFILES.map((p) => ({ ...p, account_id: null, created_at: at, updated_at: at }));
const own = (
  id: string,
  kind: ProfileRow['kind'],
  name: string,
  settings: Record<string, unknown>,
  is_default = true,
): ProfileRow => ({ id, account_id: 'acct_1', kind, name, is_default, settings, created_at: at, updated_at: at });

function resolve(req: QuoteRequest, ...rows: ProfileRow[]) {
  return resolveFromProfiles([...shipped, ...rows], req);
}

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  assert.fail('expected an ApiError');
}

const fieldsOf = (err: ApiError) => ((err.details?.fields as { field: string }[]) ?? []).map((f) => f.field);

test("field by field: request, then the account's default profile, then the shipped one", () => {
  const printer = own('prof_p', 'printer', 'Mine', { fill_density: 40, hourly_cost: 4 });
  const r = resolve({ printer_config: { fill_density: 15 } }, printer);
  assert.equal(r.settings.printer.fill_density, 15);
  assert.equal(r.sources['printer_config.fill_density'], 'request');
  assert.equal(r.settings.printer.hourly_cost, 4);
  assert.equal(r.sources['printer_config.hourly_cost'], 'profile:prof_p');
  assert.equal(r.sources['printer_config.perimeters'], 'global:prof_global_printer');
  assert.equal(r.sources['quote_config.minimum_price'], 'global:prof_global_settings');
  assert.equal(r.settings.quote.minimum_price, 1, 'the shipped minimum: no part is sold for 0');
  assert.equal(r.conversion, null);
});

test('price_per_kg and price_per_gram are one setting: the highest layer setting either wins, in both names', () => {
  const pla = own('prof_pla', 'material', 'PLA', { price_per_kg: 40 }, false);
  const fromProfile = resolve({ material_config: { filament_type: 'PLA' } }, pla);
  assert.equal(
    fromProfile.settings.material.price_per_gram,
    0.04,
    "the account's per-kg price beats the shipped per-gram one",
  );
  assert.equal(fromProfile.settings.material.price_per_kg, 40);
  assert.equal(fromProfile.sources['material_config.price_per_gram'], 'profile:prof_pla');
  assert.equal(fromProfile.sources['material_config.price_per_kg'], 'profile:prof_pla');
  const perGramProfile = own('prof_pla', 'material', 'PLA', { price_per_gram: 0.031 }, false);
  const fromRequest = resolve({ material_config: { filament_type: 'PLA', price_per_kg: 50 } }, perGramProfile);
  assert.deepEqual(
    [fromRequest.settings.material.price_per_gram, fromRequest.settings.material.price_per_kg],
    [0.05, 50],
  );
  assert.equal(fromRequest.sources['material_config.price_per_gram'], 'request');
  const perGramRequest = resolve({ material_config: { filament_type: 'PLA', price_per_gram: 0.0123 } }, pla);
  assert.deepEqual(
    [perGramRequest.settings.material.price_per_gram, perGramRequest.settings.material.price_per_kg],
    [0.0123, 12.3],
  );
  const shippedOnly = resolve({ material_config: { filament_type: 'PETG' } });
  assert.deepEqual(
    [shippedOnly.settings.material.price_per_kg, shippedOnly.settings.material.price_per_gram],
    [28, 0.028],
  );
  assert.equal(shippedOnly.sources['material_config.price_per_gram'], 'global:prof_global_petg');
});

test('a profile stored with two different prices resolves to its per-gram one, as it always priced', () => {
  const legacy = own('prof_old', 'material', 'Old', { price_per_kg: 40, price_per_gram: 0.03 });
  const r = resolve({ material_config: { filament_type: 'Old' } }, legacy);
  assert.deepEqual([r.settings.material.price_per_gram, r.settings.material.price_per_kg], [0.03, 30]);
});

test('a material never borrows its price from another material or the built-ins', () => {
  const mystery = own('prof_m', 'material', 'Mystery', { density: 1.2 }, false);
  const err = refusal(() => resolve({ material_config: { filament_type: 'Mystery' } }, mystery));
  assert.equal(err.code, 'material_price_missing');
  assert.equal(err.details?.field, 'material_config.price_per_gram');
  assert.equal(
    resolve({ material_config: { filament_type: 'Mystery', price_per_kg: 20 } }, mystery).settings.material
      .price_per_gram,
    0.02,
  );
});

test("the shop currency comes from the profiles; a request for another one is converted with the shop's rate", () => {
  const settings = own('prof_g', 'global', 'Shop', { exchange_rates: { EUR: 0.92, JPY: 151.37 } });
  const eur = resolve({ quote_config: { currency: 'EUR' } }, settings);
  assert.deepEqual(eur.conversion, { from: 'USD', to: 'EUR', rate: 0.92 });
  assert.equal(eur.settings.quote.currency, 'EUR');
  assert.equal(eur.sources['quote_config.currency'], 'request');
  assert.equal(eur.sources['quote_config.exchange_rates'], 'profile:prof_g');
  assert.equal(resolve({ quote_config: { currency: 'USD' } }, settings).conversion, null, 'the shop currency itself');
});

test('a currency the shop has no rate for is refused naming quote_config.currency, never relabelled', () => {
  const err = refusal(() => resolve({ quote_config: { currency: 'JPY' } }));
  assert.equal(err.status, 422);
  assert.equal(err.code, 'currency_not_offered');
  assert.equal(err.details?.field, 'quote_config.currency');
  assert.deepEqual(err.details?.available, ['USD']);
  const withRates = own('prof_g', 'global', 'Shop', { exchange_rates: { EUR: 0.92 } });
  assert.deepEqual(refusal(() => resolve({ quote_config: { currency: 'JPY' } }, withRates)).details?.available, [
    'USD',
    'EUR',
  ]);
});

test('a shop in another currency than the shipped profiles must set its own amounts: shipped USD is no yen', () => {
  const yen = own('prof_g', 'global', 'Shop', { currency: 'JPY', fixed_fee: 0, energy_cost_per_kwh: 31 });
  const err = refusal(() => resolve({}, yen));
  assert.equal(err.code, 'settings_conflict');
  assert.deepEqual(fieldsOf(err).sort(), ['material_config.price_per_gram', 'printer_config.hourly_cost']);
  assert.match(JSON.stringify(err.details), /1\.5 USD in a shipped profile, but this shop prices in JPY/);
  const printer = own('prof_p', 'printer', 'Mine', { hourly_cost: 250 });
  const pla = own('prof_pla', 'material', 'PLA', { price_per_kg: 3300 });
  const r = resolve({}, yen, printer, pla);
  assert.equal(r.settings.quote.currency, 'JPY');
  assert.equal(r.conversion, null);
  assert.equal(r.settings.material.price_per_gram, 3.3);
  // Request amounts are the shop's amounts too; zero amounts (the shipped fixed fee) are zero in any currency.
  assert.equal(
    resolve({ material_config: { price_per_kg: 3000 }, printer_config: { hourly_cost: 200 } }, yen).settings.quote
      .fixed_fee,
    0,
  );
});

test('a stored profile with a currency that is no ISO 4217 code is refused by name, not priced with 2 digits', () => {
  const odd = own('prof_g', 'global', 'Shop', { currency: 'XBT' });
  const err = refusal(() => resolve({}, odd));
  assert.equal(err.code, 'settings_conflict');
  assert.deepEqual(fieldsOf(err), ['quote_config.currency']);
});

test("exchange rates resolve as a whole: the account's table replaces the shipped one", () => {
  const mine = own('prof_g', 'global', 'Shop', { exchange_rates: { GBP: 0.79 } });
  assert.deepEqual(resolve({}, mine).settings.quote.exchange_rates, { GBP: 0.79 });
  assert.deepEqual(resolve({}).settings.quote.exchange_rates, {});
});

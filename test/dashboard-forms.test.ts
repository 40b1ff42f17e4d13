// The dashboard's profile forms validate with the server's own rules (shared/profiles.ts); what is left to
// check is that each form offers exactly the fields the API accepts for that kind of profile.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  allFields,
  fieldGroups,
  fieldValue,
  formatField,
  parseField,
  rangeText,
  validateProfile,
} from '../dashboard/src/lib/profile-rules.ts';
import { type ProfileKind, validateProfileSettings } from '../shared/profiles.ts';

/** A value the API accepts for a field of the form. */
function validValue(def: ReturnType<typeof allFields>[number]): unknown {
  if (def.type === 'boolean') return true;
  if (def.type === 'list') return ['Red', 'Blue'];
  if (def.type === 'rates') return { EUR: def.max };
  if (def.type === 'enum') return def.values![0];
  if (def.type === 'string') return def.name === 'currency' ? 'EUR' : 'Red';
  return def.max ?? (def.min ?? 0) + 1;
}

for (const kind of ['printer', 'material', 'global'] as ProfileKind[]) {
  test(`every field of the ${kind} form is accepted by the API, and a value out of range is refused naming it`, () => {
    for (const def of allFields(kind)) {
      assert.deepEqual(
        validateProfileSettings(kind, 'Name', { [def.name]: validValue(def) }),
        [],
        `${kind}.${def.name}`,
      );
      if (def.max !== undefined) {
        const issues = validateProfileSettings(kind, 'Name', { [def.name]: def.max + 1 });
        assert.equal(issues[0]?.field, `settings.${def.name}`, `${kind}.${def.name} above its maximum`);
      }
    }
    assert.deepEqual(
      validateProfileSettings(kind, 'Name', { not_a_setting: 1 }).map((i) => i.field),
      ['settings.not_a_setting'],
    );
  });
}

test('each form shows every field of its kind', () => {
  assert.equal(allFields('printer').length, 34, 'the 33 printer_config request fields plus power_watts');
  assert.equal(
    allFields('material').length,
    16,
    'the material_config fields but filament_type (the name) and price_per_gram (one price), plus color and colors',
  );
  assert.equal(
    allFields('global').length,
    10,
    'the quote_config fields (exchange_rates and quote_validity_days included) plus the three default layer heights',
  );
});

test('the global settings form shows quote validity under Quotes, in days from 1 to 365, not under Pricing', () => {
  const groups = fieldGroups('global');
  assert.deepEqual(
    groups.find((g) => g.title === 'Quotes')?.fields.map((f) => f.name),
    ['quote_validity_days'],
  );
  assert.ok(!groups.find((g) => g.title === 'Pricing')?.fields.some((f) => f.name === 'quote_validity_days'));
  const validity = allFields('global').find((f) => f.name === 'quote_validity_days')!;
  assert.equal(rangeText(validity), '1 to 365 days, whole numbers');
});

test('ranges read as the API checks them: exclusive minimums, units after the numbers, whole numbers', () => {
  const printer = (name: string) => allFields('printer').find((f) => f.name === name)!;
  assert.equal(rangeText(printer('print_speed')), 'greater than 0, at most 1000 mm/s');
  assert.equal(rangeText(printer('fill_density')), '0 to 100 %');
  assert.equal(rangeText(printer('perimeters')), '0 to 50, whole numbers');
});

test('the profile name is required and bounded, as the API requires', () => {
  assert.deepEqual(
    validateProfile('printer', ' ', {}).map((i) => i.field),
    ['name'],
  );
  assert.deepEqual(
    validateProfile('printer', 'x'.repeat(65), {}).map((i) => i.field),
    ['name'],
  );
});

test('the material form shows one price, per kg, whichever unit the profile stored it in', () => {
  const fields = allFields('material');
  const price = fields.find((d) => d.name === 'price_per_kg')!;
  assert.equal(fields.filter((d) => d.name.startsWith('price_per')).length, 1);
  assert.equal(formatField(price, fieldValue(price, { price_per_gram: 0.0123 })), '12.3');
  assert.equal(formatField(price, fieldValue(price, { price_per_kg: 40 })), '40');
  // A profile stored before both names were one setting, with two prices: the per-gram one always priced.
  assert.equal(formatField(price, fieldValue(price, { price_per_kg: 40, price_per_gram: 0.025 })), '25');
});

test('exchange rates are typed as "EUR 0.92, GBP 0.79" and validated as the API does', () => {
  const rates = allFields('global').find((d) => d.name === 'exchange_rates')!;
  assert.deepEqual(parseField(rates, 'eur 0.92, GBP=0.79'), { EUR: 0.92, GBP: 0.79 });
  assert.equal(formatField(rates, { EUR: 0.92, GBP: 0.79 }), 'EUR 0.92, GBP 0.79');
  assert.deepEqual(validateProfile('global', 'Shop', { exchange_rates: parseField(rates, 'EUR 0.92') }), []);
  for (const text of ['EUR', 'EUR -1', 'XYZ 1', 'EUR 0']) {
    const issues = validateProfile('global', 'Shop', { exchange_rates: parseField(rates, text) });
    assert.deepEqual(
      issues.map((i) => i.field),
      ['settings.exchange_rates'],
      text,
    );
  }
});

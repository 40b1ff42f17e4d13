// The dashboard's profile forms validate with the server's own rules (shared/profiles.ts); what is left to
// check is that each form offers exactly the fields the API accepts for that kind of profile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateProfileSettings, type ProfileKind } from '../shared/profiles.ts';
import { allFields, validateProfile } from '../dashboard/src/lib/profile-rules.ts';

/** A value the API accepts for a field of the form. */
function validValue(def: ReturnType<typeof allFields>[number]): unknown {
  if (def.type === 'boolean') return true;
  if (def.type === 'list') return ['Red', 'Blue'];
  if (def.type === 'enum') return def.values![0];
  if (def.type === 'string') return def.name === 'currency' ? 'EUR' : 'Red';
  return def.max ?? (def.min ?? 0) + 1;
}

for (const kind of ['printer', 'material', 'global'] as ProfileKind[]) {
  test(`every field of the ${kind} form is accepted by the API, and a value out of range is refused naming it`, () => {
    for (const def of allFields(kind)) {
      assert.deepEqual(validateProfileSettings(kind, 'Name', { [def.name]: validValue(def) }), [], `${kind}.${def.name}`);
      if (def.max !== undefined) {
        const issues = validateProfileSettings(kind, 'Name', { [def.name]: def.max + 1 });
        assert.equal(issues[0]?.field, `settings.${def.name}`, `${kind}.${def.name} above its maximum`);
      }
    }
    assert.deepEqual(validateProfileSettings(kind, 'Name', { not_a_setting: 1 }).map((i) => i.field), ['settings.not_a_setting']);
  });
}

test('each form shows every field of its kind', () => {
  assert.equal(allFields('printer').length, 34, 'the 33 printer_config fields of spec 2.3 plus power_watts');
  assert.equal(allFields('material').length, 17, 'the material_config fields but filament_type (the name), plus color and colors');
  assert.equal(allFields('global').length, 7, 'the quote_config fields plus the three default layer heights');
});

test('the profile name is required and bounded, as the API requires', () => {
  assert.deepEqual(validateProfile('printer', ' ', {}).map((i) => i.field), ['name']);
  assert.deepEqual(validateProfile('printer', 'x'.repeat(65), {}).map((i) => i.field), ['name']);
});

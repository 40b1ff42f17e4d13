// The dashboard's profile form must refuse exactly what the API refuses: its validation (dashboard/src/
// lib/profile-rules.ts) against the server's (server/services/profiles.ts) on the same inputs, per kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateProfileSettings } from '../../server/services/profiles.ts';
import { allFields, validateProfile } from '../../dashboard/src/lib/profile-rules.ts';
import type { ProfileKind } from '../../dashboard/src/lib/types.ts';

/** Values around each field's limits, of the right and the wrong types. */
function candidates(min: number | undefined, max: number | undefined): unknown[] {
  const around = [min, max].filter((n): n is number => n !== undefined).flatMap((n) => [n - 1, n - 0.001, n, n + 0.5, n + 1]);
  return [...around, 0, 1, 2.5, -3, 'abc', '', true, false, null, ['a'], 'rectilinear', 'gyroid', 'USD', 'usd', 'x'.repeat(65)];
}

const sorted = (issues: { field: string; message: string }[]) => issues.map((i) => `${i.field}: ${i.message}`).sort();

for (const kind of ['printer', 'material', 'global'] as ProfileKind[]) {
  test(`${kind} profile fields validate exactly as the API does`, () => {
    let compared = 0;
    for (const def of allFields(kind)) {
      for (const value of candidates(def.min, def.max)) {
        const settings = { [def.name]: value };
        const ours = validateProfile(kind, 'Name', settings).filter((i) => i.field !== 'name');
        assert.deepEqual(sorted(ours), sorted(validateProfileSettings(kind, 'Name', settings)), `${kind}.${def.name} = ${JSON.stringify(value)}`);
        compared++;
      }
    }
    assert.ok(compared > 100);
  });
}

test('every field of each kind is on its form', () => {
  assert.equal(allFields('printer').length, 34, 'the 33 printer_config fields of spec 2.3 plus power_watts');
  assert.equal(allFields('material').length, 17, 'the material_config fields but filament_type (the name), plus color and colors');
  assert.equal(allFields('global').length, 7, 'the quote_config fields plus the three default layer heights');
});

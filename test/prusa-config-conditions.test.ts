// PrusaSlicer's compatibility conditions: every condition the installed vendor bundles use parses, and conditions
// evaluate against a printer's options as PrusaSlicer's would.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  ConditionError,
  evaluateCondition,
  parseCondition,
  parseIni,
  VENDOR_INI_LIMITS,
} from '../server/prusa-config/index.ts';

const PROFILES = process.env.PRUSA_SLICER_PROFILES_DIR ?? '/usr/share/PrusaSlicer/profiles';

function installedConditions(): Set<string> {
  const conditions = new Set<string>();
  for (const file of readdirSync(PROFILES).filter((name) => name.endsWith('.ini'))) {
    for (const section of parseIni(readFileSync(path.join(PROFILES, file), 'utf8'), VENDOR_INI_LIMITS))
      for (const key of ['compatible_printers_condition', 'compatible_prints_condition']) {
        const condition = section.entries.get(key);
        if (condition) conditions.add(condition);
      }
  }
  return conditions;
}

test('every distinct condition in the installed vendor bundles parses', () => {
  const conditions = installedConditions();
  assert.ok(conditions.size > 100, `found ${conditions.size} conditions`);
  const failed = [...conditions].filter((condition) => {
    try {
      parseCondition(condition);
      return false;
    } catch {
      return true;
    }
  });
  assert.deepEqual(failed, []);
});

const MK3S = {
  printer_model: 'MK3S',
  printer_notes:
    'Don\'t remove the following keywords! These keywords are used in the "compatible printer" condition of the print and filament profiles linked to this printer profile.\\nPRINTER_VENDOR_PRUSA3D\\nPRINTER_MODEL_MK3\\n',
  nozzle_diameter: '0.4',
  single_extruder_multi_material: '0',
  num_extruders: '1',
};
const MMU = {
  ...MK3S,
  printer_model: 'MK3SMMU2S',
  nozzle_diameter: '0.4,0.4,0.4,0.4,0.4',
  single_extruder_multi_material: '1',
  num_extruders: '5',
};

const holds = (condition: string, options: Record<string, string>) =>
  evaluateCondition(parseCondition(condition)!, options);

test('the Prusa MK3 conditions: regex over multi-line notes, vector index, string inequality', () => {
  const mk3 =
    'printer_notes=~/.*PRINTER_VENDOR_PRUSA3D.*/ and printer_notes=~/.*PRINTER_MODEL_MK3.*/ and nozzle_diameter[0]==0.4 and printer_model!="MK3SMMU2S"';
  assert.equal(holds(mk3, MK3S), true);
  assert.equal(holds(mk3, MMU), false);
  assert.equal(holds(mk3, { ...MK3S, nozzle_diameter: '0.6' }), false);
  assert.equal(holds('printer_notes=~/.*PRINTER_MODEL_MINI.*/', MK3S), false);
  assert.equal(holds('printer_notes!~/.*PRINTER_MODEL_MINI.*/', MK3S), true);
});

test('not, !, &&, or, parentheses and a bare boolean option', () => {
  const pla =
    'nozzle_diameter[0]!=0.8 and ! (printer_notes=~/.*PRINTER_VENDOR_PRUSA3D.*/ and printer_notes=~/.*PRINTER_MODEL_MK(2.5|3).*/ and single_extruder_multi_material)';
  assert.equal(holds(pla, MK3S), true);
  assert.equal(holds(pla, MMU), false);
  assert.equal(holds('num_extruders==1 && !(printer_model=="MINI")', MK3S), true);
  assert.equal(holds('not num_extruders>1', MMU), false);
  assert.equal(holds('(printer_model=="MINI" or printer_model=="MK3S") and nozzle_diameter[0]>=0.4', MK3S), true);
  assert.equal(holds('nozzle_diameter[4]<0.5', MMU), true);
  assert.equal(holds('single_extruder_multi_material == true', MMU), true);
  assert.equal(holds('nozzle_diameter[0] <= 0.4 and nozzle_diameter[0] >= 0.4', MK3S), true);
});

test("an option a printer leaves out has PrusaSlicer's default (2.9's high-flow nozzles)", () => {
  const highFlow = 'printer_model=~/(MK4|MK4IS)/ and nozzle_diameter[0]!=0.8 and nozzle_high_flow[0]';
  assert.equal(holds(highFlow, { printer_model: 'MK4IS' }), false);
  assert.equal(holds(highFlow, { printer_model: 'MK4IS', nozzle_high_flow: '1' }), true);
  assert.equal(holds('printer_notes=~/.*MINI.*/ or ! single_extruder_multi_material', {}), true);
});

test('a regex matches the whole value, as in PrusaSlicer', () => {
  assert.equal(holds('printer_model=~/.*GMAX2/', { printer_model: 'GMAX2' }), true);
  assert.equal(holds('printer_model=~/.*GMAX2/', { printer_model: 'GMAX2PRO' }), false);
  assert.equal(holds('printer_model=~/MK3/', MK3S), false);
});

test('one_of: a value equal to one of the strings or matching one of the patterns', () => {
  assert.equal(holds('one_of(printer_model, "MK3", "MK3S")', MK3S), true);
  assert.equal(holds('one_of(printer_model, "MINI", /MK3.*/)', MK3S), true);
  assert.equal(holds('one_of(printer_model, "MINI", /XL.*/)', MK3S), false);
});

test('an empty condition is no condition; what is outside the language is a ConditionError', () => {
  assert.equal(parseCondition('   '), null);
  for (const bad of [
    'layer_height * 2 > 1',
    'min(1, 2) == 1',
    'printer_model ==',
    '(printer_model=="MK3S"',
    'printer_notes=~/unclosed',
  ]) {
    assert.throws(() => parseCondition(bad), ConditionError, bad);
  }
  for (const bad of [
    'no_such_option == 1',
    'nozzle_diameter[3] == 0.4',
    'printer_model > 2',
    'printer_model=="x" =~ 1',
  ]) {
    assert.throws(() => holds(bad, MK3S), ConditionError, bad);
  }
  assert.throws(() => parseCondition(`${'('.repeat(500)}1${')'.repeat(500)}`), ConditionError);
});

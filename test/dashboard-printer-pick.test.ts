// The "Your printer" picker keeps a pick to what the chosen printer is compatible with, whatever the merchant
// ticked before switching printers, and lists printers under their model.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byModel, pickFor, toggle } from '../dashboard/src/lib/printer-pick.ts';

const MK3S_04 = {
  name: 'Original Prusa i3 MK3S & MK3S+',
  model: 'Original Prusa i3 MK3S && MK3S+',
  model_id: 'MK3S',
  nozzle_diameter: 0.4,
  prints: ['0.15mm QUALITY @MK3', '0.20mm QUALITY @MK3'],
  filaments: ['Generic PLA', 'Prusament PLA'],
};
const MK3S_06 = {
  ...MK3S_04,
  name: 'Original Prusa i3 MK3S & MK3S+ 0.6 nozzle',
  nozzle_diameter: 0.6,
  prints: ['0.30mm QUALITY @0.6 nozzle MK3'],
  filaments: ['Prusament PLA'],
};
const MINI = {
  ...MK3S_04,
  name: 'Original Prusa MINI & MINI+',
  model: 'Original Prusa MINI && MINI+',
  model_id: 'MINI',
};

test('printers are grouped under their model, in the library order', () => {
  assert.deepEqual(
    byModel([MK3S_04, MINI, MK3S_06]).map((g) => [g.model, g.printers.map((p) => p.nozzle_diameter)]),
    [
      ['Original Prusa i3 MK3S && MK3S+', [0.4, 0.6]],
      ['Original Prusa MINI && MINI+', [0.4]],
    ],
  );
});

test('ticking keeps the library order; switching printers keeps only what the new one is compatible with', () => {
  let pick = pickFor('PrusaResearch', MK3S_04, null);
  assert.deepEqual(pick, { vendor: 'PrusaResearch', printer: MK3S_04.name, prints: [], filaments: [] });
  pick = toggle(pick, 'prints', '0.20mm QUALITY @MK3', MK3S_04.prints);
  pick = toggle(pick, 'prints', '0.15mm QUALITY @MK3', MK3S_04.prints);
  pick = toggle(pick, 'filaments', 'Prusament PLA', MK3S_04.filaments);
  pick = toggle(pick, 'filaments', 'Generic PLA', MK3S_04.filaments);
  assert.deepEqual(pick.prints, ['0.15mm QUALITY @MK3', '0.20mm QUALITY @MK3']);
  assert.deepEqual(toggle(pick, 'filaments', 'Generic PLA', MK3S_04.filaments).filaments, ['Prusament PLA']);
  const switched = pickFor('PrusaResearch', MK3S_06, pick);
  assert.deepEqual(switched, {
    vendor: 'PrusaResearch',
    printer: MK3S_06.name,
    prints: [],
    filaments: ['Prusament PLA'],
  });
});

// The dashboard's offer editor holds the offer as typed text in rows; what it sends must be exactly the offer
// (nothing lost or reordered on the way), and what it cannot parse must reach validateOffer as typed, so the
// API's own message names the field.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  draftFrom,
  draftIssues,
  draftOffer,
  fieldId,
  fieldLabel,
  idFromLabel,
  offerBody,
} from '../dashboard/src/lib/offer-draft.ts';
import { materialChoices, printerBaseline } from '../dashboard/src/lib/profiles.ts';
import type { Profile } from '../dashboard/src/lib/types.ts';
import { normalizeOffer, type Offer, validateOffer } from '../shared/offer.ts';
import { DEFAULT_SETTINGS } from '../shared/settings.ts';

const OFFER: Offer = {
  materials: [
    {
      material: 'PLA',
      colors: ['White', 'Black', 'Red'],
      description: 'Stiff and matte',
      swatches: { Red: '#c81e1e' },
    },
    { material: 'PETG', colors: [], description: null },
  ],
  default_material: 'PETG',
  qualities: [
    { id: 'draft', label: 'Draft · 0.3 mm', printer_config: { layer_height: 0.3 } },
    {
      id: 'strong',
      label: 'Strong',
      printer_config: { perimeters: 4, support_material: true, infill_pattern: 'gyroid' },
    },
    // An imported print preset: it slices with its own printer profile.
    { id: '0-15mm-quality', label: '0.15mm QUALITY', printer_config: {}, printer_profile: 'prof_k3j9x0abc' },
  ],
  default_quality: 'strong',
  infill_options: [10, 20, 40],
  default_infill: 20,
  quantity: { min: 2, max: 500 },
  minimum_price: 3.5,
  minimum_line_price: null,
  lead_time: 'Ships in 3–5 business days',
  quantity_breaks: [
    { min_quantity: 10, discount_percent: 5 },
    { min_quantity: 50, discount_percent: 12.5 },
  ],
  lead_times: [
    { id: 'standard', label: 'Standard', business_days: 5, surcharge_percent: 0, surcharge_amount: 0 },
    { id: 'express', label: 'Express · 48 h', business_days: 2, surcharge_percent: 20, surcharge_amount: 2.5 },
  ],
  default_lead_time: 'standard',
  widget_budget: {
    quotes_per_shopper_hour: 30,
    quotes_per_day: 400,
    monthly_quote_share_percent: 75,
    upload_storage_bytes: 1_000_000,
  },
  max_slice_seconds: 90,
  show_cost_breakdown: true,
  contact: 'orders@shop.example · +1 555 0100',
  request_quote_above: { hours: 24, amount: null },
};

test('an offer goes through the editor unchanged: every field, order, default and preset setting', () => {
  const body = offerBody(draftFrom(OFFER));
  assert.deepEqual(validateOffer(body), []);
  assert.deepEqual(body, OFFER);
  assert.deepEqual(normalizeOffer(body), OFFER);
});

test('breaks and delivery options typed in their rows reach the API as typed, so its rules name the row', () => {
  const draft = draftFrom(OFFER);
  const [first, second] = draft.quantityBreaks;
  assert.ok(first && second);
  first.percent = '5 %';
  second.quantity = 'fifty';
  const [standard, express] = draft.leadTimes;
  assert.ok(standard && express);
  express.days = 'soon';
  draft.leadTimes.reverse();
  const body = offerBody(draft);
  assert.deepEqual(body.quantity_breaks, [
    { min_quantity: 10, discount_percent: 5 },
    { min_quantity: 'fifty', discount_percent: 12.5 },
  ]);
  assert.deepEqual(
    (body.lead_times as { id: string }[]).map((o) => o.id),
    ['express', 'standard'],
    'in the rows’ order',
  );
  assert.equal(body.default_lead_time, 'standard', 'the preselected option follows its row');
  const issues = draftIssues(draft);
  assert.deepEqual(
    issues.map((i) => i.field),
    ['quantity_breaks.1.min_quantity', 'lead_times.0.business_days'],
  );
  const words = issues.map((i) => `${fieldLabel(i.field, draft)} ${i.message}`);
  assert.deepEqual(words, [
    'Break 2: quantity must be a whole number of pieces from 2 to 100000',
    'Delivery option 1 “Express · 48 h”: business days must be a whole number from 0 to 365',
  ]);
});

test('a break not above the one before it is named by its row; empty surcharges are none', () => {
  const draft = draftFrom(OFFER);
  const [, second] = draft.quantityBreaks;
  assert.ok(second);
  second.quantity = '10';
  const [issue] = draftIssues(draft);
  assert.ok(issue);
  assert.equal(
    `${fieldLabel(issue.field, draft)} ${issue.message}`,
    'Break 2: quantity must be larger than the break before it',
  );
  const [standard] = draft.leadTimes;
  assert.ok(standard);
  standard.percent = '';
  standard.amount = ' ';
  const [first] = offerBody(draft).lead_times as { surcharge_percent: number; surcharge_amount: number }[];
  assert.deepEqual([first?.surcharge_percent, first?.surcharge_amount], [0, 0]);
  draft.leadTimes = [];
  assert.equal(offerBody(draft).default_lead_time, null, 'no option, none preselected');
});

test('a default follows its row: renaming the preselected quality keeps it preselected', () => {
  const draft = draftFrom(OFFER);
  const [, strong] = draft.qualities;
  assert.ok(strong);
  strong.id = 'sturdy';
  draft.qualities.reverse();
  const body = offerBody(draft);
  assert.equal(body.default_quality, 'sturdy');
  assert.deepEqual(draftIssues(draft), []);
});

test('text that is not a number reaches the API rules as typed, which name the field', () => {
  const draft = draftFrom(OFFER);
  const [draftQuality] = draft.qualities;
  const [, infill] = draft.infill;
  assert.ok(draftQuality && infill);
  infill.value = 'twenty';
  draft.quantityMax = '1.5';
  draft.minimumLinePrice = '-1';
  draftQuality.settings.layer_height = 'thin';
  const fields = Object.fromEntries(draftIssues(draft).map((i) => [i.field, i.message]));
  assert.equal(fields['infill_options.1'], 'must be a percentage from 0 to 100');
  assert.equal(fields['quantity.max'], 'must be an integer from 1 to 100000');
  assert.equal(fields.minimum_line_price, 'must be null or an amount from 0 to 1000000');
  assert.equal(fields['qualities.0.printer_config.layer_height'], 'must be a finite number');
  assert.equal(draftOffer(draft), null, 'no preview from an invalid draft');
});

test('empty optional fields are null, and the preset fields left empty are not sent', () => {
  const draft = draftFrom(OFFER);
  draft.minimumPrice = ' ';
  draft.leadTime = '   ';
  const [draftQuality] = draft.qualities;
  assert.ok(draftQuality);
  draftQuality.settings.layer_height = '';
  const body = offerBody(draft);
  assert.deepEqual([body.minimum_price, body.lead_time], [null, null]);
  assert.deepEqual((body.qualities as Offer['qualities'])[0]?.printer_config, {});
});

test('field paths become element ids and words', () => {
  const draft = draftFrom(OFFER);
  assert.equal(fieldId('materials.0.colors.1'), 'of-materials-0-colors-1');
  assert.equal(fieldLabel('materials.0.colors.1', draft), 'PLA, colour 2');
  assert.equal(fieldLabel('materials.1.material', draft), 'PETG');
  assert.equal(fieldLabel('qualities.0.printer_config.layer_height', draft), 'Quality “Draft · 0.3 mm”, Layer height');
  assert.equal(fieldLabel('qualities.1.printer_config', draft), 'Quality “Strong”, slicing settings');
  assert.equal(fieldLabel('quantity.max', draft), 'Maximum quantity');
});

test("a new preset's id follows its label in a form the API accepts", () => {
  assert.equal(idFromLabel('Fine · 0.1 mm'), 'fine-0-1-mm');
  assert.equal(idFromLabel('Très fin, 4 Wände'), 'tres-fin-4-wande');
  assert.equal(idFromLabel('  ·  '), '');
  for (const label of ['Fine · 0.1 mm', 'x'.repeat(80), '-- Über-strong --']) {
    const draft = draftFrom(OFFER);
    const [draftQuality] = draft.qualities;
    assert.ok(draftQuality);
    draftQuality.id = idFromLabel(label);
    assert.equal(draftIssues(draft).filter((i) => i.field === 'qualities.0.id').length, 0, label);
  }
});

const profile = (p: Partial<Profile> & Pick<Profile, 'kind' | 'name' | 'scope'>): Profile => ({
  profile_id: p.name,
  is_default: false,
  settings: {},
  created_at: '',
  updated_at: '',
  ...p,
});

test('the materials an offer may name: yours hide the global one of that name; only priced ones can be added', () => {
  const choices = materialChoices([
    profile({ kind: 'material', name: 'PLA', scope: 'global', settings: { price_per_kg: 25, colors: ['White'] } }),
    profile({ kind: 'material', name: 'pla', scope: 'account', settings: { color: 'Graphite' } }),
    profile({ kind: 'material', name: 'Resin-ish', scope: 'account', settings: {} }),
    profile({ kind: 'material', name: 'PETG', scope: 'global', settings: { price_per_gram: 0.03 } }),
  ]);
  assert.deepEqual(choices, [
    { name: 'pla', own: true, colors: ['Graphite'], priced: true },
    { name: 'Resin-ish', own: true, colors: [], priced: false },
    { name: 'PETG', own: false, colors: [], priced: true },
  ]);
});

test('the printer values presets inherit are resolved field by field as the server does', () => {
  const defaults = { is_default: true };
  const printers = [
    profile({ ...defaults, kind: 'printer', name: 'Mine', scope: 'account', settings: { layer_height: 0.15 } }),
    profile({
      ...defaults,
      kind: 'printer',
      name: 'G',
      scope: 'global',
      settings: { perimeters: 3, layer_height: 0.2 },
    }),
  ];
  const settings = { max_layer_height: 0.25, currency: 'EUR' };
  const globals = [profile({ ...defaults, kind: 'global', name: 'Mine', scope: 'account', settings })];
  const base = printerBaseline(printers, globals);
  const picked = [base.layer_height, base.max_layer_height, base.perimeters, base.print_speed];
  assert.deepEqual(picked, [0.15, 0.25, 3, DEFAULT_SETTINGS.printer.print_speed]);
  assert.equal(base.currency, undefined, 'only the layer heights of global settings are printer values');
});

// Print presets as the offer's qualities (docs/profiles.md, "Print presets as qualities"): the print presets a
// merchant picks for its printer are what a shopper chooses between, each sliced with its own preset; a saved
// offer may name them; a profile a quality slices with is not deleted from under it.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type EstimateSettings, extractFeatures } from '../../shared/estimate/index.ts';
import { parseModel } from '../../shared/model/index.ts';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { type ApiClient, merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';
import { widgetShopper } from '../helpers/shopper.ts';
import { vendorFlatOptions } from '../helpers/vendor-preset.ts';

const PRINTER = 'Original Prusa i3 MK3S & MK3S+';
const FILAMENT = 'Prusament PLA';
// The first print is the printer's default profile, so its quality is the default one.
const PRINTS = ['0.20mm QUALITY @MK3', '0.15mm QUALITY @MK3', '0.30mm DRAFT @MK3'];
const SHOP = 'https://presets-shop.example';

let server: TestServer;
let api: ApiClient;
let other: ApiClient;
let imported: { profiles: { id: string; kind: string; name: string }[]; qualities: Quality[] };

interface Quality {
  id: string;
  label: string;
  printer_config: Record<string, unknown>;
  printer_profile?: string;
}

const profileOf = (print: string) => imported.profiles.find((p) => p.name === `${PRINTER} — ${print}`)!.id;

before(async () => {
  server = await startTestServer();
  api = server.client((await server.newAccount()).token);
  other = server.client((await server.newAccount()).token);
  const library = { vendor: 'PrusaResearch', printer: PRINTER, prints: PRINTS, filaments: [FILAMENT] };
  const res = await api.post('/v2/profiles/import', { library, default: true });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  imported = res.body;
});
after(() => server.stop());

async function quoteWith(choices: Record<string, unknown>) {
  const upload = await api.uploadBytes('/v2/file', new TextEncoder().encode(CUBE_OBJ), 'cube.obj');
  assert.equal(upload.status, 201, JSON.stringify(upload.body));
  const q = await api.post(`/v2/file/quote/${upload.body.file_id}`, { choices: { material: FILAMENT, ...choices } });
  assert.equal(q.status, 200, JSON.stringify(q.body));
  return q.body;
}

test('the picked print presets are the qualities, named as in PrusaSlicer, thickest layers first', async () => {
  assert.deepEqual(imported.qualities, [
    { id: '0-30mm-draft', label: '0.30mm DRAFT', printer_config: {}, printer_profile: profileOf(PRINTS[2]!) },
    { id: '0-20mm-quality', label: '0.20mm QUALITY', printer_config: {}, printer_profile: profileOf(PRINTS[0]!) },
    { id: '0-15mm-quality', label: '0.15mm QUALITY', printer_config: {}, printer_profile: profileOf(PRINTS[1]!) },
  ]);
  const offer = await api.get('/v2/offer');
  assert.equal(offer.body.source, 'default');
  assert.deepEqual(offer.body.qualities, imported.qualities, 'the derived offer offers them');
  assert.equal(offer.body.default_quality, '0-20mm-quality', "the default printer profile's preset");
  assert.ok(
    offer.body.materials.some((m: { material: string }) => m.material === FILAMENT),
    'the picked filament is sold',
  );
  const widget = await api.get('/v2/widget/config');
  assert.deepEqual(
    widget.body.qualities.map((q: { label: string; layer_height: number }) => `${q.label}: ${q.layer_height}`),
    ['0.30mm DRAFT: 0.3', '0.20mm QUALITY: 0.2', '0.15mm QUALITY: 0.15'],
    "the widget shows each preset's own layer height",
  );
  const again = await api.post('/v2/profiles/import', {
    library: { vendor: 'PrusaResearch', printer: PRINTER, prints: PRINTS, filaments: [FILAMENT] },
    default: true,
  });
  assert.deepEqual(again.body.qualities, imported.qualities, 'importing again keeps the same qualities');
});

test("each quality slices with its own preset's settings and options", async () => {
  const fine = await quoteWith({ quality: '0-15mm-quality' });
  const draft = await quoteWith({ quality: '0-30mm-draft' });
  assert.equal(fine.choices.quality_label, '0.15mm QUALITY');
  assert.equal(fine.settings.printer_config.layer_height, 0.15);
  assert.equal(draft.settings.printer_config.layer_height, 0.3);
  assert.match(fine.setting_sources['printer_config.layer_height'], new RegExp(`^profile:${profileOf(PRINTS[1]!)}`));
  assert.match(fine.setting_sources['slicer.layer_height'], new RegExp(`^profile:${profileOf(PRINTS[1]!)} `));
  assert.match(draft.setting_sources['slicer.layer_height'], new RegExp(`^profile:${profileOf(PRINTS[2]!)} `));
  assert.ok(
    draft.print_stats.print_time_s < fine.print_stats.print_time_s,
    `draft ${draft.print_stats.print_time_s} s, quality ${fine.print_stats.print_time_s} s`,
  );
});

test("the widget's estimate follows each preset's own speeds, not one print speed", async () => {
  const widget = await api.get('/v2/widget/config');
  assert.equal(widget.status, 200, JSON.stringify(widget.body));
  const presets: [label: string, print: string][] = [
    ['0.30mm DRAFT', PRINTS[2]!],
    ['0.20mm QUALITY', PRINTS[0]!],
  ];
  for (const [label, print] of presets) {
    const preset = vendorFlatOptions({ printer: PRINTER, print, filament: FILAMENT }, server.deps.config.slicerBinary);
    const quality = widget.body.qualities.find((q: { label: string }) => q.label === label);
    const motion = quality.slice_settings.motion;
    assert.equal(motion.perimeter_mm_s, Number(preset.perimeter_speed), `${label}: perimeters`);
    assert.equal(motion.infill_mm_s, Number(preset.infill_speed), `${label}: infill`);
    assert.equal(motion.external_perimeter_mm_s, Number(preset.external_perimeter_speed), `${label}: external`);
    assert.ok(motion.external_perimeter_mm_s < motion.infill_mm_s, `${label}: the outer wall is slower than infill`);
  }
  assert.deepEqual(
    widget.body.slice_settings.motion,
    widget.body.qualities.find((q: { label: string }) => q.label === '0.20mm QUALITY').slice_settings.motion,
    "the default choices' settings are the default preset's",
  );
});

test("a shopper's estimate on the shop's printer: slower for its slower walls, with a range no residual has narrowed", async () => {
  const shop = await merchantShop(server, 'presets-widget@example.com', SHOP);
  const library = { vendor: 'PrusaResearch', printer: PRINTER, prints: [PRINTS[0]!], filaments: [FILAMENT] };
  assert.equal((await shop.api.post('/v2/profiles/import', { library, default: true })).status, 201);
  const shopper = widgetShopper(server, shop.key, SHOP);
  const published: EstimateSettings = (await shopper.get('/v2/widget/config')).body.slice_settings;
  assert.ok(published.motion, "the shop's own speeds are published");
  const mesh = parseModel(new TextEncoder().encode(CUBE_OBJ), 'obj').mesh;
  const priced = async (settings: EstimateSettings) => {
    const res = await shopper.post('/v2/widget/estimate', { features: extractFeatures(mesh, settings) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.estimate;
  };
  const own = await priced(published);
  const oneSpeed = await priced({ printer: published.printer, material: published.material });
  assert.ok(
    own.estimated_time_seconds > oneSpeed.estimated_time_seconds,
    `${own.estimated_time_seconds} s with its 45/25 mm/s walls, ${oneSpeed.estimated_time_seconds} s read as one speed`,
  );
  const [lo, hi] = own.time_range;
  const t = own.estimated_time_seconds;
  assert.ok(hi - t >= 0.39 * t && t - lo >= 0.39 * t, `time range ${lo}–${hi} s around ${t} s`);
  assert.equal(own.calibration, 'shipped');
});

test('a saved offer may name a printer profile per quality; only the account’s own', async () => {
  const offer = (await api.get('/v2/offer')).body;
  const { source: _source, ...body } = offer;
  const withPlain = {
    ...body,
    qualities: [
      ...imported.qualities.slice(1),
      { id: 'strong', label: 'Strong', printer_config: { perimeters: 4 }, printer_profile: profileOf(PRINTS[0]!) },
    ],
    default_quality: 'strong',
  };
  const saved = await api.put('/v2/offer', withPlain);
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  assert.equal(saved.body.source, 'account');
  assert.deepEqual(saved.body.qualities, withPlain.qualities);

  const theirs = await other.post('/v2/profiles/import', {
    library: { vendor: 'PrusaResearch', printer: PRINTER, prints: [PRINTS[0]], filaments: [] },
  });
  assert.equal(theirs.status, 201, JSON.stringify(theirs.body));
  const cases: [unknown, number][] = [
    ['prof_nosuchprofile', 422],
    [theirs.body.profiles[0].id, 422],
    ['prof_global_printer', 422],
    ['not a profile id', 400],
  ];
  for (const [id, status] of cases) {
    const qualities = [{ id: 'x', label: 'X', printer_config: {}, printer_profile: id }];
    const res = await api.put('/v2/offer', { ...body, qualities, default_quality: 'x' });
    assert.equal(res.status, status, `${id}: ${JSON.stringify(res.body)}`);
    assert.deepEqual(
      res.body.error.details.fields.map((f: { field: string }) => f.field),
      ['qualities.0.printer_profile'],
    );
  }
});

test('a printer profile a quality slices with is not deleted until the offer lets it go', async () => {
  const used = profileOf(PRINTS[0]!);
  const refused = await api.delete(`/v2/profiles/printer/${used}`);
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.equal(refused.body.error.code, 'profile_in_use');
  assert.match(refused.body.error.message, /"0\.20mm QUALITY"/);
  const { source: _source, ...body } = (await api.get('/v2/offer')).body;
  const without = body.qualities.filter((q: Quality) => q.printer_profile !== used);
  const put = await api.put('/v2/offer', { ...body, qualities: without, default_quality: without[0].id });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.equal((await api.delete(`/v2/profiles/printer/${used}`)).status, 200);
});

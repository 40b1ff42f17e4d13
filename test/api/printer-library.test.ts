// The printer library: PrusaSlicer's installed vendor bundles as vendors → printers → compatible presets, as a
// merchant picking their printer sees them, and a pick flattened to the values the bundle implies.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ApiError } from '../../server/http/index.ts';
import { libraryPick, resolveConfigBundle } from '../../server/printer-library/index.ts';
import { type ApiClient, merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';

const SHOP = 'https://library-shop.example';
const MK3S = 'Original Prusa i3 MK3S & MK3S+';
const ENDER3 = 'Creality Ender-3 (0.4 mm nozzle)';
let server: TestServer;
let api: ApiClient;
let dashboard: ApiClient;
let key: string;

before(async () => {
  server = await startTestServer();
  ({ api, dashboard, key } = await merchantShop(server, 'library-shop@example.test', SHOP));
});
after(() => server.stop());

const printerOf = (body: any, vendor: string, name: string) =>
  body.vendors.find((v: any) => v.id === vendor)?.printers.find((p: any) => p.name === name);

test('Prusa Research: the MK3S with a 0.4 mm nozzle lists its own prints and Prusament PLA, not another printer’s', async () => {
  const res = await api.get('/v2/profiles/library?vendor=PrusaResearch');
  assert.equal(res.status, 200);
  assert.match(res.body.slicer_version, /^\d+\.\d+\.\d+$/);
  assert.deepEqual(
    res.body.vendors.map((v: any) => v.name),
    ['Prusa Research'],
  );
  const mk3s = printerOf(res.body, 'PrusaResearch', MK3S);
  assert.equal(mk3s.model_id, 'MK3S');
  assert.equal(mk3s.nozzle_diameter, 0.4);
  assert.ok(mk3s.prints.includes('0.20mm QUALITY @MK3'));
  assert.ok(mk3s.filaments.includes('Prusament PLA'));
  assert.ok(!mk3s.prints.includes('0.20mm QUALITY @MINI'), 'a MINI print is not offered for the MK3S');
  assert.ok(!mk3s.prints.includes('0.25mm DRAFT @0.6 nozzle'), 'a 0.6 mm nozzle print is not offered for 0.4 mm');
  assert.ok(!mk3s.prints.some((name: string) => name.startsWith('*')), 'abstract presets are never offered');
  const mini = printerOf(res.body, 'PrusaResearch', 'Original Prusa MINI & MINI+');
  assert.ok(mini.prints.includes('0.20mm QUALITY @MINI'));
  assert.ok(!mini.prints.includes('0.20mm QUALITY @MK3'));
  const names = res.body.vendors[0].printers.map((p: any) => p.name);
  assert.ok(!names.some((n: string) => n.includes('SL1')), 'SLA printers are not in the library');
});

test('Creality: the Ender-3 with a 0.4 mm nozzle lists the 0.4 mm CREALITY prints, by name or id in any case', async () => {
  const res = await dashboard.get('/v2/profiles/library?vendor=creality');
  assert.equal(res.status, 200);
  const ender = printerOf(res.body, 'Creality', ENDER3);
  assert.equal(ender.nozzle_diameter, 0.4);
  assert.ok(ender.prints.includes('0.20 mm NORMAL (0.4 mm nozzle) @CREALITY'));
  assert.ok(!ender.prints.includes('0.20 mm NORMAL (0.5 mm nozzle) @CREALITY'));
  assert.ok(ender.filaments.length > 0);
  const byName = await api.get('/v2/profiles/library?vendor=CREALITY');
  assert.deepEqual(byName.body, res.body);
});

test('without a vendor: every vendor and printer, without the preset lists', async () => {
  const res = await api.get('/v2/profiles/library');
  assert.equal(res.status, 200);
  const ids = res.body.vendors.map((v: any) => v.id);
  assert.ok(ids.includes('PrusaResearch') && ids.includes('Creality'));
  const mk3s = printerOf(res.body, 'PrusaResearch', MK3S);
  assert.equal(mk3s.prints, undefined);
  assert.equal(mk3s.filaments, undefined);
});

test('an unknown vendor is a 400 naming vendor', async () => {
  const res = await api.get('/v2/profiles/library?vendor=NoSuchVendor');
  assert.equal(res.status, 400);
  assert.equal(res.body.error.details.fields[0].field, 'vendor');
});

test('no credentials: 401; a widget key: refused', async () => {
  assert.equal((await server.client().get('/v2/profiles/library')).status, 401);
  const widget = await server.client().get('/v2/profiles/library', { 'x-widget-key': key, origin: SHOP });
  assert.equal(widget.status, 403);
});

test('libraryPick: MK3S + 0.20mm QUALITY @MK3 + Prusament PLA, flattened through the inherits chains', async () => {
  const set = await libraryPick(server.deps, {
    vendor: 'PrusaResearch',
    printer: MK3S,
    prints: ['0.20mm QUALITY @MK3'],
    filaments: ['Prusament PLA'],
  });
  assert.equal(set.printer?.name, MK3S);
  const print = set.prints[0]!;
  // Its own value, then values from each of its parents `*0.20mm*; *MK3*` and theirs (`*common*`).
  assert.equal(print.options.external_perimeter_speed, '25');
  assert.equal(print.sources.external_perimeter_speed, '0.20mm QUALITY @MK3');
  assert.equal(print.options.layer_height, '0.2');
  assert.equal(print.sources.layer_height, '*0.20mm*');
  assert.equal(print.sources.perimeters, '*common*');
  assert.equal(print.options.inherits, undefined);
  const pla = set.filaments[0]!;
  assert.equal(pla.options.temperature, '215');
  assert.equal(pla.sources.temperature, 'Prusament PLA');
  assert.equal(pla.sources.filament_type, '*PLA*');
  assert.equal(set.printer?.options.printer_model, 'MK3S');
  assert.equal(set.printer?.options.nozzle_diameter, '0.4');
});

test('libraryPick refuses unknown and incompatible names with a 400 naming the field', async () => {
  const pick = { vendor: 'PrusaResearch', printer: MK3S, prints: ['0.20mm QUALITY @MK3'], filaments: [] };
  const cases: [object, string][] = [
    [{ vendor: 'Nope' }, 'library.vendor'],
    [{ printer: 'Original Prusa i9' }, 'library.printer'],
    [{ prints: ['0.20mm QUALITY @MK3', '0.20mm QUALITY @MINI'] }, 'library.prints[1]'],
    [{ prints: ['*0.20mm*'] }, 'library.prints[0]'],
    [{ filaments: ['No Such PLA'] }, 'library.filaments[0]'],
  ];
  for (const [change, field] of cases) {
    await assert.rejects(libraryPick(server.deps, { ...pick, ...change }), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, 400);
      assert.equal((err.details as any).fields[0].field, field);
      return true;
    });
  }
});

test('a changed profiles folder is read again; a broken bundle is skipped; no slicer: no version', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sq-profiles-'));
  const other = await startTestServer({
    PRUSA_SLICER_PROFILES_DIR: dir,
    PRUSA_SLICER_BIN: path.join(dir, 'no-slicer'),
  });
  try {
    const token = (await other.newAccount()).token;
    const client = other.client(token);
    assert.deepEqual((await client.get('/v2/profiles/library')).body, { slicer_version: null, vendors: [] });
    writeFileSync(path.join(dir, 'Tiny.ini'), TINY);
    writeFileSync(
      path.join(dir, 'Loop.ini'),
      `${TINY}\n[print:*a*]\ninherits = *b*\n[print:*b*]\ninherits = *a*\n[print:x]\ninherits = *a*\n`,
    );
    const res = await client.get('/v2/profiles/library?vendor=Tiny');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.vendors[0].printers, [
      {
        name: 'Tiny 0.4',
        model: 'Tiny One',
        model_id: 'T1',
        nozzle_diameter: 0.4,
        prints: ['Fine'],
        filaments: ['PLA'],
      },
    ]);
    assert.equal(res.body.vendors[0].unsupported_conditions, 1);
    const all = await client.get('/v2/profiles/library');
    assert.deepEqual(
      all.body.vendors.map((v: any) => v.id),
      ['Tiny'],
      'the bundle with an inherits loop is skipped',
    );
  } finally {
    await other.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

const TINY = `[vendor]
name = Tiny
config_version = 1.0.0

[printer_model:T1]
name = Tiny One
variants = 0.4
technology = FFF

[printer:*common*]
printer_model = T1
printer_notes = PRINTER_VENDOR_TINY
nozzle_diameter = 0.4

[printer:Tiny 0.4]
inherits = *common*
printer_variant = 0.4

[printer:Tiny Resin]
inherits = *common*
printer_variant = 0.05

[print:Fine]
compatible_printers_condition = printer_notes=~/.*TINY.*/ and nozzle_diameter[0]==0.4

[print:Coarse]
compatible_printers_condition = nozzle_diameter[0]==0.6

[print:Odd]
compatible_printers_condition = layer_height * 2 > 1

[filament:PLA]
compatible_printers = "Tiny 0.4"

[filament:PETG]
compatible_printers = "Other printer"
`;

test("a user's config bundle resolves off the event loop; a loop in it is a 400 naming the preset", async () => {
  const { set, ignored } = await resolveConfigBundle(
    '[print:*base*]\nperimeters = 3\n[print:Shop fine]\ninherits = *base*\nlayer_height = 0.1\n[printer:Shop MK3S]\ninherits = Original Prusa i3 MK3S & MK3S+\nnozzle_diameter = 0.4\n',
  );
  assert.equal(set.printer?.name, 'Shop MK3S');
  // A shop's preset made from a system preset the bundle does not carry keeps its own saved values.
  assert.deepEqual(set.printer?.options, { nozzle_diameter: '0.4' });
  assert.deepEqual(
    ignored.map((note) => note.key),
    ['inherits'],
  );
  assert.match(ignored[0]!.reason, /Original Prusa i3 MK3S & MK3S\+/);
  assert.deepEqual(set.prints, [
    {
      name: 'Shop fine',
      options: { layer_height: '0.1', perimeters: '3' },
      sources: { layer_height: 'Shop fine', perimeters: '*base*' },
    },
  ]);
  await assert.rejects(resolveConfigBundle('[print:a]\ninherits = b\n[print:b]\ninherits = a\n'), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 400);
    assert.equal(err.code, 'bundle_inherits_loop');
    assert.equal((err.details as any).preset, 'a');
    return true;
  });
});

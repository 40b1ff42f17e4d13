// Importing a shop's own slicer config (docs/profiles.md): a flat PrusaSlicer export of a vendor preset quotes
// what the bare PrusaSlicer gives with that same file; a project 3MF's config and an Orca preset import with
// what they could not carry listed; post_process never runs, print-host keys are never stored nor echoed;
// hostile configs are 4xx naming the key; another account's imported profile is not found.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseGcodeFile } from '../../server/slicer/gcode-stats.ts';
import { CUBE_OBJ, T_SHAPE_OBJ } from '../helpers/meshes.ts';
import { type ApiClient, merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';
import { flatIni, vendorFlatOptions } from '../helpers/vendor-preset.ts';

const PICK = { printer: 'Original Prusa i3 MK3S & MK3S+', print: '0.20mm QUALITY @MK3', filament: 'Prusament PLA' };
const PRINTER_PROFILE = `${PICK.printer} — ${PICK.print}`;
const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'prusaslicer');

let server: TestServer;
let api: ApiClient;
let other: ApiClient;
let dir: string;
let shop: Record<string, string>;

before(async () => {
  server = await startTestServer();
  api = server.client((await server.newAccount()).token);
  other = server.client((await server.newAccount()).token);
  dir = mkdtempSync(path.join(tmpdir(), 'sq-import-'));
  shop = vendorFlatOptions(PICK, server.deps.config.slicerBinary);
});
after(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

function importFile(client: ApiClient, text: string | Uint8Array, name: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.append(
    'file',
    new Blob([(typeof text === 'string' ? new TextEncoder().encode(text) : text) as Uint8Array<ArrayBuffer>]),
    name,
  );
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return client.request('POST', '/v2/profiles/import', { form });
}

/** The bare slicer of the same binary with the same .ini on the same mesh: grams (from its filament length and
 *  the file's own diameter and density) and seconds. */
async function bareSlice(ini: string, obj: string) {
  const work = mkdtempSync(path.join(dir, 'bare-'));
  writeFileSync(path.join(work, 'config.ini'), ini);
  writeFileSync(path.join(work, 'part.obj'), obj);
  const out = path.join(work, 'out.gcode');
  execFileSync(
    server.deps.config.slicerBinary,
    [
      '--loglevel',
      '1',
      '--datadir',
      path.join(work, 'data'),
      '--export-gcode',
      '--load',
      'config.ini',
      '--output',
      out,
      'part.obj',
    ],
    { cwd: work, env: { PATH: process.env.PATH, HOME: work, LC_ALL: 'C' }, stdio: 'ignore' },
  );
  const diameter = Number(shop.filament_diameter);
  const measure = await parseGcodeFile(out, { filamentDiameter: diameter });
  return { grams: (measure.extruded_volume_mm3 * Number(shop.filament_density)) / 1000, seconds: measure.print_time_s };
}

async function quote(client: ApiClient, obj: string, body: Record<string, unknown>) {
  const upload = await client.uploadBytes('/v2/file', new TextEncoder().encode(obj), 'part.obj');
  assert.equal(upload.status, 201, JSON.stringify(upload.body));
  return client.post(`/v2/file/quote/${upload.body.file_id}`, body);
}

test('a flat PrusaSlicer export of a vendor preset quotes within 0.5 % (weight) and 1 % (time) of the bare slicer', async (t) => {
  const ini = flatIni(shop);
  const res = await importFile(api, ini, 'MK3S.ini', { default: 'true', keep_custom_gcode: 'true' });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.deepEqual(
    res.body.profiles.map((p: { kind: string; name: string }) => `${p.kind}:${p.name}`),
    [`printer:${PRINTER_PROFILE}`, `material:${PICK.filament}`],
  );
  const printer = await api.get(`/v2/profiles/printer/${res.body.profiles[0].id}`);
  assert.equal(printer.body.is_default, true);
  assert.equal(printer.body.settings.layer_height, 0.2);
  assert.deepEqual([printer.body.settings.bed_size_x, printer.body.settings.bed_size_y], [250, 210]);
  assert.equal(printer.body.slicer_options.perimeters, shop.perimeters);
  assert.equal(printer.body.slicer_options.start_gcode, shop.start_gcode, 'kept on request');
  assert.ok(res.body.kept_custom_gcode.includes('start_gcode'), `the answer names it: ${res.body.kept_custom_gcode}`);
  assert.ok(res.body.kept_custom_gcode.includes('end_gcode'));
  assert.ok(!res.body.ignored.some((n: { key: string }) => n.key === 'start_gcode'), 'kept, so not ignored');
  assert.equal(printer.body.slicer_sources.layer_height, PICK.print);
  const material = await api.get(`/v2/profiles/material/${res.body.profiles[1].id}`);
  assert.equal(material.body.settings.density, 1.24);
  assert.equal(
    material.body.settings.price_per_kg,
    Number(shop.filament_cost),
    'the config’s cost, as no price was set',
  );

  for (const [name, obj] of [
    ['cube', CUBE_OBJ],
    ['T shape', T_SHAPE_OBJ],
  ] as const) {
    const q = await quote(api, obj, { material_config: { filament_type: PICK.filament } });
    assert.equal(q.status, 200, JSON.stringify(q.body));
    assert.match(q.body.setting_sources['slicer.layer_height'], new RegExp(`\\(${PICK.print}\\)$`));
    assert.match(q.body.setting_sources['slicer.filament_density'], new RegExp(`\\(${PICK.filament}\\)$`));
    const bare = await bareSlice(ini, obj);
    const { filament_weight_g: grams, print_time_s: seconds } = q.body.print_stats;
    t.diagnostic(`${name}: quote ${grams} g ${seconds} s; bare slicer ${bare.grams.toFixed(3)} g ${bare.seconds} s`);
    assert.ok(Math.abs(grams - bare.grams) / bare.grams <= 0.005, `${name}: ${grams} g, bare slicer ${bare.grams} g`);
    assert.ok(Math.abs(seconds - bare.seconds) / bare.seconds <= 0.01, `${name}: ${seconds} s, bare ${bare.seconds} s`);
  }

  // A request's explicit setting is written over the shop's options; the rest stays the shop's.
  const denser = await quote(api, CUBE_OBJ, {
    material_config: { filament_type: PICK.filament },
    printer_config: { fill_density: 40 },
  });
  assert.equal(denser.status, 200, JSON.stringify(denser.body));
  const bareDenser = await bareSlice(flatIni({ ...shop, fill_density: '40%' }), CUBE_OBJ);
  const g = denser.body.print_stats.filament_weight_g;
  assert.ok(Math.abs(g - bareDenser.grams) / bareDenser.grams <= 0.005, `40 %: ${g} g, bare ${bareDenser.grams} g`);
});

test('custom G-code is dropped unless asked for, and listed as ignored with its reason', async () => {
  const res = await importFile(api, flatIni({ ...shop, printer_settings_id: 'No G-code printer' }), 'x.ini');
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const ignored = new Map(res.body.ignored.map((n: { key: string; reason: string }) => [n.key, n.reason]));
  assert.match(String(ignored.get('start_gcode')), /keep_custom_gcode/);
  assert.match(String(ignored.get('temperature')), /allowlist/);
  assert.deepEqual(res.body.kept_custom_gcode, [], 'none kept without keep_custom_gcode');
  const printer = await api.get(`/v2/profiles/printer/${res.body.profiles[0].id}`);
  assert.equal(printer.body.slicer_options.start_gcode, undefined);
});

test('post_process never runs and print-host keys are neither stored nor echoed', async () => {
  const marker = path.join(dir, 'post-process-ran');
  const secret = 'sk_live_SECRET_4711';
  const ini = flatIni({
    ...shop,
    printer_settings_id: 'Hostile printer',
    post_process: `touch ${marker}`,
    printhost_apikey: secret,
    printhost_password: secret,
    print_host: `http://${secret}.example.test`,
    output_filename_format: '../../etc/[input_filename_base].gcode',
  });
  const res = await importFile(api, ini, 'hostile.ini', { default: 'true', keep_custom_gcode: 'true' });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.ok(!new TextDecoder().decode(res.raw).includes(secret), 'the answer never echoes the secret');
  assert.ok(!new TextDecoder().decode(res.raw).includes(marker), 'nor the command');
  const refused = res.body.refused.map((n: { key: string }) => n.key);
  for (const key of ['output_filename_format', 'post_process', 'print_host', 'printhost_apikey', 'printhost_password'])
    assert.ok(refused.includes(key), `${key} refused: ${refused}`);
  const rows = await server.deps.db.query<{ row: string }>(
    'SELECT row_to_json(p)::text AS row FROM profiles p WHERE id = $1',
    [res.body.profiles[0].id],
  );
  assert.ok(rows[0] && !rows[0].row.includes(secret) && !rows[0].row.includes('post_process'), 'never stored');
  const q = await quote(api, CUBE_OBJ, { material_config: { filament_type: PICK.filament } });
  assert.equal(q.status, 200, JSON.stringify(q.body));
  assert.equal(existsSync(marker), false, 'post_process never ran');
});

test("a project 3MF's config imports as the project's printer", async () => {
  const bytes = new Uint8Array(readFileSync(path.join(fixtures, 'cube-print-profile.3mf')));
  const res = await importFile(api, bytes, 'project.3mf');
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const printer = res.body.profiles.find((p: { kind: string }) => p.kind === 'printer');
  const got = await api.get(`/v2/profiles/printer/${printer.id}`);
  assert.equal(got.body.slicer_options.layer_height, '0.3');
  assert.equal(got.body.slicer_options.fill_density, '80%');
  assert.equal(got.body.settings.fill_density, 80);
});

test('an Orca preset is translated where PrusaSlicer has the same option; the rest, and its parent, are listed', async () => {
  const orca = {
    type: 'process',
    name: 'Fast walls',
    inherits: '0.20mm Standard @BBL X1C',
    from: 'User',
    layer_height: '0.2',
    wall_loops: '3',
    sparse_infill_density: '25%',
    outer_wall_speed: '120',
    sparse_infill_pattern: 'gyroid',
    ironing_type: 'no ironing',
    only_one_wall_top: '1',
    wall_generator: 'arachne',
    top_surface_pattern: 'zigzag-hilbert',
  };
  const res = await importFile(api, JSON.stringify(orca), 'fast.json');
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.deepEqual(
    res.body.profiles.map((p: { name: string }) => p.name),
    ['Fast walls'],
  );
  const ignored = res.body.ignored.map((n: { key: string }) => n.key).sort();
  assert.deepEqual(ignored, ['inherits', 'ironing_type', 'only_one_wall_top', 'top_surface_pattern']);
  assert.match(res.body.ignored.find((n: { key: string }) => n.key === 'inherits').reason, /BBL X1C.*does not have/);
  const got = await api.get(`/v2/profiles/printer/${res.body.profiles[0].id}`);
  assert.deepEqual(got.body.slicer_options, {
    layer_height: '0.2',
    perimeters: '3',
    fill_density: '25%',
    external_perimeter_speed: '120',
    fill_pattern: 'gyroid',
    perimeter_generator: 'arachne',
  });
  // A partial preset slices: its options over the service's mapping of the rest.
  const fresh = server.client((await server.newAccount()).token);
  assert.equal((await importFile(fresh, JSON.stringify(orca), 'fast.json', { default: 'true' })).status, 201);
  const q = await quote(fresh, CUBE_OBJ, { material_config: { filament_type: 'PLA' } });
  assert.equal(q.status, 200, JSON.stringify(q.body));
  assert.match(q.body.setting_sources['slicer.perimeters'], /\(Fast walls\)$/);
});

test('hostile configs are 4xx naming the key or field, and unknown keys are ignored', async () => {
  const bad = async (text: string, name: string, status: number, field: string) => {
    const res = await importFile(api, text, name);
    assert.equal(res.status, status, `${name}: ${JSON.stringify(res.body)}`);
    assert.ok(
      res.body.error.details.fields.some((f: { field: string }) => f.field === field),
      `${name}: ${JSON.stringify(res.body.error)}`,
    );
  };
  await bad('layer_height = 1e308\n', 'huge.ini', 400, 'layer_height');
  await bad('perimeters = 99999999999999999999\n', 'many.ini', 400, 'perimeters');
  await bad('fill_density = 20%\rpost_process = x\n', 'cr.ini', 400, 'fill_density');
  await bad('nozzle_diameter = NaN\n', 'nan.ini', 400, 'nozzle_diameter');
  await bad(JSON.stringify({ type: 'process', wall_loops: '3\n4' }), 'newline.json', 400, 'perimeters');
  await bad(`bed_shape = ${Array.from({ length: 500 }, () => '0x0').join(',')}\n`, 'bed.ini', 400, 'bed_shape');
  await bad(Array.from({ length: 100_000 }, (_, i) => `x${i}=1`).join('\n'), 'keys.ini', 413, 'file');
  await bad('#'.repeat(10 * 1024 * 1024), 'big.ini', 413, 'file');
  const library = await api.post('/v2/profiles/import', { library: { printer: PICK.printer } });
  assert.equal(library.status, 400);
  assert.equal(library.body.error.details.fields[0].field, 'library.vendor', 'a library pick names its vendor');

  const unknown = await importFile(api, 'printer_settings_id = Odd\nfrobnicate = 1\nlayer_height = 0.25\n', 'odd.ini');
  assert.equal(unknown.status, 201, JSON.stringify(unknown.body));
  assert.deepEqual(
    unknown.body.ignored.map((n: { key: string }) => n.key),
    ['frobnicate'],
  );
});

test("another account's imported profile is not found", async () => {
  const res = await importFile(api, flatIni({ ...shop, printer_settings_id: 'Private printer' }), 'p.ini');
  assert.equal(res.status, 201);
  const id = res.body.profiles[0].id;
  assert.equal((await other.get(`/v2/profiles/printer/${id}`)).status, 404);
  assert.equal((await api.get(`/v2/profiles/printer/${id}`)).status, 200);
});

test('a widget key may not import; the dashboard session may', async () => {
  const origin = 'https://shop.example.test';
  const shopAccount = await merchantShop(server, 'import-shop@example.test', origin);
  const form = () => {
    const f = new FormData();
    f.append(
      'file',
      new Blob([new TextEncoder().encode('printer_settings_id = Shop\nlayer_height = 0.2\n')]),
      'shop.ini',
    );
    return f;
  };
  const widget = server.client();
  const refused = await widget.request('POST', '/v2/profiles/import', {
    form: form(),
    headers: { 'x-widget-key': shopAccount.key, origin },
  });
  assert.ok([401, 403].includes(refused.status), `${refused.status}`);
  const own = await shopAccount.dashboard.request('POST', '/v2/profiles/import', { form: form() });
  assert.equal(own.status, 201, JSON.stringify(own.body));
});

test('importing a preset again replaces its options and keeps the price the merchant set', async () => {
  const ini = (cost: string) =>
    flatIni({
      ...shop,
      printer_settings_id: 'Again printer',
      filament_settings_id: '"Again PLA"',
      filament_cost: cost,
    });
  const first = await importFile(api, ini('20'), 'a.ini');
  assert.equal(first.status, 201, JSON.stringify(first.body));
  const material = first.body.profiles.find((p: { kind: string }) => p.kind === 'material');
  const got = await api.get(`/v2/profiles/material/${material.id}`);
  assert.equal(got.body.settings.price_per_kg, 20);
  const priced = await api.put(`/v2/profiles/material/${material.id}`, {
    name: 'Again PLA',
    settings: { ...got.body.settings, price_per_kg: 55, color: 'Galaxy Black' },
  });
  assert.equal(priced.status, 200, JSON.stringify(priced.body));
  const again = await importFile(api, ini('30'), 'a.ini');
  assert.equal(again.status, 201, JSON.stringify(again.body));
  assert.equal(again.body.profiles.find((p: { kind: string }) => p.kind === 'material').id, material.id);
  const after = await api.get(`/v2/profiles/material/${material.id}`);
  assert.equal(after.body.settings.price_per_kg, 55, 'the merchant’s price, not the config’s cost');
  assert.equal(after.body.settings.color, 'Galaxy Black');
  assert.equal(after.body.slicer_options.filament_cost, '30');
});

test('a printer picked from the library quotes like the bare slicer with the same vendor presets', async (t) => {
  const picker = server.client((await server.newAccount()).token);
  const library = { vendor: 'PrusaResearch', printer: PICK.printer, prints: [PICK.print], filaments: [PICK.filament] };
  const res = await picker.post('/v2/profiles/import', { library, default: true, keep_custom_gcode: true });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.deepEqual(
    res.body.profiles.map((p: { kind: string; name: string }) => `${p.kind}:${p.name}`),
    [`printer:${PRINTER_PROFILE}`, `material:${PICK.filament}`],
  );
  const printer = (await picker.get(`/v2/profiles/printer/${res.body.profiles[0].id}`)).body;
  assert.equal(printer.slicer_options.perimeters, shop.perimeters, "the vendor's walls");
  const material = (await picker.get(`/v2/profiles/material/${res.body.profiles[1].id}`)).body;
  for (const block of res.body.kept_custom_gcode) {
    const options = block.endsWith('_filament_gcode') ? material.slicer_options : printer.slicer_options;
    assert.ok(options[block] !== undefined, `${block} named as kept is in the imported profile`);
  }
  assert.ok(res.body.kept_custom_gcode.includes('start_gcode'), "the vendor's start G-code is kept");
  assert.equal(printer.slicer_sources.layer_height, '*0.20mm*', 'the preset of its chain that set it');
  const q = await quote(picker, CUBE_OBJ, { material_config: { filament_type: PICK.filament } });
  assert.equal(q.status, 200, JSON.stringify(q.body));
  const bare = await bareSlice(flatIni(shop), CUBE_OBJ);
  const { filament_weight_g: grams, print_time_s: seconds } = q.body.print_stats;
  t.diagnostic(`library pick: quote ${grams} g ${seconds} s; bare slicer ${bare.grams.toFixed(3)} g ${bare.seconds} s`);
  assert.ok(Math.abs(grams - bare.grams) / bare.grams <= 0.005, `${grams} g, bare slicer ${bare.grams} g`);
  assert.ok(Math.abs(seconds - bare.seconds) / bare.seconds <= 0.01, `${seconds} s, bare ${bare.seconds} s`);

  const unknown = await picker.post('/v2/profiles/import', { library: { ...library, printer: 'No such printer' } });
  assert.equal(unknown.status, 400);
  assert.match(JSON.stringify(unknown.body.error), /library\.printer/);
  const malformed = await picker.post('/v2/profiles/import', { library: { vendor: 'PrusaResearch' } });
  assert.equal(malformed.status, 400, 'the printer is required');
});

test('a config bundle imports with its inherits applied; a parent it does not carry is listed, its loops refused', async () => {
  const bundle = [
    '[print:*shop base*]',
    'perimeters = 4',
    'fill_density = 25%',
    '[print:Shop strong]',
    'inherits = *shop base*',
    'layer_height = 0.25',
    '[filament:Shop PETG]',
    'inherits = Prusament PETG',
    'filament_type = PETG',
    'filament_density = 1.27',
    'filament_diameter = 1.75',
    '[printer:Shop MK3S]',
    'inherits = Original Prusa i3 MK3S & MK3S+',
    'printer_technology = FFF',
    'nozzle_diameter = 0.4',
    'bed_shape = 0x0,250x0,250x210,0x210',
    'max_print_height = 210',
    '[presets]',
    'printer = Shop MK3S',
    '',
  ].join('\n');
  const res = await importFile(api, bundle, 'bundle.ini');
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.deepEqual(
    res.body.profiles.map((p: { kind: string; name: string }) => `${p.kind}:${p.name}`),
    ['printer:Shop MK3S — Shop strong', 'material:Shop PETG'],
  );
  const printer = (await api.get(`/v2/profiles/printer/${res.body.profiles[0].id}`)).body;
  assert.equal(printer.slicer_options.perimeters, '4', 'inherited from the abstract preset');
  assert.equal(printer.slicer_sources.perimeters, '*shop base*');
  assert.equal(printer.slicer_options.layer_height, '0.25');
  const notes = res.body.ignored.filter((n: { key: string }) => n.key === 'inherits');
  assert.equal(notes.length, 2, JSON.stringify(res.body.ignored));
  const loop = await importFile(api, '[print:a]\ninherits = b\n[print:b]\ninherits = a\n', 'loop.ini');
  assert.equal(loop.status, 400);
  assert.equal(loop.body.error.code, 'bundle_inherits_loop');
});

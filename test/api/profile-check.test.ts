// Checking an import (docs/profiles.md, "Checking the import"): the reference part downloaded and sliced by the
// bare PrusaSlicer with the shop's own .ini stands for the shop's desktop G-code; the check's slice with the
// imported profile agrees with it within 0.5 % (weight) and 1 % (time), and a G-code of another config shows the
// difference with its sign. A binary G-code (.bgcode) of the same slice answers as its text G-code does; a cut,
// damaged or lying binary G-code, G-code without footer, another account's profile and widget keys are refused;
// the check's slicer time is charged to its caller.

import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { crc32 } from 'node:zlib';
import { type ApiClient, merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';
import { shopGcode as sliceOnDesktop } from '../helpers/shop-gcode.ts';
import { flatIni, vendorFlatOptions } from '../helpers/vendor-preset.ts';

const PICK = { printer: 'Original Prusa i3 MK3S & MK3S+', print: '0.20mm QUALITY @MK3', filament: 'Prusament PLA' };
const SHOP = 'https://shop.example';

let server: TestServer;
let merchant: Awaited<ReturnType<typeof merchantShop>>;
let other: ApiClient;
let otherTokenId: string;
let shop: Record<string, string>;
let printerId: string;
let part: { name: string; bytes: Uint8Array };

before(async () => {
  server = await startTestServer();
  merchant = await merchantShop(server, 'check@example.com', SHOP);
  const second = await server.newAccount();
  other = server.client(second.token);
  otherTokenId = second.tokenId;
  shop = vendorFlatOptions(PICK, server.deps.config.slicerBinary);
  const form = new FormData();
  form.append('file', new Blob([new TextEncoder().encode(flatIni(shop))]), 'MK3S.ini');
  form.append('default', 'true');
  form.append('keep_custom_gcode', 'true');
  const imported = await merchant.api.request('POST', '/v2/profiles/import', { form });
  assert.equal(imported.status, 201, JSON.stringify(imported.body));
  printerId = imported.body.profiles.find((p: { kind: string }) => p.kind === 'printer').id;
  const download = await merchant.api.get('/v2/profiles/reference-part');
  assert.equal(download.status, 200);
  const name = /filename="([^"]+)"/.exec(download.headers.get('content-disposition') ?? '')?.[1];
  assert.ok(name?.endsWith('.stl'), `file name: ${name}`);
  part = { name: name!, bytes: download.raw };
});
after(() => server.stop());

/** "The shop's desktop": the bare slicer of the same binary with these options on the downloaded reference part. */
const shopGcode = (options: Record<string, string>, format: 'text' | 'binary' = 'text') =>
  sliceOnDesktop({ slicer: server.deps.config.slicerBinary, options, format, part });

function check(
  client: ApiClient,
  id: string,
  fields: { gcode?: Uint8Array; fileName?: string; material?: string } = {},
) {
  if (!fields.gcode && !fields.material) return client.request('POST', `/v2/profiles/printer/${id}/check`);
  const form = new FormData();
  const name = fields.fileName ?? 'cube.gcode';
  if (fields.gcode) form.append('gcode', new Blob([fields.gcode as Uint8Array<ArrayBuffer>]), name);
  if (fields.material) form.append('material', fields.material);
  return client.request('POST', `/v2/profiles/printer/${id}/check`, { form });
}

test('the reference part is a 20 mm cube in a binary STL', () => {
  const view = Buffer.from(part.bytes);
  assert.equal(view.readUInt32LE(80), 12);
  assert.equal(part.bytes.length, 84 + 12 * 50);
});

test("the shop's own G-code of the reference part agrees with the check's slice", async (t) => {
  const gcode = shopGcode(shop);
  const footerAt = Buffer.from(gcode).lastIndexOf('; filament used [mm]');
  t.diagnostic(`G-code ${gcode.length} bytes; its footer starts ${gcode.length - footerAt} bytes before its end`);
  const res = await check(merchant.api, printerId, { gcode, material: PICK.filament });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const { slice, shop_gcode: theirs, difference } = res.body;
  t.diagnostic(`check ${JSON.stringify(slice)}; shop ${JSON.stringify(theirs)}; ${JSON.stringify(difference)}`);
  assert.equal(res.body.profile_id, printerId);
  assert.equal(res.body.material, PICK.filament);
  assert.deepEqual(res.body.reference_part, { name: part.name, triangles: 12, size_mm: { x: 20, y: 20, z: 20 } });
  assert.equal(theirs.slicer_version, res.body.slicer.version);
  assert.ok(Math.abs(difference.weight_percent) <= 0.5, `weight ${difference.weight_percent} %`);
  assert.ok(Math.abs(difference.time_percent) <= 1, `time ${difference.time_percent} %`);

  // The check's slice is the caller's slicer time, as a quote's is; it makes no quote.
  const charged = await server.deps.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM slicer_usage WHERE account_id = $1 AND kind = 'check' AND outcome = 'ok'`,
    [merchant.accountId],
  );
  assert.ok(charged[0]!.n >= 1);
  const quotes = await merchant.api.get('/v2/quotes');
  assert.equal(quotes.status, 200);
  assert.deepEqual(quotes.body.data, []);
});

test('a G-code sliced with a denser infill shows a heavier, longer shop print', async (t) => {
  const gcode = shopGcode({ ...shop, fill_density: '40%' });
  const res = await check(merchant.api, printerId, { gcode });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  t.diagnostic(JSON.stringify(res.body.difference));
  assert.ok(res.body.difference.weight_percent < -1, `weight ${res.body.difference.weight_percent} %`);
  assert.ok(res.body.difference.time_percent < 0, `time ${res.body.difference.time_percent} %`);
});

test('without a G-code (a dashboard session, no body) the check answers the slice alone', async () => {
  const res = await check(merchant.dashboard, printerId);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.shop_gcode, null);
  assert.equal(res.body.difference, null);
  assert.ok(res.body.slice.filament_weight_g > 0 && res.body.slice.print_time_s > 0);
});

test('a binary G-code (.bgcode) of the same slice answers what its text G-code answers', async (t) => {
  const text = shopGcode(shop, 'text');
  const binary = shopGcode(shop, 'binary');
  assert.equal(Buffer.from(binary).toString('latin1', 0, 4), 'GCDE', 'the slicer wrote binary G-code');
  t.diagnostic(`text ${text.length} bytes, binary ${binary.length} bytes`);
  const fromText = await check(merchant.api, printerId, { gcode: text, material: PICK.filament });
  const fromBinary = await check(merchant.api, printerId, {
    gcode: binary,
    fileName: 'cube.bgcode',
    material: PICK.filament,
  });
  assert.equal(fromText.status, 200, JSON.stringify(fromText.body));
  assert.equal(fromBinary.status, 200, JSON.stringify(fromBinary.body));
  t.diagnostic(`binary: ${JSON.stringify(fromBinary.body.shop_gcode)} ${JSON.stringify(fromBinary.body.difference)}`);
  assert.deepEqual(fromBinary.body.shop_gcode, fromText.body.shop_gcode);
  assert.equal(fromBinary.body.shop_gcode.slicer_version, fromBinary.body.slicer.version);
  assert.ok(fromBinary.body.shop_gcode.filament_weight_g > 0 && fromBinary.body.shop_gcode.print_time_s > 0);
  assert.deepEqual(fromBinary.body.difference, fromText.body.difference);
});

/** Where each block of a binary G-code starts, and its type (libbgcode's layout; see check-bgcode.ts). */
function blocksOf(bgcode: Buffer): { at: number; type: number; compressed: boolean }[] {
  const crcBytes = bgcode.readUInt16LE(8) === 1 ? 4 : 0;
  const out: { at: number; type: number; compressed: boolean }[] = [];
  for (let at = 10; at < bgcode.length; ) {
    const type = bgcode.readUInt16LE(at);
    const compressed = bgcode.readUInt16LE(at + 2) !== 0;
    const size = bgcode.readUInt32LE(at + (compressed ? 8 : 4));
    out.push({ at, type, compressed });
    at += (compressed ? 12 : 8) + (type === 5 ? 6 : 2) + size + crcBytes;
  }
  return out;
}

test('a cut, damaged or lying binary G-code is a 422 naming gcode, read no further than its metadata', async (t) => {
  const binary = Buffer.from(shopGcode(shop, 'binary'));
  const printer = blocksOf(binary).find((b) => b.type === 3)!;
  assert.ok(printer && !printer.compressed, 'PrusaSlicer writes the printer metadata uncompressed');
  const damaged = Buffer.from(binary);
  damaged[printer.at + 20] = damaged[printer.at + 20]! ^ 0xff;
  // A printer metadata block claiming 4 GiB, its checksum made right again: refused by its size alone.
  const lying = Buffer.from(binary);
  const oldSize = lying.readUInt32LE(printer.at + 4);
  lying.writeUInt32LE(0xffff_ffff, printer.at + 4);
  const crcAt = printer.at + 8 + 2 + oldSize;
  lying.writeUInt32LE(crc32(lying.subarray(printer.at, crcAt)), crcAt);
  const cases = {
    'cut in its header': binary.subarray(0, 7),
    'cut in its printer metadata': binary.subarray(0, printer.at + 30),
    'a flipped byte in its printer metadata': damaged,
    'a block claiming 4 GiB': lying,
  };
  for (const [what, gcode] of Object.entries(cases)) {
    const res = await check(merchant.api, printerId, { gcode, fileName: 'cube.bgcode' });
    t.diagnostic(`${what}: ${res.status} ${res.body.error?.message}`);
    assert.equal(res.status, 422, `${what}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.error.code, 'bgcode_unreadable', what);
    assert.equal(res.body.error.details.field, 'gcode', what);
  }
});

test('a G-code without footer is 422 naming gcode', async () => {
  const cut = new TextEncoder().encode('; generated by PrusaSlicer 2.9.2\nG1 X10 Y10 E1\n');
  const noFooter = await check(merchant.api, printerId, { gcode: cut });
  assert.equal(noFooter.status, 422, JSON.stringify(noFooter.body));
  assert.equal(noFooter.body.error.code, 'gcode_footer_missing');
  assert.equal(noFooter.body.error.details.field, 'gcode');
});

test("another account's profile is 404; a widget key is refused; an unknown material is 422 naming material", async () => {
  assert.equal((await check(other, printerId)).status, 404);
  const widget = await server.client().request('POST', `/v2/profiles/printer/${printerId}/check`, {
    headers: { 'x-widget-key': merchant.key, origin: SHOP },
  });
  assert.equal(widget.status, 403);
  const download = await server
    .client()
    .get('/v2/profiles/reference-part', { 'x-widget-key': merchant.key, origin: SHOP });
  assert.equal(download.status, 403);
  const unknown = await check(merchant.api, printerId, { material: 'No such filament' });
  assert.equal(unknown.status, 422);
  assert.equal(unknown.body.error.details.field, 'material');
});

test("a global printer profile can be checked too, with the account's default material", async () => {
  const materials = (await merchant.api.get('/v2/profiles/material')).body.data as {
    scope: string;
    is_default: boolean;
    name: string;
  }[];
  const byDefault = materials.find((m) => m.scope === 'account' && m.is_default) ?? materials.find((m) => m.is_default);
  const printers = await merchant.api.get('/v2/profiles/printer');
  const global = printers.body.data.find((p: { scope: string }) => p.scope === 'global');
  assert.ok(global, 'a global printer profile is listed');
  const res = await check(merchant.api, global.profile_id);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.profile_id, global.profile_id);
  assert.equal(res.body.material, byDefault?.name);
  assert.ok(res.body.slice.filament_weight_g > 0);
});

test("a caller whose hour of slicer time is spent is refused the check's slice (429)", async () => {
  const printers = await other.get('/v2/profiles/printer');
  const global = printers.body.data.find((p: { scope: string }) => p.scope === 'global');
  await server.deps.db.query(
    `INSERT INTO slicer_usage (account_id, caller, kind, outcome, seconds, reference_s, at)
     VALUES ((SELECT account_id FROM api_tokens WHERE id = $1), $2, 'quote', 'ok', $3, NULL, $4)`,
    [otherTokenId, `tok:${otherTokenId}`, server.deps.config.slicerSecondsPerCallerHour, server.deps.now()],
  );
  const res = await check(other, global.profile_id);
  assert.equal(res.status, 429, JSON.stringify(res.body));
  assert.equal(res.body.error.code, 'slicer_budget_spent');
});

test('a G-code announced above 64 MiB is refused before it is read: 413 naming gcode', async () => {
  const url = new URL(`${server.url}/v2/profiles/printer/${printerId}/check`);
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${merchant.api.token}`,
        'content-type': 'multipart/form-data; boundary=x',
        'content-length': String(65 * 1024 * 1024),
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.write('--x\r\nContent-Disposition: form-data; name="gcode"; filename="big.gcode"\r\n\r\n');
  });
  assert.equal(answer.status, 413, answer.body);
  assert.equal(JSON.parse(answer.body).error.details.field, 'gcode');
});

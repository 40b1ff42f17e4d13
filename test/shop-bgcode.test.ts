// The import check's reader of a shop's binary G-code (server/profiles/check-bgcode.ts): a real .bgcode of the
// reference part, written by the server's PrusaSlicer from the MK4 preset (binary by default), reads as its text
// twin does; files built here block by block (libbgcode's layout: file header, then header, parameters, data and
// CRC32 per block) show Deflate, the thumbnails stepped over, and every lie or cut a 422 naming `gcode`.
// Run: node --import tsx --test test/shop-bgcode.test.ts

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import { loadConfig } from '../server/config.ts';
import { MAX_METADATA_BYTES } from '../server/profiles/check-bgcode.ts';
import { readShopGcode } from '../server/profiles/check-gcode.ts';
import { shopGcode } from './helpers/shop-gcode.ts';
import { vendorFlatOptions } from './helpers/vendor-preset.ts';

const MK4 = {
  printer: 'Original Prusa MK4 0.4 nozzle',
  print: '0.20mm QUALITY @MK4 0.4',
  filament: 'Prusament PLA @PG',
};

let dir: string;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'sq-bgcode-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function saved(bytes: Uint8Array): string {
  const file = path.join(dir, `${files++}.bgcode`);
  writeFileSync(file, bytes);
  return file;
}

// ---- a binary G-code, block by block ----------------------------------------------------------------------

interface Block {
  type: number;
  /** 0 none, 1 Deflate, 2 and 3 Heatshrink. */
  compression?: number;
  data: Buffer;
  /** The stored data when it is not `data` itself (a lie, or Heatshrink's bytes). */
  stored?: Buffer;
  /** The uncompressed size to state instead of data's. */
  statedSize?: number;
  params?: Buffer;
}

const u16 = (n: number) => Buffer.from([n & 0xff, n >> 8]);
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};

function block(b: Block, checksum: boolean): Buffer {
  const compression = b.compression ?? 0;
  const stored = b.stored ?? (compression === 1 ? deflateSync(b.data) : b.data);
  const head = [u16(b.type), u16(compression), u32(b.statedSize ?? b.data.length)];
  if (compression) head.push(u32(stored.length));
  const params = b.params ?? (b.type === 5 ? Buffer.from([0, 0, 16, 0, 16, 0]) : u16(0));
  const body = Buffer.concat([...head, params, stored]);
  return checksum ? Buffer.concat([body, u32(crc32(body))]) : body;
}

function bgcode(blocks: Block[], opts: { checksum?: boolean; version?: number; checksumType?: number } = {}): Buffer {
  const { checksum = true, version = 1 } = opts;
  const header = Buffer.concat([Buffer.from('GCDE'), u32(version), u16(opts.checksumType ?? (checksum ? 1 : 0))]);
  return Buffer.concat([header, ...blocks.map((b) => block(b, checksum))]);
}

const ini = (pairs: Record<string, string>) =>
  Buffer.from(
    Object.entries(pairs)
      .map(([k, v]) => `${k}=${v}\n`)
      .join(''),
  );
const FILE_META: Block = { type: 0, data: ini({ Producer: 'PrusaSlicer 2.9.2' }) };
const PRINTER_META: Block = {
  type: 3,
  data: ini({
    printer_model: 'MK4',
    'filament used [g]': '12.71',
    'estimated printing time (normal mode)': '1h 29m 3s',
  }),
};
const PRINT_META: Block = {
  type: 4,
  compression: 1,
  data: ini({
    'filament used [mm]': '4263.12',
    'filament used [g]': '12.71',
    'estimated printing time (normal mode)': '1h 29m 3s',
  }),
};
const THUMBNAIL: Block = { type: 5, data: Buffer.alloc(700, 0x89) };
const GCODE: Block = { type: 1, compression: 3, data: Buffer.alloc(5000), stored: Buffer.alloc(900, 7) };

async function refusal(bytes: Buffer): Promise<string> {
  const err = await readShopGcode(saved(bytes)).then(
    () => assert.fail('read without complaint'),
    (e) => e,
  );
  assert.equal(err.status, 422, err.message);
  assert.equal(err.code, 'bgcode_unreadable', err.message);
  assert.equal(err.details.field, 'gcode');
  return err.message;
}

// ---- tests ------------------------------------------------------------------------------------------------

test("PrusaSlicer's own .bgcode of the reference part reads as its text G-code does", {}, async () => {
  const slicer = loadConfig({}).slicerBinary;
  const options = vendorFlatOptions(MK4, slicer);
  assert.equal(options.binary_gcode, '1', 'the MK4 preset writes binary G-code');
  const binary = Buffer.from(shopGcode({ slicer, options, format: 'binary' }));
  const text = shopGcode({ slicer, options, format: 'text' });
  assert.equal(binary.toString('latin1', 0, 4), 'GCDE');
  const fromBinary = await readShopGcode(saved(binary));
  assert.deepEqual(fromBinary, await readShopGcode(saved(text)));
  assert.ok(fromBinary.filament_weight_g! > 1 && fromBinary.print_time_s > 60, JSON.stringify(fromBinary));
  assert.match(fromBinary.slicer_version ?? '', /^2\.\d+\.\d+$/);
});

test('Deflate-compressed print metadata after thumbnails, with and without checksums', async () => {
  for (const checksum of [true, false]) {
    const file = bgcode([FILE_META, PRINTER_META, THUMBNAIL, THUMBNAIL, PRINT_META, GCODE], { checksum });
    assert.deepEqual(await readShopGcode(saved(file)), {
      filament_length_mm: 4263.12,
      filament_weight_g: 12.71,
      print_time_s: 5343,
      slicer_version: '2.9.2',
    });
  }
});

test('the statistics may be in the printer metadata alone; without any it is the missing-footer 422', async () => {
  const printer = { ...PRINTER_META, data: Buffer.concat([PRINTER_META.data, ini({ 'filament used [mm]': '42' })]) };
  const bare: Block = { type: 4, data: ini({ 'filament cost': '0.40' }) };
  const read = await readShopGcode(saved(bgcode([printer, bare, GCODE])));
  assert.equal(read.filament_length_mm, 42);
  assert.equal(read.slicer_version, null);
  const none = await readShopGcode(saved(bgcode([FILE_META, bare, GCODE]))).catch((e) => e);
  assert.equal(none.code, 'gcode_footer_missing');
  assert.equal(none.details.field, 'gcode');
  assert.match(none.message, /metadata/);
});

test('cut files are refused wherever the cut is', async () => {
  const whole = bgcode([FILE_META, PRINTER_META, THUMBNAIL, PRINT_META, GCODE]);
  const printMetaEnd = whole.length - block(GCODE, true).length;
  for (const length of [4, 9, 12, 60, 200, printMetaEnd - 3]) {
    const message = await refusal(whole.subarray(0, length));
    assert.match(message, /cut short/, `${length} bytes: ${message}`);
  }
  // Cut in the G-code blocks: the statistics before them are whole.
  assert.equal((await readShopGcode(saved(whole.subarray(0, printMetaEnd + 20)))).print_time_s, 5343);
});

test('sizes from the file are never believed: 4 GiB claims, a bound on metadata, a Deflate bomb', async () => {
  assert.match(await refusal(bgcode([FILE_META, { ...THUMBNAIL, statedSize: 0xffff_ffff }])), /claims 4294967/);
  assert.match(
    await refusal(bgcode([{ ...PRINT_META, stored: deflateSync(PRINT_META.data), statedSize: 0xffff_fff0 }])),
    /at most 262144/,
  );
  const huge = Buffer.alloc(MAX_METADATA_BYTES + 1, 0x41);
  assert.match(await refusal(bgcode([FILE_META, { type: 3, data: huge }, PRINT_META])), /at most/);
  // 16 MiB of zeros deflate to about 16 KiB: stated as 100 bytes, inflating stops at 100.
  const bomb = deflateSync(Buffer.alloc(16 * 1024 * 1024));
  assert.match(
    await refusal(bgcode([{ type: 4, compression: 1, data: Buffer.alloc(100), stored: bomb }])),
    /not of its stated size/,
  );
});

test('damaged or unknown content is refused by name', async () => {
  const whole = bgcode([FILE_META, PRINTER_META, PRINT_META, GCODE]);
  const flipped = Buffer.from(whole);
  flipped[40] = flipped[40]! ^ 0x20;
  assert.match(await refusal(flipped), /checksum/);
  assert.match(await refusal(bgcode([PRINT_META], { version: 2 })), /version 2/);
  assert.match(await refusal(bgcode([PRINT_META], { checksum: false, checksumType: 9 })), /checksum type/);
  assert.match(await refusal(bgcode([{ ...PRINT_META, type: 6 }])), /unknown type 6/);
  assert.match(await refusal(bgcode([{ ...PRINT_META, compression: 7, stored: Buffer.alloc(8) }])), /compression 7/);
  assert.match(await refusal(bgcode([{ ...PRINT_META, compression: 3, stored: Buffer.alloc(40) }])), /Heatshrink/);
  assert.match(await refusal(bgcode([{ ...PRINT_META, params: u16(1) }])), /encoding/);
  assert.match(
    await refusal(bgcode([{ ...PRINT_META, stored: Buffer.from('not deflate at all') }])),
    /Deflate data is damaged/,
  );
  assert.match(await refusal(bgcode([FILE_META, PRINTER_META, GCODE, PRINT_META])), /no print metadata/);
  assert.match(await refusal(bgcode(Array(70).fill(THUMBNAIL))), /no print metadata/);
});

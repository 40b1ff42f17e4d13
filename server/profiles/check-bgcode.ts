// The shop's binary G-code (.bgcode, PrusaSlicer's default on Prusa's MK4, XL and MINI since 2.7) for the import
// check. Its statistics are not in a footer but in key=value metadata blocks at its head (Prusa's libbgcode format:
// a 10-byte file header "GCDE", version, checksum type; then blocks of header, parameters, data and an optional
// CRC32). Only those blocks are read, each by position and under MAX_METADATA_BYTES; thumbnails are stepped over
// unread and the walk stops at the print metadata, before any G-code block. Every size in the file is the
// uploader's word: one past the file's end or the bound is a 422 naming `gcode`, never a large allocation.
import { type FileHandle, open } from 'node:fs/promises';
import { crc32, inflateSync } from 'node:zlib';
import { ApiError } from '../http/index.ts';

export const BGCODE_MAGIC = 'GCDE';
const FILE_HEADER_BYTES = 10;
const VERSION = 1;
const CRC32_BYTES = 4;

const BLOCK_TYPE = {
  fileMetadata: 0,
  gcode: 1,
  slicerMetadata: 2,
  printerMetadata: 3,
  printMetadata: 4,
  thumbnail: 5,
} as const;
const COMPRESSION = { none: 0, deflate: 1 } as const;
/** The key=value blocks read; the slicer metadata (the whole config, after the print metadata) is not needed. */
const READ_TYPES = new Set<number>([BLOCK_TYPE.fileMetadata, BLOCK_TYPE.printerMetadata, BLOCK_TYPE.printMetadata]);

/** A metadata block's largest size, stored or inflated: PrusaSlicer's printer and print metadata are under 1 KiB
 * (the printer metadata names each object's outline: room for hundreds of objects). */
export const MAX_METADATA_BYTES = 256 * 1024;
/** Blocks walked before the print metadata: the file and printer metadata and the thumbnails (a few sizes). */
const MAX_BLOCKS = 64;

export interface BinaryGcodeMetadata {
  /** The print metadata's pairs over the printer metadata's ("filament used [g]" → "3.83"). */
  stats: Map<string, string>;
  /** The file metadata's "Producer" ("PrusaSlicer 2.9.2"); null without one. */
  producer: string | null;
}

const unreadable = (message: string) =>
  new ApiError(422, 'bgcode_unreadable', `The binary G-code ${message}.`, { field: 'gcode' });

interface BlockHeader {
  at: number;
  type: number;
  compression: number;
  uncompressedSize: number;
  /** Header, parameters, data and checksum: where the next block starts, from `at`. */
  totalBytes: number;
  /** Header and parameters: where the data starts, from `at`. */
  dataFrom: number;
  dataBytes: number;
}

async function readExactly(fh: FileHandle, at: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, at);
  if (bytesRead < length) throw unreadable(`is cut short at byte ${at + bytesRead}`);
  return buf;
}

async function fileHeader(fh: FileHandle): Promise<{ checksumBytes: number }> {
  const head = await readExactly(fh, 0, FILE_HEADER_BYTES);
  if (head.toString('latin1', 0, 4) !== BGCODE_MAGIC) throw unreadable('does not start with "GCDE"');
  const version = head.readUInt32LE(4);
  if (version !== VERSION) throw unreadable(`is of format version ${version}; this service reads version ${VERSION}`);
  const checksum = head.readUInt16LE(8);
  if (checksum > 1) throw unreadable(`names an unknown checksum type (${checksum})`);
  return { checksumBytes: checksum === 1 ? CRC32_BYTES : 0 };
}

/** The block at `at`, as it states itself (its sizes not yet checked against the file). */
async function blockHeader(fh: FileHandle, at: number, fileBytes: number, checksumBytes: number): Promise<BlockHeader> {
  const head = await readExactly(fh, at, Math.min(12, fileBytes - at));
  if (head.length < 8) throw unreadable(`is cut short at byte ${at + head.length}`);
  const type = head.readUInt16LE(0);
  const compression = head.readUInt16LE(2);
  const uncompressedSize = head.readUInt32LE(4);
  if (type > BLOCK_TYPE.thumbnail) throw unreadable(`has a block of unknown type ${type} at byte ${at}`);
  if (compression > 3) throw unreadable(`has a block of unknown compression ${compression} at byte ${at}`);
  if (compression !== COMPRESSION.none && head.length < 12) throw unreadable(`is cut short at byte ${at + 8}`);
  const headerBytes = compression === COMPRESSION.none ? 8 : 12;
  const dataBytes = compression === COMPRESSION.none ? uncompressedSize : head.readUInt32LE(8);
  const dataFrom = headerBytes + (type === BLOCK_TYPE.thumbnail ? 6 : 2);
  return {
    at,
    type,
    compression,
    uncompressedSize,
    totalBytes: dataFrom + dataBytes + checksumBytes,
    dataFrom,
    dataBytes,
  };
}

function assertInFile(b: BlockHeader, fileBytes: number): void {
  if (b.at + b.totalBytes > fileBytes)
    throw unreadable(
      `is cut short or damaged: its block at byte ${b.at} claims ${b.totalBytes} bytes, more than the file holds (${fileBytes} bytes)`,
    );
}

/** A metadata block's text: bounded, its CRC checked, inflated when Deflate-compressed. */
async function metadataText(fh: FileHandle, b: BlockHeader, checksumBytes: number): Promise<string> {
  if (b.dataBytes > MAX_METADATA_BYTES || b.uncompressedSize > MAX_METADATA_BYTES)
    throw unreadable(
      `has a metadata block at byte ${b.at} of ${Math.max(b.dataBytes, b.uncompressedSize)} bytes; at most ${MAX_METADATA_BYTES} are read`,
    );
  const block = await readExactly(fh, b.at, b.totalBytes);
  const stored = block.subarray(0, b.totalBytes - checksumBytes);
  if (checksumBytes && crc32(stored) !== block.readUInt32LE(stored.length))
    throw unreadable(`has a damaged block at byte ${b.at} (its checksum does not match)`);
  const encoding = block.readUInt16LE(b.dataFrom - 2);
  if (encoding !== 0) throw unreadable(`has a metadata block at byte ${b.at} in an unknown encoding (${encoding})`);
  const data = stored.subarray(b.dataFrom);
  if (b.compression === COMPRESSION.none) return data.toString('utf8');
  if (b.compression !== COMPRESSION.deflate)
    throw unreadable(
      `has a metadata block at byte ${b.at} compressed with Heatshrink, which this service does not read`,
    );
  return inflated(data, b).toString('utf8');
}

/** Inflated no further than the size the block states (itself under MAX_METADATA_BYTES): a bomb stops there. */
function inflated(data: Buffer, b: BlockHeader): Buffer {
  let out: Buffer | null = null;
  try {
    out = inflateSync(data, { maxOutputLength: Math.max(1, b.uncompressedSize) });
  } catch {
    // damaged, or more than it states
  }
  if (out?.length !== b.uncompressedSize)
    throw unreadable(`has a metadata block at byte ${b.at} whose Deflate data is damaged or not of its stated size`);
  return out;
}

/** "key=value" lines into `into` (later blocks win); other lines are ignored. */
function addPairs(text: string, into: Map<string, string>): void {
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) into.set(line.slice(0, eq), line.slice(eq + 1).trimEnd());
  }
}

/** The metadata of the binary G-code at `path` (its first bytes are "GCDE"). */
export async function readBinaryGcodeMetadata(path: string): Promise<BinaryGcodeMetadata> {
  const fh = await open(path, 'r');
  try {
    const { size: fileBytes } = await fh.stat();
    const { checksumBytes } = await fileHeader(fh);
    const stats = new Map<string, string>();
    const file = new Map<string, string>();
    let at = FILE_HEADER_BYTES;
    for (let n = 0; n < MAX_BLOCKS && at < fileBytes; n++) {
      const block = await blockHeader(fh, at, fileBytes, checksumBytes);
      if (block.type === BLOCK_TYPE.gcode) break;
      assertInFile(block, fileBytes);
      if (READ_TYPES.has(block.type))
        addPairs(await metadataText(fh, block, checksumBytes), block.type === BLOCK_TYPE.fileMetadata ? file : stats);
      if (block.type === BLOCK_TYPE.printMetadata) return { stats, producer: file.get('Producer') ?? null };
      at += block.totalBytes;
    }
    throw unreadable('has no print metadata block before its G-code');
  } finally {
    await fh.close();
  }
}

// A minimal zip writer for tests that need huge-but-compressible entries (hostile 3MFs). An entry is a
// list of pieces, each repeated some number of times; every piece is deflated once on its own and its
// compressed bytes are repeated, so a 500 MB entry costs a few milliseconds and never exists in memory.
// A piece compressed alone refers only to itself, which makes its deflate blocks valid at any offset.
import { constants, crc32, deflateRawSync } from 'node:zlib';

export interface Piece {
  bytes: Uint8Array | string;
  /** How many times the piece follows itself (default 1). */
  times?: number;
}

export type EntryContent = string | Uint8Array | Piece[];

/** Deflate stream end: a final, empty fixed-Huffman block. */
const FINAL_BLOCK = Uint8Array.of(0x03, 0x00);

export function zipEntries(entries: Record<string, EntryContent>): Uint8Array {
  const chunks: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    const { data, crc, size } = deflatePieces(
      typeof content === 'string' || content instanceof Uint8Array ? [{ bytes: content }] : content,
    );
    const nameBytes = Buffer.from(name, 'utf8');
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    fillCommon(header, 4, crc, data.length, size, nameBytes.length);
    chunks.push(header, nameBytes, data);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4); // made by
    fillCommon(entry, 6, crc, data.length, size, nameBytes.length);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, nameBytes);
    offset += header.length + nameBytes.length + data.length;
  }
  const centralSize = central.reduce((n, c) => n + c.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(central.length / 2, 8);
  end.writeUInt16LE(central.length / 2, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...chunks, ...central, end]);
}

/** version needed, flags, method, time, date, crc, sizes, name length: shared by both headers. */
function fillCommon(b: Buffer, at: number, crc: number, compressed: number, size: number, nameLength: number): void {
  b.writeUInt16LE(20, at);
  b.writeUInt16LE(0, at + 2);
  b.writeUInt16LE(8, at + 4); // deflate
  b.writeUInt16LE(0, at + 6);
  b.writeUInt16LE(0x21, at + 8); // 1980-01-01
  b.writeUInt32LE(crc >>> 0, at + 10);
  b.writeUInt32LE(compressed, at + 14);
  b.writeUInt32LE(size, at + 18);
  b.writeUInt16LE(nameLength, at + 22);
}

function deflatePieces(pieces: Piece[]): { data: Buffer; crc: number; size: number } {
  const out: Uint8Array[] = [];
  let crc = 0,
    size = 0;
  for (const piece of pieces) {
    const bytes = typeof piece.bytes === 'string' ? Buffer.from(piece.bytes, 'utf8') : piece.bytes;
    if (bytes.length === 0) continue;
    const block = deflateRawSync(bytes, { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
    for (let i = 0; i < (piece.times ?? 1); i++) {
      out.push(block);
      crc = crc32(bytes, crc);
      size += bytes.length;
    }
  }
  out.push(FINAL_BLOCK);
  if (size > 0xffffffff) throw new Error('zip-writer: entries over 4 GiB need zip64');
  return { data: Buffer.concat(out), crc, size };
}

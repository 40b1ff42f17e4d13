// A deterministic zip writer for the canonical 3MF: stored (uncompressed) entries, a fixed timestamp, no
// extra fields, so the same mesh always gives the same bytes (and the same mesh hash). Entries are
// produced twice, once to learn their CRC-32 and size for the local header and once to write them,
// so a large entry is never held in memory.

export type ByteSink = (chunk: Uint8Array) => void;
/** Writes an entry's content to the sink it is given; called twice, it must write the same bytes. */
export type EntryWriter = (sink: ByteSink) => void;

const DOS_DATE_1980_01_01 = 0x21;

export function writeStoredZip(entries: [name: string, write: EntryWriter][], sink: ByteSink): void {
  const central: Uint8Array[] = [];
  let offset = 0;
  const emit = (chunk: Uint8Array) => {
    sink(chunk);
    offset += chunk.length;
  };
  for (const [name, write] of entries) {
    let crc = 0,
      size = 0;
    write((chunk) => {
      crc = crc32(chunk, crc);
      size += chunk.length;
    });
    if (size > 0xffffffff || offset > 0xffffffff) throw new RangeError('the canonical 3MF would need zip64');
    const nameBytes = new TextEncoder().encode(name);
    const start = offset;
    emit(header(0x04034b50, nameBytes, crc, size));
    emit(nameBytes);
    write(emit);
    central.push(header(0x02014b50, nameBytes, crc, size, start), nameBytes);
  }
  const centralStart = offset;
  for (const chunk of central) emit(chunk);
  const end = new Uint8Array(22);
  const view = new DataView(end.buffer);
  view.setUint32(0, 0x06054b50, true);
  view.setUint16(8, entries.length, true);
  view.setUint16(10, entries.length, true);
  view.setUint32(12, offset - centralStart, true);
  view.setUint32(16, centralStart, true);
  emit(end);
}

/** A local file header (with `localOffset` undefined) or a central directory header. */
function header(signature: number, name: Uint8Array, crc: number, size: number, localOffset?: number): Uint8Array {
  const central = localOffset !== undefined;
  const out = new Uint8Array(central ? 46 : 30);
  const v = new DataView(out.buffer);
  v.setUint32(0, signature, true);
  let o = 4;
  if (central) {
    v.setUint16(o, 20, true); // made by: version 2.0
    o += 2;
  }
  v.setUint16(o, 20, true); // version needed
  v.setUint16(o + 4, 0, true); // stored
  v.setUint16(o + 6, 0, true); // time 00:00
  v.setUint16(o + 8, DOS_DATE_1980_01_01, true);
  v.setUint32(o + 10, crc >>> 0, true);
  v.setUint32(o + 14, size, true);
  v.setUint32(o + 18, size, true);
  v.setUint16(o + 22, name.length, true);
  if (central) v.setUint32(42, localOffset, true);
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE), continuing from `crc`. */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

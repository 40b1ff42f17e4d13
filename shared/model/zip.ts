// Bounded zip reading with fflate's streaming Unzip. The archive is fed in small slices, so
// fflate never inflates more than ~1000 × SLICE bytes in one step; every inflated byte is
// counted the moment it is produced against a package-wide budget, and a declared size above
// that budget is refused before inflating anything. Each read is a separate pass that starts
// only the entry it wants; the other entries are skipped without being inflated.
import { Unzip, type UnzipFile, UnzipInflate } from 'fflate';
import { fail, ModelError } from './errors.ts';
import type { ParseLimits } from './limits.ts';

/** Compressed bytes pushed per step: deflate's ~1032:1 ceiling caps one step's output near 16 MiB. */
const SLICE = 16 * 1024;

export interface ZipEntry {
  /** The name as stored in the archive. */
  name: string;
  /** Uncompressed size from the local header; absent for streamed (data-descriptor) entries. */
  declaredSize?: number;
}

export class ZipPackage {
  /** Entries by normalised part name (see partKey). */
  readonly entries = new Map<string, ZipEntry>();
  private inflated = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly limits: ParseLimits,
  ) {
    this.list();
  }

  has(partName: string): boolean {
    return this.entries.has(partKey(partName));
  }

  /** Streams one entry's inflated bytes to `sink`, chunk by chunk. */
  stream(partName: string, sink: (chunk: Uint8Array) => void): void {
    this.streamMany([partName], () => sink);
  }

  /**
   * Streams several entries in a single pass over the archive (so reading many parts costs one
   * pass, not one each); `sinkFor` gives the consumer of each requested part.
   */
  streamMany(partNames: readonly string[], sinkFor: (partName: string) => (chunk: Uint8Array) => void): void {
    const wanted = new Map<string, string>(); // stored entry name -> requested part name
    for (const partName of partNames) {
      const entry = this.entries.get(partKey(partName));
      if (!entry)
        fail('model_part_missing', `The 3MF package has no part named ${partName.slice(0, 200)}.`, { part: partName });
      wanted.set(entry.name, partName);
    }
    const pending = new Set(wanted.keys());
    this.pass(
      (file) => {
        const partName = wanted.get(file.name);
        if (partName === undefined || !pending.has(file.name)) return;
        this.checkDeclared(file);
        const sink = sinkFor(partName);
        let produced = 0;
        file.ondata = (err, chunk, final) => {
          if (err) throw err instanceof ModelError ? err : zipInvalid(err);
          produced += chunk.length;
          this.count(chunk.length, file.name);
          if (file.originalSize !== undefined && produced > file.originalSize) {
            fail(
              'zip_invalid',
              `The zip entry ${file.name} inflates to more than its declared ${file.originalSize} bytes.`,
              { entry: file.name },
            );
          }
          if (chunk.length > 0) sink(chunk);
          if (final) pending.delete(file.name);
        };
        startFile(file);
      },
      () => pending.size === 0,
    );
    for (const name of pending)
      fail('zip_invalid', `The zip entry ${name} ends before its data is complete.`, { entry: name });
  }

  /** Reads whole (small) entries into memory in one pass, refusing any larger than `maxSize`. */
  readMany(partNames: readonly string[], maxSize: number): Map<string, Uint8Array> {
    const chunks = new Map<string, Uint8Array[]>(partNames.map((name) => [name, []]));
    const sizes = new Map<string, number>();
    this.streamMany(partNames, (partName) => (chunk) => {
      const size = (sizes.get(partName) ?? 0) + chunk.length;
      if (size > maxSize) {
        fail('inflated_too_large', `The 3MF part ${partName} is larger than the ${maxSize} bytes allowed for it.`, {
          part: partName,
          limit: maxSize,
        });
      }
      sizes.set(partName, size);
      chunks.get(partName)!.push(chunk);
    });
    return new Map([...chunks].map(([name, parts]) => [name, join(parts)]));
  }

  /** First pass: names and declared sizes, nothing inflated. */
  private list(): void {
    this.pass(
      (file) => {
        if (this.entries.size >= this.limits.maxZipEntries) {
          fail('zip_too_many_entries', `The 3MF package has more than ${this.limits.maxZipEntries} zip entries.`, {
            limit: this.limits.maxZipEntries,
          });
        }
        if (file.name.endsWith('/')) return; // a directory, not a part
        const key = partKey(file.name);
        if (this.entries.has(key)) {
          fail(
            'zip_invalid',
            `The 3MF package contains the part ${file.name} twice (part names are case-insensitive).`,
            { entry: file.name },
          );
        }
        this.entries.set(key, { name: file.name, declaredSize: file.originalSize });
      },
      () => false,
    );
    if (this.entries.size === 0)
      fail('zip_invalid', 'The file starts like a zip archive but contains no readable entries.');
  }

  private pass(onfile: (file: UnzipFile) => void, finished: () => boolean): void {
    const unzip = new Unzip(onfile);
    unzip.register(UnzipInflate);
    try {
      for (let offset = 0; offset < this.bytes.length && !finished(); offset += SLICE) {
        const end = Math.min(offset + SLICE, this.bytes.length);
        unzip.push(this.bytes.subarray(offset, end), end === this.bytes.length);
      }
    } catch (err) {
      throw err instanceof ModelError ? err : zipInvalid(err);
    }
  }

  private checkDeclared(file: UnzipFile): void {
    const budget = this.limits.maxInflatedBytes - this.inflated;
    if (file.originalSize !== undefined && file.originalSize > budget) {
      fail(
        'inflated_too_large',
        `The zip entry ${file.name} declares ${file.originalSize} uncompressed bytes, more than the ${this.limits.maxInflatedBytes} bytes this service inflates per file.`,
        {
          entry: file.name,
          declared: file.originalSize,
          limit: this.limits.maxInflatedBytes,
        },
      );
    }
  }

  private count(bytes: number, name: string): void {
    this.inflated += bytes;
    if (this.inflated > this.limits.maxInflatedBytes) {
      fail(
        'inflated_too_large',
        `The 3MF package inflates to more than ${this.limits.maxInflatedBytes} bytes (stopped while reading ${name}).`,
        {
          entry: name,
          limit: this.limits.maxInflatedBytes,
        },
      );
    }
  }
}

function join(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

function startFile(file: UnzipFile): void {
  if (file.compression !== 0 && file.compression !== 8) {
    fail(
      'zip_invalid',
      `The zip entry ${file.name} uses compression method ${file.compression}; 3MF allows only stored and deflate.`,
      { entry: file.name },
    );
  }
  file.start();
}

function zipInvalid(err: unknown): ModelError {
  const reason = err instanceof Error ? err.message : String(err);
  return new ModelError('zip_invalid', `The 3MF file is not a readable zip archive (${reason}).`);
}

/** OPC part names compare case-insensitively and percent-decoded, without the leading slash. */
export function partKey(name: string): string {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // A malformed escape stays as written; it will simply not match anything.
  }
  return decoded.replace(/^\/+/, '').toLowerCase();
}

// Bounded zip reading with fflate's streaming Unzip. The archive is fed in small slices, so
// fflate never inflates more than ~1000 × SLICE bytes in one step; every inflated byte is
// counted the moment it is produced against a package-wide budget, and a declared size above
// that budget is refused before inflating anything. Each read is a separate pass that starts
// only the entry it wants; the other entries are skipped without being inflated.
import { Unzip, UnzipInflate, type UnzipFile } from 'fflate';
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
    const entry = this.entries.get(partKey(partName));
    if (!entry) fail('model_part_missing', `The 3MF package has no part named ${partName}.`, { part: partName });
    let done = false;
    this.pass((file) => {
      if (done || file.name !== entry.name) return;
      this.checkDeclared(file);
      let produced = 0;
      file.ondata = (err, chunk, final) => {
        if (err) throw err instanceof ModelError ? err : zipInvalid(err);
        produced += chunk.length;
        this.count(chunk.length, entry.name);
        if (file.originalSize !== undefined && produced > file.originalSize) {
          fail('zip_invalid', `The zip entry ${entry.name} inflates to more than its declared ${file.originalSize} bytes.`, { entry: entry.name });
        }
        if (chunk.length > 0) sink(chunk);
        if (final) done = true;
      };
      startFile(file);
    }, () => done);
    if (!done) fail('zip_invalid', `The zip entry ${entry.name} ends before its data is complete.`, { entry: entry.name });
  }

  /** Reads a whole (small) entry into memory, refusing one larger than `maxSize`. */
  read(partName: string, maxSize: number): Uint8Array {
    const chunks: Uint8Array[] = [];
    let size = 0;
    this.stream(partName, (chunk) => {
      size += chunk.length;
      if (size > maxSize) {
        fail('inflated_too_large', `The 3MF part ${partName} is larger than the ${maxSize} bytes allowed for it.`, { part: partName, limit: maxSize });
      }
      chunks.push(chunk);
    });
    const out = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  }

  /** First pass: names and declared sizes, nothing inflated. */
  private list(): void {
    this.pass((file) => {
      if (this.entries.size >= this.limits.maxZipEntries) {
        fail('zip_too_many_entries', `The 3MF package has more than ${this.limits.maxZipEntries} zip entries.`, { limit: this.limits.maxZipEntries });
      }
      if (file.name.endsWith('/')) return; // a directory, not a part
      const key = partKey(file.name);
      if (this.entries.has(key)) {
        fail('zip_invalid', `The 3MF package contains the part ${file.name} twice (part names are case-insensitive).`, { entry: file.name });
      }
      this.entries.set(key, { name: file.name, declaredSize: file.originalSize });
    }, () => false);
    if (this.entries.size === 0) fail('zip_invalid', 'The file starts like a zip archive but contains no readable entries.');
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
      fail('inflated_too_large', `The zip entry ${file.name} declares ${file.originalSize} uncompressed bytes, more than the ${this.limits.maxInflatedBytes} bytes this service inflates per file.`, {
        entry: file.name,
        declared: file.originalSize,
        limit: this.limits.maxInflatedBytes,
      });
    }
  }

  private count(bytes: number, name: string): void {
    this.inflated += bytes;
    if (this.inflated > this.limits.maxInflatedBytes) {
      fail('inflated_too_large', `The 3MF package inflates to more than ${this.limits.maxInflatedBytes} bytes (stopped while reading ${name}).`, {
        entry: name,
        limit: this.limits.maxInflatedBytes,
      });
    }
  }
}

function startFile(file: UnzipFile): void {
  if (file.compression !== 0 && file.compression !== 8) {
    fail('zip_invalid', `The zip entry ${file.name} uses compression method ${file.compression}; 3MF allows only stored and deflate.`, { entry: file.name });
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

// A binary STL read as its bytes arrive (an upload still on its way): each triangle is welded as soon as its record
// is complete, with the same builder, order and checks as parseStl's, so the mesh is the one parseStl would give.
// Whether the bytes are a binary STL at all is the size rule (stl.ts), which only the last byte settles: until
// then the result is provisional, and bytes that turn out to be something else are read again by parseModel.
import type { CanonicalObjDraft } from './canonical.ts';
import { ModelError } from './errors.ts';
import type { ParseLimits } from './limits.ts';
import type { MeshBuilder } from './mesh.ts';
import { addBinaryTriangle, binaryBuilder, declaredCount, PREAMBLE, RECORD, type StlResult } from './stl.ts';

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
const isZip = (bytes: Uint8Array) => ZIP_MAGIC.every((b, i) => bytes[i] === b);

/**
 * The size of the binary STL whose first 84 bytes these are (84 + 50 × the count they state), or null when they are
 * too few or begin a zip (a 3MF): what to expect before the rest has arrived.
 */
export function statedBinaryStlBytes(preamble: Uint8Array): number | null {
  if (preamble.length < PREAMBLE || isZip(preamble)) return null;
  return PREAMBLE + RECORD * declaredCount(preamble);
}

export class BinaryStlStream {
  private readonly preamble = new Uint8Array(PREAMBLE);
  /** A record split between two chunks. */
  private readonly partial = new Uint8Array(RECORD);
  private readonly partialView = new DataView(this.partial.buffer);
  private partialBytes = 0;
  private received = 0;
  private count = 0;
  private read = 0;
  private builder: MeshBuilder | null = null;
  /** Why the bytes are not read on: not a binary STL after all, or a refusal parseModel will give again. */
  private stopped: string | null = null;

  /** `draft`: the canonical OBJ, written as the mesh grows. */
  constructor(
    private readonly limits: ParseLimits,
    private readonly draft?: CanonicalObjDraft,
  ) {}

  /** The next bytes of the file. Never throws: a file this reading cannot take is left to parseModel. */
  push(chunk: Uint8Array): void {
    if (this.stopped) return;
    this.received += chunk.length;
    try {
      this.take(chunk);
    } catch (err) {
      this.stop(err instanceof ModelError ? err.code : 'unreadable');
    }
  }

  /**
   * The mesh once every byte has arrived, or null when the bytes are not a binary STL of the size its header states
   * (or were refused on the way): parseModel then reads the whole file and says what it is.
   */
  finish(): StlResult | null {
    const complete = this.received === PREAMBLE + RECORD * this.count && this.read === this.count;
    if (this.stopped || !this.builder || !complete || this.received > this.limits.maxBytes) return null;
    return { mesh: this.builder.finish(), degenerate: this.builder.degenerateCount };
  }

  private take(chunk: Uint8Array): void {
    let at = 0;
    if (!this.builder) {
      at = this.takePreamble(chunk);
      if (!this.builder) return;
    }
    if (this.received > PREAMBLE + RECORD * this.count) {
      this.stop('longer_than_declared');
      return;
    }
    at = this.completePartial(chunk, at);
    if (this.partialBytes > 0) return; // the chunk ended within the record
    const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (; at + RECORD <= chunk.length; at += RECORD) addBinaryTriangle(view, at, this.read++, this.builder);
    this.partial.set(chunk.subarray(at), 0);
    this.partialBytes = chunk.length - at;
    this.draft?.add(this.builder.current());
  }

  /** Collects the header and the count; the builder exists once they are complete. Answers where records begin. */
  private takePreamble(chunk: Uint8Array): number {
    const before = this.received - chunk.length;
    const used = Math.min(PREAMBLE - before, chunk.length);
    this.preamble.set(chunk.subarray(0, used), before);
    if (before + used < PREAMBLE) return used;
    if (isZip(this.preamble)) {
      this.stop('zip');
      return used;
    }
    this.count = declaredCount(this.preamble);
    // Grown as the records arrive: what the header claims is only a claim until the last byte.
    this.builder = binaryBuilder(this.count, this.limits, 0);
    return used;
  }

  /** Finishes a record begun in the previous chunk; answers where the next one begins. */
  private completePartial(chunk: Uint8Array, at: number): number {
    if (this.partialBytes === 0) return at;
    const used = Math.min(RECORD - this.partialBytes, chunk.length - at);
    this.partial.set(chunk.subarray(at, at + used), this.partialBytes);
    this.partialBytes += used;
    if (this.partialBytes < RECORD) return at + used;
    addBinaryTriangle(this.partialView, 0, this.read++, this.builder!);
    this.partialBytes = 0;
    return at + used;
  }

  private stop(why: string): void {
    this.stopped = why;
    this.builder = null;
  }
}

// Where an upload's file bytes go as they arrive: to its temp file on disk and, when its first bytes begin a large
// binary STL and a parse worker is free for it, to a parse that reads them as they come (server/mesh/parse.ts,
// `stream`), so that the last byte leaves only the measuring and the canonical mesh to do. The hash of the original
// is taken on the way too (formidable's `hashAlgorithm`): the file is never read back for it.
import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import type { UploadStream } from '../mesh/index.ts';

/** The bytes that say whether a file is a binary STL and of what size (its header and triangle count). */
const PREAMBLE_BYTES = 84;

/** Opens the parse that reads the file as it arrives, given its first bytes; null when it is not for one. */
export type OpenStream = (preamble: Uint8Array) => UploadStream | null;

/** The file's bytes as they arrive, to the stream once its first bytes have opened one. */
export class StreamingParse {
  private head: Uint8Array[] = [];
  private headBytes = 0;
  /** undefined: not decided yet (fewer than 84 bytes so far); null: the file is parsed once it has arrived. */
  private opened: UploadStream | null | undefined;

  constructor(private readonly open: OpenStream | null) {
    if (!open) this.opened = null;
  }

  write(chunk: Uint8Array): void {
    if (this.opened !== undefined) {
      this.opened?.write(chunk);
      return;
    }
    this.head.push(new Uint8Array(chunk)); // the parser's buffers are reused once written
    this.headBytes += chunk.length;
    if (this.headBytes < PREAMBLE_BYTES) return;
    const first = Buffer.concat(this.head);
    this.head = [];
    this.opened = this.open!(first.subarray(0, PREAMBLE_BYTES));
    this.opened?.write(first);
  }

  /** The parse reading the file, if one was opened. */
  get stream(): UploadStream | null {
    return this.opened ?? null;
  }
}

/** formidable's write stream for the file: each chunk to `path` and to the streaming parse, in order. */
export function diskAndParse(path: string, parse: StreamingParse): Writable {
  const disk = createWriteStream(path);
  const writable = new Writable({
    write(chunk: Buffer, _encoding, done) {
      parse.write(chunk);
      disk.write(chunk, done);
    },
    final(done) {
      disk.end(done);
    },
    destroy(err, done) {
      disk.destroy();
      done(err);
    },
  });
  disk.on('error', (err) => writable.destroy(err));
  return writable;
}

// A byte-level tokenizer shared by the text formats (ASCII STL, OBJ). Working on the bytes
// directly avoids decoding a whole upload into one giant string and lets every token be
// bounded before it is turned into a string.
import { latin1 } from './number.ts';

const SPACE = 32,
  TAB = 9,
  LF = 10,
  VT = 11,
  FF = 12,
  CR = 13;

export const isSpace = (c: number) => c === SPACE || c === TAB || c === CR || c === VT || c === FF;

export class ByteCursor {
  pos = 0;
  line = 1;
  start = 0; // of the current token
  end = 0;

  constructor(readonly bytes: Uint8Array) {
    // A UTF-8 byte-order mark is not part of the first token.
    if (hasUtf8Bom(bytes)) this.pos = 3;
  }

  get atEnd(): boolean {
    return this.pos >= this.bytes.length;
  }

  /** Skips spaces, tabs and (when `newlines`) line breaks. */
  skipSpace(newlines: boolean): void {
    const b = this.bytes;
    while (this.pos < b.length) {
      const c = b[this.pos]!;
      if (c === LF) {
        if (!newlines) return;
        this.line++;
      } else if (!isSpace(c)) return;
      this.pos++;
    }
  }

  /** Reads the next whitespace-delimited token on this line (or across lines); false if none. */
  next(newlines: boolean): boolean {
    this.skipSpace(newlines);
    const b = this.bytes;
    this.start = this.pos;
    while (this.pos < b.length && b[this.pos] !== LF && !isSpace(b[this.pos]!)) this.pos++;
    this.end = this.pos;
    return this.end > this.start;
  }

  /** Moves past the end of the current line. */
  skipLine(): void {
    const b = this.bytes;
    while (this.pos < b.length && b[this.pos] !== LF) this.pos++;
    if (this.pos < b.length) {
      this.pos++;
      this.line++;
    }
  }

  /** True when the current token equals `word`, ignoring ASCII case. */
  is(word: string): boolean {
    if (this.end - this.start !== word.length) return false;
    for (let i = 0; i < word.length; i++) {
      if ((this.bytes[this.start + i]! | 0x20) !== word.charCodeAt(i)) return false;
    }
    return true;
  }

  /** The current token for an error message, shortened so hostile input stays small. */
  describe(): string {
    if (this.end <= this.start) return 'the end of the line';
    const shown = latin1(this.bytes, this.start, Math.min(this.end, this.start + 32));
    return `'${shown}${this.end - this.start > 32 ? '…' : ''}'`;
  }
}

/** No NUL or other control bytes (besides tab, LF, VT, FF, CR) in the first `window` bytes. */
export function looksText(b: Uint8Array, window = 4096): boolean {
  const end = Math.min(b.length, window);
  for (let i = 0; i < end; i++) {
    const c = b[i]!;
    if (c < 9 || (c > 13 && c < 32) || c === 127) return false;
  }
  return true;
}

export function hasUtf8Bom(b: Uint8Array): boolean {
  return b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;
}

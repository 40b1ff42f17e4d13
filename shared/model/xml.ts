// Streaming, hardened XML reading on top of saxes (strict, namespace-aware). Bytes go in as the
// zip inflates them; the encoding is fixed from the byte-order mark and the XML declaration;
// a DOCTYPE (and with it any entity declaration: XXE, billion laughs) is refused the moment it
// is seen, before any content after it is read; element nesting is capped.
//
// Memory and time: saxes builds every token (attribute value, comment, name) as one string before it
// reports it, so a 500 MB attribute that deflates to 500 KB would become a 500 MB string. The decoded
// text is therefore fed in slices of SLICE_CHARS and two things are measured after each slice: the run
// of characters since the last '<' (a text node, or a start tag with all its attributes: neither can
// contain '<'), and the token saxes is still building (a comment or CDATA section may contain '<').
// Either over maxXmlTokenChars is refused, so no token grows past maxXmlTokenChars + SLICE_CHARS
// characters. Attributes are also counted as they complete: at most maxXmlAttributes per element.
import { type SaxesAttributeNS, SaxesParser, type SaxesTagNS } from 'saxes';
import { fail, ModelError } from './errors.ts';
import type { ParseLimits } from './limits.ts';

/** Characters handed to saxes at a time: the most a token can overshoot its cap by. */
const SLICE_CHARS = 64 * 1024;

/**
 * The buffers saxes (6.0.0, pinned) accumulates an unfinished token in. They are private to saxes;
 * reading their lengths is the only way to bound a token before it is complete. The hostile-corpus
 * tests (test/parsers-hostile.test.ts) fail if a saxes upgrade renames them.
 */
interface SaxesTokenBuffers {
  text: string;
  name: string;
  entity: string;
  piTarget: string;
}

export type XmlLimits = Pick<ParseLimits, 'maxXmlDepth' | 'maxXmlTokenChars' | 'maxXmlAttributes'>;

/** URI given to a prefix nobody declared, so callers can decide whether that matters where it occurs. */
export const UNBOUND_PREFIX = 'urn:x-slicequote:unbound-prefix:';

export interface XmlHandler {
  /** `prefixed` lists the element's attributes that have a namespace prefix (xmlns:…, p:path…). */
  open(tag: SaxesTagNS, depth: number, prefixed: readonly SaxesAttributeNS[]): void;
  close(tag: SaxesTagNS, depth: number): void;
}

type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be';

export class XmlStream {
  private readonly parser: SaxesParser<{ xmlns: true }>;
  private decoder: TextDecoder | undefined;
  private encoding: Encoding = 'utf-8';
  private head: Uint8Array = new Uint8Array(0);
  private depth = 0;
  private sawRoot = false;
  /**
   * Prefixed attributes of the tag being read, collected from saxes' attribute events (saxes
   * fills in their namespace before the opentag event). This spares handlers a for-in over
   * every tag's attributes, which dominated the cost of reading vertices and triangles.
   */
  private readonly prefixed: SaxesAttributeNS[] = [];
  /** Characters and attributes of the start tag being read (0 between tags). */
  private tagChars = 0;
  private tagAttributes = 0;
  /** Characters fed since the last '<'. */
  private sinceTag = 0;

  constructor(
    private readonly part: string,
    private readonly limits: XmlLimits,
    handler: XmlHandler,
  ) {
    this.parser = new SaxesParser({
      xmlns: true,
      fileName: part,
      resolvePrefix: (prefix: string) => UNBOUND_PREFIX + prefix,
    });
    this.parser.on('doctype', () => this.refuseDtd());
    this.parser.on('xmldecl', (decl) => this.checkDeclaredEncoding(decl.encoding));
    this.parser.on('opentagstart', (tag) => {
      this.tagChars = tag.name.length;
      this.tagAttributes = 0;
    });
    this.parser.on('attribute', (attr) => {
      if (++this.tagAttributes > limits.maxXmlAttributes) this.refuseAttributes();
      this.tagChars += attr.name.length + attr.value.length;
      if (this.tagChars > limits.maxXmlTokenChars) this.refuseToken();
      if (attr.prefix !== '') this.prefixed.push(attr as SaxesAttributeNS);
    });
    this.parser.on('opentag', (tag) => {
      this.tagChars = 0;
      if (++this.depth > limits.maxXmlDepth) {
        const limit = limits.maxXmlDepth;
        fail('xml_too_deep', `The XML part ${part} nests elements more than ${limit} levels deep.`, { part, limit });
      }
      this.sawRoot = true;
      handler.open(tag, this.depth, this.prefixed);
      if (this.prefixed.length !== 0) this.prefixed.length = 0;
    });
    this.parser.on('closetag', (tag) => handler.close(tag, this.depth--));
  }

  write(chunk: Uint8Array): void {
    if (!this.decoder) {
      // The byte-order mark needs up to four bytes; inflate may hand them over one by one.
      this.head = concat(this.head, chunk);
      if (this.head.length < 4) return;
      chunk = this.head;
      this.startDecoding(chunk);
    }
    this.feed(this.decode(chunk, true));
  }

  end(): void {
    if (!this.decoder) {
      const head = this.head;
      this.startDecoding(head);
      this.feed(this.decode(head, true));
    }
    this.feed(this.decode(new Uint8Array(0), false));
    this.guard(() => this.parser.close());
    if (!this.sawRoot)
      fail('xml_malformed', `The XML part ${this.part} is empty or has no root element.`, { part: this.part });
  }

  private startDecoding(first: Uint8Array): void {
    const [a, b, c, d] = first;
    if ((a === 0 && b === 0 && c === 0xfe && d === 0xff) || (a === 0xff && b === 0xfe && c === 0 && d === 0)) {
      this.refuseEncoding('UTF-32');
    }
    if (a === 0xfe && b === 0xff) this.encoding = 'utf-16be';
    else if (a === 0xff && b === 0xfe) this.encoding = 'utf-16le';
    // fatal: a byte sequence that is not valid in the encoding is an error, not a U+FFFD.
    this.decoder = new TextDecoder(this.encoding, { fatal: true });
    this.head = new Uint8Array(0);
  }

  private refuseDtd(): never {
    return fail(
      'xml_dtd_forbidden',
      `The XML part ${this.part} contains a DOCTYPE (document type definition); 3MF forbids DTDs (3MF Chapter 2.3), and they are refused to rule out entity attacks (XXE, billion laughs).`,
      { part: this.part },
    );
  }

  private checkDeclaredEncoding(declared: string | undefined): void {
    if (declared === undefined) return;
    const name = declared.toLowerCase();
    const fits = name === 'utf-8' ? this.encoding === 'utf-8' : name === 'utf-16' && this.encoding !== 'utf-8';
    if (!fits) this.refuseEncoding(declared);
  }

  private refuseEncoding(name: string): never {
    return fail(
      'xml_encoding_unsupported',
      `The XML part ${this.part} is encoded as ${name}; 3MF XML must be UTF-8 (or UTF-16 with a byte-order mark) (3MF Chapter 2.3: non-UTF encoding).`,
      { part: this.part, encoding: name },
    );
  }

  private decode(bytes: Uint8Array, stream: boolean): string {
    try {
      return this.decoder!.decode(bytes, { stream });
    } catch {
      return fail(
        'xml_encoding_unsupported',
        `The XML part ${this.part} is not valid ${this.encoding.toUpperCase()} text (3MF Chapter 2.3: non-UTF encoding).`,
        {
          part: this.part,
        },
      );
    }
  }

  private feed(text: string): void {
    if (text.length === 0) return;
    // saxes reports a DOCTYPE only once it has read all of it; refuse as soon as it starts.
    if (!this.sawRoot && text.includes('<!DOCTYPE')) this.refuseDtd();
    for (let start = 0; start < text.length; start += SLICE_CHARS) {
      const slice = start === 0 && text.length <= SLICE_CHARS ? text : text.slice(start, start + SLICE_CHARS);
      this.guard(() => this.parser.write(slice));
      const lastTag = slice.lastIndexOf('<');
      this.sinceTag = lastTag < 0 ? this.sinceTag + slice.length : slice.length - lastTag - 1;
      this.checkPendingToken();
    }
  }

  /** The text since the last tag, and the token saxes is still building, stay under the cap. */
  private checkPendingToken(): void {
    const p = this.parser as unknown as SaxesTokenBuffers;
    const building = this.tagChars + p.text.length + p.name.length + p.entity.length + p.piTarget.length;
    if (Math.max(this.sinceTag, building) > this.limits.maxXmlTokenChars) this.refuseToken();
  }

  private refuseToken(): never {
    const limit = this.limits.maxXmlTokenChars;
    const what = 'a text, attribute value, comment, name or start tag';
    const message = `The XML part ${this.part} holds ${what} longer than ${limit} characters, the most this service reads.`;
    return fail('xml_token_too_large', message, { part: this.part, limit });
  }

  private refuseAttributes(): never {
    const limit = this.limits.maxXmlAttributes;
    const message = `An element in the XML part ${this.part} has more than ${limit} attributes.`;
    return fail('xml_too_many_attributes', message, { part: this.part, limit });
  }

  /** Runs a parser step; saxes' own errors become xml_malformed, ours pass through. */
  private guard(step: () => void): void {
    try {
      step();
    } catch (err) {
      if (err instanceof ModelError) throw err;
      const reason = err instanceof Error ? err.message : String(err);
      if (/only one root/.test(reason)) {
        fail(
          '3mf_rule_violation',
          `The XML part ${this.part} has more than one root element; a 3MF model part holds exactly one <model> (3MF Chapter 3.4: more than one model).`,
          { part: this.part, rule: 'Chapter 3.4' },
        );
      }
      fail('xml_malformed', `The XML part ${this.part} is not well-formed XML: ${reason.replace(/\.?$/, '.')}`, {
        part: this.part,
      });
    }
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

// Namespace policy for the parts of a model we interpret, following Markup Compatibility (the
// rule 3MF adopts): markup from a namespace we do not understand is an error unless the file
// declares that namespace ignorable with mc:Ignorable. Attributes from the xml namespace other
// than xml:lang (e.g. xml:space) and from xsi are not part of the 3MF schema and are refused.
import type { SaxesAttributeNS, SaxesTagNS } from 'saxes';
import { fail, ruleViolation } from '../errors.ts';
import { UNBOUND_PREFIX } from '../xml.ts';
import { KNOWN_NAMESPACES, NS_CORE, NS_MC, NS_XML, NS_XMLNS, NS_XSI } from './namespaces.ts';

export type ElementNamespace = 'core' | 'known' | 'ignorable';

export class NamespaceScope {
  private readonly bindings: Record<string, string>[] = [];
  private readonly ignorable: ReadonlySet<string>[] = [new Set()];

  constructor(private readonly part: string) {}

  /** Namespaced attributes of the element last entered, checked by checkAttributes. */
  private readonly namespaced: SaxesAttributeNS[] = [];

  /** Records the element's namespace declarations and mc:Ignorable list. */
  enter(tag: SaxesTagNS, depth: number, prefixed: readonly SaxesAttributeNS[]): void {
    this.bindings[depth] = tag.ns;
    if (this.namespaced.length !== 0) this.namespaced.length = 0;
    let declared: string | undefined;
    for (const a of prefixed) {
      if (a.uri === NS_MC && a.local === 'Ignorable') declared = a.value;
      else this.namespaced.push(a);
    }
    const inherited = this.ignorable[depth - 1]!; // the document level, or the parent entered before
    this.ignorable[depth] = declared === undefined ? inherited : this.extendIgnorable(inherited, declared, depth);
  }

  private extendIgnorable(inherited: ReadonlySet<string>, declared: string, depth: number): ReadonlySet<string> {
    const set = new Set(inherited);
    for (const prefix of declared.trim().split(/\s+/)) {
      if (prefix === '') continue;
      const uri = this.resolve(prefix, depth);
      if (uri === undefined)
        ruleViolation(
          'Chapter 2.3',
          `mc:Ignorable in ${this.part} names the undeclared prefix "${prefix.slice(0, 40)}"`,
        );
      set.add(uri);
    }
    return set;
  }

  resolve(prefix: string, depth: number): string | undefined {
    for (let d = depth; d >= 1; d--) {
      const uri = this.bindings[d]?.[prefix];
      if (uri !== undefined) return uri;
    }
    return undefined;
  }

  /** Classifies an element we are about to interpret; throws for markup we may not ignore. */
  classify(tag: SaxesTagNS, depth: number): ElementNamespace {
    const uri = tag.uri;
    if (uri === NS_CORE) return 'core';
    if (KNOWN_NAMESPACES.has(uri)) return 'known';
    if (this.ignorable[depth]!.has(uri)) return 'ignorable'; // set by enter()
    return this.refuse(`element <${tag.name}>`, uri);
  }

  /** Checks the namespaced attributes of the element last entered, which we interpret. */
  checkAttributes(tag: SaxesTagNS, depth: number): void {
    for (const a of this.namespaced) {
      const uri = a.uri;
      if (uri === NS_XMLNS || uri === NS_MC || KNOWN_NAMESPACES.has(uri)) continue;
      if (uri === NS_XML) {
        if (a.local === 'lang') continue;
        ruleViolation(
          'Chapter 2.3',
          `The attribute ${a.name} on <${tag.name}> in ${this.part} is not allowed; xml:space and other xml: attributes are not part of the 3MF schema (whitespace handling is fixed)`,
        );
      }
      if (uri === NS_XSI) {
        ruleViolation(
          'Chapter 2.3',
          `The XML Schema instance attribute ${a.name} on <${tag.name}> in ${this.part} is not allowed in 3MF markup (xsi attributes are not defined by the 3MF schema)`,
        );
      }
      if (this.ignorable[depth]!.has(uri)) continue;
      this.refuse(`attribute ${a.name} on <${tag.name}>`, uri);
    }
  }

  private refuse(what: string, uri: string): never {
    if (uri.startsWith(UNBOUND_PREFIX)) {
      const prefix = uri.slice(UNBOUND_PREFIX.length);
      return fail(
        'xml_namespace',
        `The ${what} in ${this.part} uses the namespace prefix "${prefix}", which is never declared (undefined namespace; 3MF Chapter 2.3).`,
        {
          part: this.part,
          prefix,
        },
      );
    }
    return fail(
      'xml_namespace',
      `The ${what} in ${this.part} is in the namespace "${uri.slice(0, 200)}", which is not a 3MF namespace and is not declared ignorable with mc:Ignorable (undefined namespace; 3MF Chapter 2.3).`,
      { part: this.part, namespace: uri },
    );
  }
}

/** The value of an attribute in a namespace, whatever prefix the file chose for it. */
export function attributeNS(tag: SaxesTagNS, uri: string, local: string): string | undefined {
  const attributes = tag.attributes;
  for (const key in attributes) {
    const a = attributes[key]!;
    if (a.local === local && a.uri === uri) return a.value;
  }
  return undefined;
}

// PrusaSlicer's compatibility conditions (`compatible_printers_condition`, `compatible_prints_condition`): a small
// boolean language over the printer's (or print's) options. Parsed once into a tree, then evaluated per preset.
//   expr     := and (('or' | '||') and)*
//   and      := unary (('and' | '&&') unary)*
//   unary    := ('not' | '!') unary | compare
//   compare  := primary (('==' | '!=' | '<' | '>' | '<=' | '>=' | '=~' | '!~') primary)?
//   primary  := number | "string" | /regex/ | true | false | name ('[' int ']')? | one_of(primary, ...) | '(' expr ')'
// Regex matches are whole-string (as PrusaSlicer's), with `.` matching newlines too (notes span lines).
// Anything else PrusaSlicer's macro language has (arithmetic, other functions, `if`) is not parsed: such a
// condition throws ConditionError, and the library treats the preset as incompatible (docs/profiles.md).

export class ConditionError extends Error {}

export type Node =
  | { type: 'num'; value: number }
  | { type: 'str'; value: string }
  | { type: 'regex'; source: string }
  | { type: 'bool'; value: boolean }
  | { type: 'var'; name: string; index: number | null }
  | { type: 'not'; operand: Node }
  | { type: 'logic'; op: 'and' | 'or'; left: Node; right: Node }
  | { type: 'compare'; op: CompareOp; left: Node; right: Node }
  | { type: 'one_of'; args: Node[] };

type CompareOp = '==' | '!=' | '<' | '>' | '<=' | '>=' | '=~' | '!~';

type Token =
  | { kind: 'num'; value: number }
  | { kind: 'str'; value: string }
  | { kind: 'regex'; value: string }
  | { kind: 'name'; value: string }
  | { kind: 'op'; value: string };

const MAX_CONDITION_CHARS = 10_000;
const MAX_DEPTH = 100;
const OPERATORS = ['==', '!=', '<=', '>=', '=~', '!~', '&&', '||', '<', '>', '!', '(', ')', '[', ']', ','];

/** Parses a condition; an empty one is null (no condition: compatible with everything). */
export function parseCondition(text: string): Node | null {
  if (text.length > MAX_CONDITION_CHARS)
    throw new ConditionError(`condition longer than ${MAX_CONDITION_CHARS} characters`);
  const tokens = tokenize(text);
  if (tokens.length === 0) return null;
  const parser = new Parser(tokens);
  const node = parser.expr(0);
  parser.end();
  return node;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) i++;
    else if (c === '"') i = readString(text, i, tokens);
    else if (c === '/') i = readRegex(text, i, tokens);
    else if (/[0-9.]/.test(c)) i = readNumber(text, i, tokens);
    else if (/[A-Za-z_]/.test(c)) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))![0];
      tokens.push({ kind: 'name', value: name });
      i += name.length;
    } else {
      const op = OPERATORS.find((o) => text.startsWith(o, i));
      if (!op) throw new ConditionError(`unexpected "${c}" at ${i}`);
      tokens.push({ kind: 'op', value: op });
      i += op.length;
    }
  }
  return tokens;
}

function readString(text: string, start: number, tokens: Token[]): number {
  let value = '';
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      tokens.push({ kind: 'str', value });
      return i + 1;
    }
    value += c === '\\' && i + 1 < text.length ? text[++i]! : c;
  }
  throw new ConditionError(`unclosed string at ${start}`);
}

function readRegex(text: string, start: number, tokens: Token[]): number {
  let value = '';
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '/') {
      tokens.push({ kind: 'regex', value });
      return i + 1;
    }
    if (c === '\\' && text[i + 1] === '/') {
      value += '/';
      i++;
    } else value += c;
  }
  throw new ConditionError(`unclosed regular expression at ${start}`);
}

function readNumber(text: string, start: number, tokens: Token[]): number {
  const match = /^(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(text.slice(start));
  if (!match) throw new ConditionError(`bad number at ${start}`);
  tokens.push({ kind: 'num', value: Number(match[0]) });
  return start + match[0].length;
}

const COMPARE_OPS = new Set(['==', '!=', '<', '>', '<=', '>=', '=~', '!~']);

class Parser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token | undefined {
    return this.tokens[this.at];
  }
  private isOp(value: string): boolean {
    const t = this.peek();
    return t?.kind === 'op' && t.value === value;
  }
  private isWord(value: string): boolean {
    const t = this.peek();
    return t?.kind === 'name' && t.value === value;
  }
  private expect(value: string) {
    if (!this.isOp(value)) throw new ConditionError(`expected "${value}" at token ${this.at}`);
    this.at++;
  }
  end() {
    if (this.at < this.tokens.length) throw new ConditionError(`unexpected token at ${this.at}`);
  }

  expr(depth: number): Node {
    if (depth > MAX_DEPTH) throw new ConditionError('condition nested too deeply');
    let left = this.and(depth);
    while (this.isWord('or') || this.isOp('||')) {
      this.at++;
      left = { type: 'logic', op: 'or', left, right: this.and(depth) };
    }
    return left;
  }

  private and(depth: number): Node {
    let left = this.unary(depth);
    while (this.isWord('and') || this.isOp('&&')) {
      this.at++;
      left = { type: 'logic', op: 'and', left, right: this.unary(depth) };
    }
    return left;
  }

  private unary(depth: number): Node {
    if (this.isWord('not') || this.isOp('!')) {
      this.at++;
      if (depth > MAX_DEPTH) throw new ConditionError('condition nested too deeply');
      return { type: 'not', operand: this.unary(depth + 1) };
    }
    const left = this.primary(depth);
    const t = this.peek();
    if (t?.kind !== 'op' || !COMPARE_OPS.has(t.value)) return left;
    this.at++;
    return { type: 'compare', op: t.value as CompareOp, left, right: this.primary(depth) };
  }

  private primary(depth: number): Node {
    const t = this.tokens[this.at++];
    if (!t) throw new ConditionError('condition ends early');
    if (t.kind === 'num') return { type: 'num', value: t.value };
    if (t.kind === 'str') return { type: 'str', value: t.value };
    if (t.kind === 'regex') return { type: 'regex', source: t.value };
    if (t.kind === 'op' && t.value === '(') {
      const inner = this.expr(depth + 1);
      this.expect(')');
      return inner;
    }
    if (t.kind !== 'name') throw new ConditionError(`unexpected "${t.value}"`);
    if (t.value === 'true' || t.value === 'false') return { type: 'bool', value: t.value === 'true' };
    if (this.isOp('(')) return this.call(t.value, depth);
    return { type: 'var', name: t.value, index: this.index() };
  }

  private index(): number | null {
    if (!this.isOp('[')) return null;
    this.at++;
    const t = this.tokens[this.at++];
    if (t?.kind !== 'num' || !Number.isInteger(t.value))
      throw new ConditionError('a vector index must be a whole number');
    this.expect(']');
    return t.value;
  }

  private call(name: string, depth: number): Node {
    if (name !== 'one_of') throw new ConditionError(`function ${name}() is not supported`);
    this.expect('(');
    const args = [this.primary(depth + 1)];
    while (this.isOp(',')) {
      this.at++;
      args.push(this.primary(depth + 1));
    }
    this.expect(')');
    if (args.length < 2) throw new ConditionError('one_of() takes a value and at least one pattern');
    return { type: 'one_of', args };
  }
}

type Value =
  | { t: 'num'; v: number }
  | { t: 'str'; v: string }
  | { t: 'bool'; v: boolean }
  | { t: 'regex'; v: string }
  /** An option's text, typed by what it meets (a number, a string, a boolean context). */
  | { t: 'opt'; v: string; name: string };

/** Options every printer has in PrusaSlicer (its defaults), for presets of bundles that leave them out. */
const PRINTER_DEFAULTS: Record<string, string> = {
  printer_model: '',
  printer_notes: '',
  printer_variant: '',
  printer_technology: 'FFF',
  single_extruder_multi_material: '0',
  nozzle_diameter: '0.4',
  nozzle_high_flow: '0',
};

/** Evaluates against a preset's options (text, as in the INI); throws ConditionError on what it cannot judge. */
export function evaluateCondition(node: Node, options: Record<string, string>): boolean {
  return truth(evaluate(node, options));
}

function evaluate(node: Node, options: Record<string, string>): Value {
  switch (node.type) {
    case 'num':
      return { t: 'num', v: node.value };
    case 'str':
      return { t: 'str', v: node.value };
    case 'bool':
      return { t: 'bool', v: node.value };
    case 'regex':
      return { t: 'regex', v: node.source };
    case 'var':
      return lookup(node.name, node.index, options);
    case 'not':
      return { t: 'bool', v: !truth(evaluate(node.operand, options)) };
    case 'logic': {
      const left = truth(evaluate(node.left, options));
      if (node.op === 'and' ? !left : left) return { t: 'bool', v: left };
      return { t: 'bool', v: truth(evaluate(node.right, options)) };
    }
    case 'compare':
      return { t: 'bool', v: compare(node.op, evaluate(node.left, options), evaluate(node.right, options)) };
    case 'one_of': {
      const [subject, ...patterns] = node.args.map((arg) => evaluate(arg, options));
      return { t: 'bool', v: patterns.some((p) => compare(p.t === 'regex' ? '=~' : '==', subject!, p)) };
    }
  }
}

function lookup(name: string, index: number | null, options: Record<string, string>): Value {
  const raw = options[name] ?? PRINTER_DEFAULTS[name];
  if (raw === undefined) throw new ConditionError(`unknown option ${name}`);
  if (index === null) return { t: 'opt', v: unquote(raw), name };
  const items = raw.includes(';') || raw.startsWith('"') ? splitQuoted(raw) : raw.split(',');
  const item = items[index];
  if (item === undefined) throw new ConditionError(`${name}[${index}] is out of range`);
  return { t: 'opt', v: unquote(item.trim()), name };
}

const unquoted = new Map<string, string>();

/** An option's text as PrusaSlicer holds it: quotes removed, `\n` a line break. Remembered: notes are long. */
function unquote(raw: string): string {
  let text = unquoted.get(raw);
  if (text === undefined) {
    const inner = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
    text = inner.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    if (unquoted.size < 10_000) unquoted.set(raw, text);
  }
  return text;
}

function splitQuoted(raw: string): string[] {
  return raw.split(';').map((item) => item.trim());
}

function truth(value: Value): boolean {
  if (value.t === 'bool') return value.v;
  if (value.t === 'num') return value.v !== 0;
  if (value.t === 'opt') {
    if (['1', 'true'].includes(value.v)) return true;
    if (['0', 'false', ''].includes(value.v)) return false;
  }
  throw new ConditionError(`${value.t === 'opt' ? value.name : value.t} is not a boolean`);
}

function compare(op: CompareOp, left: Value, right: Value): boolean {
  if (op === '=~' || op === '!~') {
    if (right.t !== 'regex') throw new ConditionError(`${op} needs a /regular expression/ on its right`);
    const matched = fullMatch(right.v).test(text(left));
    return op === '=~' ? matched : !matched;
  }
  if (left.t === 'bool' || right.t === 'bool') {
    if (op !== '==' && op !== '!=') throw new ConditionError(`booleans are compared with == and != only`);
    return (truth(left) === truth(right)) === (op === '==');
  }
  if (left.t === 'num' || right.t === 'num') return order(op, number(left), number(right));
  return order(op, text(left), text(right));
}

const compiled = new Map<string, RegExp>();

function fullMatch(source: string): RegExp {
  let re = compiled.get(source);
  if (!re) {
    try {
      re = new RegExp(`^(?:${source})$`, 's');
    } catch {
      throw new ConditionError(`bad regular expression /${source}/`);
    }
    if (compiled.size < 10_000) compiled.set(source, re);
  }
  return re;
}

function number(value: Value): number {
  if (value.t === 'num') return value.v;
  if (value.t === 'bool') return value.v ? 1 : 0;
  const n = value.t === 'regex' || value.v.trim() === '' ? Number.NaN : Number(value.v);
  if (Number.isNaN(n)) throw new ConditionError(`${value.t === 'opt' ? value.name : value.t} is not a number`);
  return n;
}

function text(value: Value): string {
  if (value.t === 'str' || value.t === 'opt') return value.v;
  throw new ConditionError(`a ${value.t} is not a string`);
}

/** PrusaSlicer's comparisons: numbers equal within 1e-8; `<=` is "not greater", `>=` "not less". */
function order<T extends number | string>(op: CompareOp, a: T, b: T): boolean {
  const equal = typeof a === 'number' ? Math.abs(a - (b as number)) < 1e-8 : a === b;
  switch (op) {
    case '==':
      return equal;
    case '!=':
      return !equal;
    case '<':
      return a < b;
    case '>':
      return a > b;
    case '<=':
      return !(a > b);
    default:
      return !(a < b);
  }
}

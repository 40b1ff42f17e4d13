// Strict decimal number parsing, straight from bytes (OBJ, ASCII STL) or strings (3MF attributes).
// Number() alone is too lenient ("", " 1", "0x10", "1_0" handling differs), so the grammar is
// checked first. Results are correctly rounded: the fast path is Clinger's (an exact integer
// mantissa and an exact power of ten, one rounding); anything else falls back to Number().

/** Longest number token we accept; a longer one is garbage, and must not become a huge string. */
export const MAX_NUMBER_TOKEN = 64;

const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
  1e21, 1e22,
];

const C_0 = 48,
  C_9 = 57,
  C_PLUS = 43,
  C_MINUS = 45,
  C_DOT = 46,
  C_E = 101,
  C_UPPER_E = 69;

const isDigit = (c: number) => c >= C_0 && c <= C_9;

/**
 * Parses [+-](digits[.digits]|.digits)[(e|E)[+-]digits], or the words nan / inf / infinity
 * (any case, optional sign) so callers can report non-finite values precisely.
 * Returns null when the token is not a number.
 */
export function parseNumberBytes(b: Uint8Array, start: number, end: number): number | null {
  if (end - start > MAX_NUMBER_TOKEN || end <= start) return null;
  let i = start;
  let negative = false;
  if (b[i] === C_PLUS || b[i] === C_MINUS) negative = b[i++] === C_MINUS;
  // The caller's range lies within b, so every b[i] with i < end below is a byte.
  if (i < end && !isDigit(b[i]!) && b[i] !== C_DOT) return parseSpecial(b, i, end, negative);
  let mantissa = 0,
    significant = 0,
    exp10 = 0,
    digits = 0;
  for (; i < end && isDigit(b[i]!); i++, digits++) {
    if (significant > 0 || b[i] !== C_0) {
      if (significant < 15) {
        mantissa = mantissa * 10 + (b[i]! - C_0);
        significant++;
      } else {
        significant = 99;
      }
    }
    if (significant === 99) exp10++;
  }
  if (i < end && b[i] === C_DOT) {
    for (i++; i < end && isDigit(b[i]!); i++, digits++) {
      if (significant > 0 || b[i] !== C_0) {
        if (significant < 15) {
          mantissa = mantissa * 10 + (b[i]! - C_0);
          significant++;
        } else {
          significant = 99;
        }
      }
      if (significant !== 99) exp10--;
    }
  }
  if (digits === 0) return null;
  if (i < end && (b[i] === C_E || b[i] === C_UPPER_E)) {
    const expStart = ++i;
    if (i < end && (b[i] === C_PLUS || b[i] === C_MINUS)) i++;
    const digitsStart = i;
    while (i < end && isDigit(b[i]!)) i++;
    if (i === digitsStart) return null;
    if (i !== end) return null;
    const e = parseExponent(b, expStart, end);
    exp10 += e;
  }
  if (i !== end) return null;
  if (significant !== 99 && exp10 >= -22 && exp10 <= 22) {
    const v = exp10 >= 0 ? mantissa * POW10[exp10]! : mantissa / POW10[-exp10]!;
    return negative ? -v : v;
  }
  return Number(latin1(b, start, end));
}

function parseExponent(b: Uint8Array, start: number, end: number): number {
  let i = start,
    sign = 1,
    e = 0;
  if (b[i] === C_PLUS || b[i] === C_MINUS) sign = b[i++] === C_MINUS ? -1 : 1;
  // Saturate: 1e999999 is Infinity either way; this keeps the arithmetic exact.
  for (; i < end; i++) e = Math.min(e * 10 + (b[i]! - C_0), 100000);
  return sign * e;
}

function parseSpecial(b: Uint8Array, start: number, end: number, negative: boolean): number | null {
  const word = latin1(b, start, end).toLowerCase();
  if (word === 'nan') return NaN;
  if (word === 'inf' || word === 'infinity') return negative ? -Infinity : Infinity;
  return null;
}

/** Token bytes as a string, for messages and slow paths; callers bound the length. */
export function latin1(b: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i++) s += String.fromCharCode(b[i]!);
  return s;
}

/**
 * The same grammar for strings (3MF attribute values); no surrounding whitespace. Restricted to
 * the characters 0-9 + - . e E, Number() accepts exactly that grammar and yields NaN for any
 * other arrangement ("1.2.3", "1e", "+-1"), so a character scan is all the checking needed.
 */
export function parseNumberString(s: string): number | null {
  const n = s.length;
  if (n === 0 || n > MAX_NUMBER_TOKEN) return null;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= C_0 && c <= C_9) || c === C_DOT || c === C_MINUS || c === C_PLUS || c === C_E || c === C_UPPER_E))
      return null;
  }
  const v = Number(s);
  return Number.isNaN(v) ? null : v;
}

/** A non-negative decimal integer (3MF ids and indices); null when malformed or unsafe. */
export function parseIndexString(s: string): number | null {
  if (s.length === 0 || s.length > 15) return null;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < C_0 || c > C_9) return null;
  }
  return Number(s);
}

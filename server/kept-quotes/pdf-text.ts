// Text for the PDF's standard fonts, which print WinAnsi only (Latin-1 and a few signs): a shop's or a part's name
// in another script would print as mojibake. Embedding a font that covers it costs 60–650 ms of the event loop
// per PDF (fontkit reading and subsetting a 750 KB TrueType), so the text is transliterated instead: accents are
// dropped where WinAnsi lacks the letter, Cyrillic and Greek are spelt in Latin letters, and anything else
// becomes "?". The original names go into the PDF's properties (Subject, Author), which hold any script.

/** The signs WinAnsi has beyond Latin-1 (0x80–0x9F). */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

const printable = (c: string) => {
  const code = c.codePointAt(0)!;
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(c);
};

// Cyrillic а–я (U+0430–U+044F; the hard and soft signs spelt as nothing), Greek α–ω (U+03B1–U+03C9).
const CYRILLIC = 'a b v g d e zh z i y k l m n o p r s t u f kh ts ch sh shch _ y _ e yu ya'.split(' ');
/** Letters no decomposition reaches: other Cyrillic alphabets' and Latin letters with a stroke. */
const OTHER: Record<string, string> = {
  є: 'ye',
  і: 'i',
  ї: 'yi',
  ґ: 'g',
  ў: 'u',
  ј: 'j',
  ł: 'l',
  đ: 'd',
  ħ: 'h',
  ı: 'i',
};
const GREEK = 'a v g d e z i th i k l m n x o p r s s t y f ch ps o'.split(' ');

function latin(lower: string): string | undefined {
  const code = lower.codePointAt(0)!;
  if (code >= 0x430 && code <= 0x44f) return CYRILLIC[code - 0x430]!.replace('_', '');
  if (code >= 0x3b1 && code <= 0x3c9) return GREEK[code - 0x3b1];
  return OTHER[lower];
}

/** `text` as the standard fonts can print it. */
export function pdfText(text: string): string {
  let out = '';
  for (const c of text) {
    if (printable(c)) {
      out += c;
      continue;
    }
    const bare = c.normalize('NFKD').replace(/\p{M}/gu, '');
    if (bare && [...bare].every(printable)) {
      out += bare;
      continue;
    }
    const lower = bare.toLowerCase() || c.toLowerCase();
    const spelt = latin(lower);
    if (spelt === undefined) out += '?';
    else out += lower !== bare && spelt ? spelt[0]!.toUpperCase() + spelt.slice(1) : spelt;
  }
  return out;
}

// What a kept quote's PDF says: every text string its pages draw, in order, one per line (pdfkit writes hex strings
// in TJ arrays). Shared by the API tests of the PDF and the browser tests that download it from the widget.
import assert from 'node:assert/strict';
import { decodePDFRawStream, PDFDocument, PDFRawStream } from 'pdf-lib';

export async function pdfText(bytes: Uint8Array): Promise<string> {
  const pdf = await PDFDocument.load(bytes);
  assert.equal(pdf.getPageCount(), 1, 'one page');
  const out: string[] = [];
  for (const [, obj] of pdf.context.enumerateIndirectObjects()) {
    if (!(obj instanceof PDFRawStream)) continue;
    const content = Buffer.from(decodePDFRawStream(obj).decode()).toString('latin1');
    for (const tj of content.matchAll(/\[([^\]]*)\]\s*TJ/g))
      out.push(
        [...tj[1]!.matchAll(/<([0-9a-f]*)>/gi)].map((h) => Buffer.from(h[1]!, 'hex').toString('latin1')).join(''),
      );
  }
  return out.join('\n');
}

/** Words of the cost breakdown: none of them on a shopper's PDF unless the merchant shows it. */
export const COST_WORDS = /Machine time|Energy|Fixed fee|Support material|Price of one part|price per gram|\bcost\b/i;

/** An amount as the PDF writes it: "2.35 USD". */
export const pdfAmount = (major: number, digits: number, currency: string) => `${major.toFixed(digits)} ${currency}`;

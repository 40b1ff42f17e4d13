// A kept quote as a one-page PDF, written with pdfkit: it is maintained, has no native parts, draws text with the
// PDF standard fonts (nothing to ship, nothing to read per PDF) and embeds PNGs, which is all a quote needs.
// Amounts are written with the currency code ("12.40 USD"), which every standard font can print, whatever the
// currency's symbol; names in other scripts are transliterated (pdf-text.ts), the originals kept in the PDF's
// properties.
import PDFDocument from 'pdfkit';
import { PART_LINES } from '../../shared/pricing.ts';
import { pdfText } from './pdf-text.ts';

export interface PdfQuote {
  shopName: string;
  quoteId: string;
  fileName: string;
  createdAt: Date;
  validUntil: Date | null;
  currency: string;
  digits: number;
  /** Price lines of one part, in minor units, as the quote's breakdown holds them. */
  minor: Record<string, number>;
  choices: { material: string; color: string | null; quality_label: string; infill: number } | null;
  weightG: number | null;
  printTime: string | null;
  leadTime: string | null;
  picture: Buffer | null;
}

const LINE_LABELS: Record<string, string> = {
  material: 'Material',
  support: 'Support material',
  machine: 'Machine time',
  energy: 'Energy',
  fixed_fee: 'Fixed fee',
  minimum_price_adjustment: 'Minimum price per part',
  subtotal: 'Subtotal',
  tax: 'Tax',
  total: 'Price of one part',
};

const day = (d: Date) => d.toISOString().slice(0, 10);

export function amount(minor: number, digits: number, currency: string): string {
  return `${(minor / 10 ** digits).toFixed(digits)} ${currency}`;
}

export function quotePdf(q: PdfQuote): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    // Properties hold any script: the names as they are.
    info: { Title: `Quote ${q.quoteId}`, Author: q.shopName, Subject: q.fileName },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc
    .font('Helvetica-Bold')
    .fontSize(20)
    .text(`${pdfText(q.shopName)}: quote`);
  doc
    .font('Helvetica')
    .fontSize(10)
    .fillColor('#555')
    .text(
      `Quote ${q.quoteId} · made ${day(q.createdAt)}${q.validUntil ? ` · price valid until ${day(q.validUntil)}` : ''}`,
    );
  doc.moveDown().fillColor('#000').font('Helvetica-Bold').fontSize(14).text(pdfText(q.fileName));
  const top = doc.y + 8;
  if (q.picture) doc.image(q.picture, 50, top, { fit: [200, 200] });
  details(doc, q, q.picture ? 270 : 50, top);
  doc.y = Math.max(doc.y, top + (q.picture ? 210 : 0));
  priceLines(doc, q);
  doc.moveDown().font('Helvetica').fontSize(9).fillColor('#555');
  if (q.validUntil) doc.text(`After ${day(q.validUntil)} the part is priced again at that day's prices.`);
  doc.end();
  return done;
}

function details(doc: PDFKit.PDFDocument, q: PdfQuote, x: number, y: number) {
  const rows: [string, string][] = [];
  if (q.choices) {
    rows.push(['Material', q.choices.color ? `${q.choices.material}, ${q.choices.color}` : q.choices.material]);
    rows.push(['Quality', q.choices.quality_label]);
    rows.push(['Infill', `${q.choices.infill} %`]);
  }
  if (q.weightG !== null) rows.push(['Weight', `${q.weightG.toFixed(1)} g`]);
  if (q.printTime) rows.push(['Print time', q.printTime]);
  rows.push(['Lead time', q.leadTime ?? 'Ask the shop']);
  doc.fontSize(11);
  rows.forEach(([label, value], i) => {
    doc.font('Helvetica-Bold').text(label, x, y + i * 18, { width: 90, lineBreak: false });
    doc.font('Helvetica').text(pdfText(value), x + 95, y + i * 18, { width: 180 });
  });
}

function priceLines(doc: PDFKit.PDFDocument, q: PdfQuote) {
  doc.moveDown().font('Helvetica-Bold').fontSize(13).fillColor('#000').text('Price', 50);
  const shown = [...PART_LINES.filter((l) => (q.minor[l] ?? 0) !== 0), 'subtotal', 'tax', 'total'];
  for (const line of shown) {
    if (line === 'tax' && !q.minor.tax) continue;
    const y = doc.y + 4;
    doc.font(line === 'total' ? 'Helvetica-Bold' : 'Helvetica').fontSize(11);
    doc.text(LINE_LABELS[line] ?? line, 50, y, { width: 250, lineBreak: false });
    doc.text(amount(q.minor[line] ?? 0, q.digits, q.currency), 300, y, { width: 200, align: 'right' });
  }
}
